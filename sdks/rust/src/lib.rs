//! fsbox for Rust: starts an fsbox server as a child process and calls its sandboxed file tools
//! over JSON-RPC 2.0 on the child's stdin and stdout.
//!
//! ```no_run
//! use fsbox::{Client, Options, ReadFileArgs, ErrorKind, Error};
//!
//! let c = Client::start(Options { root_dir: Some("/srv/workspace".into()), ..Default::default() })?;
//! match c.read_file(&ReadFileArgs { path: "a.txt".into(), limit: Some(20), ..Default::default() }) {
//!     Ok(r) => println!("{}", r.text),
//!     Err(Error::Tool(e)) if e.kind == Some(ErrorKind::NotFound) => println!("no such file"),
//!     Err(e) => return Err(e),
//! }
//! c.close();
//! # Ok::<(), fsbox::Error>(())
//! ```
//!
//! The types and the one method per tool (`types_gen.rs`, `client_gen.rs`) are generated from the
//! schema bundle by `fsbox gen --lang rust`; `client.rs`, `error.rs` and `base64.rs` are written by
//! hand. Optional fields are `Option`s, so an absent field is never confused with a zero one.
//! Failures are one `Error` enum named like the other SDKs' errors (docs/errors.md); a tool
//! failure is `Error::Tool` with its `kind` and `retry`.

pub mod base64;
mod client;
mod client_gen;
mod error;
mod types_gen;

pub use client::{ChangeAnswer, ChangeRequest, ChangeRequestHandler, Client, EventHandler, Options};
pub use error::{Error, ServerError};
pub use types_gen::*;

/// The release of this crate; the fsbox binary and the other SDKs of the same release carry the
/// same one.
pub const VERSION: &str = "0.1.0";
