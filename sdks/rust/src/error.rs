//! The one error type of the crate. Its variants follow the names the other SDKs use for the same
//! failures (docs/errors.md): a failure the server reported is `Tool`, with the error kind and
//! retry flag to act on; compare kinds, never messages.

use std::fmt;

use crate::types_gen::{ErrorKind, CODE_RETRY};

/// Every failure of the crate.
#[derive(Debug, Clone)]
pub enum Error {
    /// The server answered with a JSON-RPC error: a tool failure (`kind` set) or a protocol error.
    Tool(ServerError),
    /// The server is gone: it exited, was killed, never started, or the client was closed. The
    /// message says how it exited and its last stderr lines.
    ConnectionLost(String),
    /// The server sent something the protocol does not allow, or a result that does not decode
    /// into the typed result.
    Protocol(String),
    /// The binary is of another release: its schema_hash is not the one this crate was generated
    /// from, so results could decode wrongly.
    SchemaMismatch(String),
    /// A typed method on a client started with result shape "text": there is nothing to decode.
    /// The call was not sent; use Client::text or Client::call.
    ResultShape(String),
    /// No fsbox binary was given or found; the message says how to get one.
    BinaryNotFound(String),
}

/// A JSON-RPC error the server answered with, and fsbox's data member when it has one.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerError {
    /// The JSON-RPC error code (CODE_RETRY, CODE_FATAL, CODE_INVALID_PARAMS, …).
    pub code: i64,
    /// What failed; None for an error without fsbox data.
    pub kind: Option<ErrorKind>,
    /// The model can fix the call and try again; false means the run should stop.
    pub retry: bool,
    /// Whether the failure should spend one of the model's retries: false for not_found, which is
    /// an answer rather than a mistake.
    pub counts_as_retry: bool,
    /// The root-relative path the failure is about, if any.
    pub path: Option<String>,
    /// Written for the model.
    pub message: String,
    /// The error's data member as sent.
    pub data: Option<serde_json::Value>,
}

impl ServerError {
    /// Reads a JSON-RPC error object. A data member without a kind leaves kind None and takes
    /// retry from the code.
    pub(crate) fn from_wire(e: &serde_json::Value) -> ServerError {
        let code = e.get("code").and_then(|c| c.as_i64()).unwrap_or(0);
        let message = e.get("message").and_then(|m| m.as_str()).unwrap_or("").to_string();
        let data = e.get("data").cloned().filter(|d| !d.is_null());
        let mut out = ServerError { code, kind: None, retry: code == CODE_RETRY, counts_as_retry: code == CODE_RETRY, path: None, message, data };
        if let Some(d) = out.data.as_ref().and_then(|d| d.as_object()) {
            if let Some(k) = d.get("kind").and_then(|k| k.as_str()) {
                out.kind = Some(ErrorKind::from_wire(k));
            }
            if let Some(r) = d.get("retry").and_then(|r| r.as_bool()) {
                out.retry = r;
                // A server that predates counts_as_retry counts every retry.
                out.counts_as_retry = d.get("counts_as_retry").and_then(|c| c.as_bool()).unwrap_or(r);
            }
            out.path = d.get("path").and_then(|p| p.as_str()).map(str::to_string);
        }
        out
    }
}

impl Error {
    /// The error kind of a tool failure; None for every other failure.
    pub fn kind(&self) -> Option<&ErrorKind> {
        match self {
            Error::Tool(e) => e.kind.as_ref(),
            _ => None,
        }
    }

    /// Whether the model can fix the call and try again: true only for a tool failure the
    /// server marked retry.
    pub fn is_retry(&self) -> bool {
        matches!(self, Error::Tool(e) if e.retry)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Tool(e) => match &e.kind {
                Some(k) => write!(f, "fsbox: {}: {}", k, e.message),
                None => write!(f, "fsbox: {} (code {})", e.message, e.code),
            },
            Error::ConnectionLost(m) => write!(f, "fsbox: connection lost: {m}"),
            Error::Protocol(m) => write!(f, "fsbox: protocol error: {m}"),
            Error::SchemaMismatch(m) => write!(f, "fsbox: schema mismatch: {m}"),
            Error::ResultShape(m) => write!(f, "fsbox: result shape: {m}"),
            Error::BinaryNotFound(m) => write!(f, "fsbox: binary not found: {m}"),
        }
    }
}

impl std::error::Error for Error {}
