//! The client: a child `fsbox serve` process and JSON-RPC 2.0 on its stdin and stdout, one
//! message per line. A reader thread owns the child's stdout and delivers responses to the calls
//! waiting for them, events to `Options::on_event`, and each change request to
//! `Options::on_change_request` on a thread of its own (so the callback may call the client).
//! When stdout ends every pending and later call fails with `Error::ConnectionLost`, saying how
//! the process exited and what its stderr last said.
//!
//! What it does not protect against: a server that never answers a call blocks that call (there
//! is no per-call timeout; close the client from another thread to end it).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

use crate::error::{Error, ServerError};
use crate::types_gen::*;

/// A change the server asks `Options::on_change_request` to approve.
pub type ChangeRequest = FileChangeRequest;

/// The answer to a change request.
#[derive(Debug, Clone, PartialEq)]
pub enum ChangeAnswer {
    /// Let the change proceed.
    Approve,
    /// Refuse the change, with a reason shown to the model; the call then returns a normal result
    /// with cancelled set.
    Reject(String),
    /// Approve a write or an edit with this content as the file's whole new content instead of
    /// the model's; the server writes it under the same checks.
    ApproveWith(String),
    /// Approve with these replacement arguments for the tool call, which the server checks as if
    /// the model had sent them.
    EditArguments(Value),
    /// Fail the call: the server aborts it with the fatal change_request_failed.
    Fail(String),
}

/// The callback type of `Options::on_event`.
pub type EventHandler = Arc<dyn Fn(Event) + Send + Sync>;
/// The callback type of `Options::on_change_request`.
pub type ChangeRequestHandler = Arc<dyn Fn(&ChangeRequest) -> ChangeAnswer + Send + Sync>;

/// Configures `Client::start`. Every field is optional.
#[derive(Default, Clone)]
pub struct Options {
    /// The fsbox executable. None: $FSBOX_BIN, then fsbox on $PATH.
    pub binary: Option<PathBuf>,
    /// The directory every tool is confined to; overrides config.root_dir.
    pub root_dir: Option<String>,
    /// Sent in initialize; overrides the server's defaults.
    pub config: Option<Config>,
    /// The configuration as raw JSON, sent as is instead of `config`: for a member this crate's
    /// Config does not know (a newer server's). The server decodes it strictly, so a typo or a
    /// wrong type fails start with the member named, as with `config`.
    pub config_json: Option<Value>,
    /// Receives every event (capabilities.events is requested only when set). It runs on the
    /// reader thread before the response of the call that caused the event is delivered: keep it
    /// short and do not call the client from it.
    pub on_event: Option<EventHandler>,
    /// Asked before a change touches disk (capabilities.change_requests is requested only when
    /// set). It runs on a thread of its own and may call the client.
    pub on_change_request: Option<ChangeRequestHandler>,
    /// "both" (the default), "text" or "typed" (capabilities.result_shape).
    pub result_shape: Option<String>,
}

/// A connection to one fsbox server process. Clones share it; its methods may be called from
/// several threads at once, and calls are pipelined on the one connection. Call `close` to stop
/// the server.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
    session: Arc<InitializeResult>,
}

struct Inner {
    stdin: Mutex<Option<ChildStdin>>,
    state: Mutex<State>,
    child: Mutex<Child>,
    stderr_tail: Arc<Mutex<Vec<u8>>>,
    stderr_copy: Mutex<Option<JoinHandle<()>>>, // ends when the server's stderr closes
    reader: Mutex<Option<JoinHandle<()>>>,
    on_event: Option<EventHandler>,
    on_change_request: Option<ChangeRequestHandler>,
}

struct State {
    next_id: i64,
    pending: HashMap<i64, Sender<Result<Value, Error>>>,
    dead: Option<String>, // why the connection is dead; None while it is alive
    closing: bool,
}

/// How long close waits for the answer to shutdown, then for the process to exit.
const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(2);
const EXIT_TIMEOUT: Duration = Duration::from_secs(3);
/// How many bytes of the server's stderr are kept for the ConnectionLost message.
const STDERR_TAIL: usize = 2048;

const HOW_TO_GET: &str = "get one with `pip install fsbox` or `npm install @fsbox/sdk` (both bundle the binary), \
or build it from a checkout of the fsbox repository with `go build -o bin/fsbox ./cmd/fsbox`";

/// Picks the fsbox executable: the explicit one, $FSBOX_BIN, then fsbox on $PATH.
fn find_binary(explicit: Option<&Path>) -> Result<PathBuf, Error> {
    if let Some(p) = explicit {
        return Ok(p.to_path_buf());
    }
    if let Some(p) = std::env::var_os("FSBOX_BIN").filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(p));
    }
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            let cand = dir.join(if cfg!(windows) { "fsbox.exe" } else { "fsbox" });
            if cand.is_file() {
                return Ok(cand);
            }
        }
    }
    Err(Error::BinaryNotFound(format!("set Options::binary or FSBOX_BIN, or put fsbox on PATH; {HOW_TO_GET}")))
}

impl Client {
    /// Locates the fsbox binary, spawns `fsbox serve` and initializes the session. A server of
    /// another release (another schema_hash) is refused with `Error::SchemaMismatch`.
    pub fn start(opts: Options) -> Result<Client, Error> {
        let bin = find_binary(opts.binary.as_deref())?;
        let mut child = Command::new(&bin)
            .arg("serve")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| Error::ConnectionLost(format!("starting {} serve: {e}", bin.display())))?;
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = child.stderr.take().expect("piped stderr");
        let stdin = child.stdin.take();
        let tail = Arc::new(Mutex::new(Vec::new()));
        let stderr_copy = spawn_stderr_copy(stderr, tail.clone());
        let inner = Arc::new(Inner {
            stdin: Mutex::new(stdin),
            state: Mutex::new(State { next_id: 0, pending: HashMap::new(), dead: None, closing: false }),
            child: Mutex::new(child),
            stderr_tail: tail,
            stderr_copy: Mutex::new(Some(stderr_copy)),
            reader: Mutex::new(None),
            on_event: opts.on_event.clone(),
            on_change_request: opts.on_change_request.clone(),
        });
        let reader_inner = inner.clone();
        *inner.reader.lock().unwrap() = Some(thread::spawn(move || reader_inner.read(stdout)));

        let mut config = opts.config.clone();
        if let Some(root) = &opts.root_dir {
            config.get_or_insert_with(Config::default).root_dir = Some(root.clone());
        }
        let params = InitializeParams {
            protocol_version: PROTOCOL_VERSION.to_string(),
            client_info: Some(Implementation { name: "fsbox-rust".to_string(), version: crate::VERSION.to_string() }),
            config,
            capabilities: Some(ClientCapabilities {
                events: Some(opts.on_event.is_some()),
                change_requests: Some(opts.on_change_request.is_some()),
                result_shape: opts.result_shape.clone(),
            }),
        };
        let mut params = to_value(&params)?;
        if let Some(mut raw) = opts.config_json.clone() {
            if let (Some(root), Some(obj)) = (&opts.root_dir, raw.as_object_mut()) {
                obj.insert("root_dir".to_string(), Value::String(root.clone()));
            }
            params["config"] = raw;
        }
        let started = inner.call(METHOD_INITIALIZE, Some(params), None).and_then(|v| {
            serde_json::from_value::<InitializeResult>(v).map_err(|e| Error::Protocol(format!("decoding the result of initialize: {e}")))
        });
        let session = match started {
            Ok(s) => s,
            Err(e) => {
                inner.close();
                return Err(e);
            }
        };
        if session.schema_hash != SCHEMA_HASH {
            inner.close();
            return Err(Error::SchemaMismatch(format!(
                "{} answers with schema_hash {:?}, but this crate (fsbox {}) was generated from {}; use the fsbox binary of \
                 the same release, or regenerate the crate from the binary with `fsbox gen --lang rust`",
                bin.display(),
                session.schema_hash,
                crate::VERSION,
                SCHEMA_HASH
            )));
        }
        Ok(Client { inner, session: Arc::new(session) })
    }

    /// What the server answered to initialize: the resolved root, cwd, enabled tools, schema
    /// hash and result shape.
    pub fn session(&self) -> &InitializeResult {
        &self.session
    }

    /// Asks the server for the enabled tools.
    pub fn list_tools(&self) -> Result<Vec<ToolDescriptor>, Error> {
        let v = self.inner.call(METHOD_TOOLS_LIST, None, None)?;
        let r: ToolsListResult = serde_json::from_value(v).map_err(|e| Error::Protocol(format!("decoding the result of tools/list: {e}")))?;
        Ok(r.tools)
    }

    /// The server's JSON Schema bundle, as sent.
    pub fn schema(&self) -> Result<Value, Error> {
        self.inner.call(METHOD_SCHEMA, None, None)
    }

    /// Marks the present moment in the session's journal (config.journal) and returns it; its id
    /// is what diff_checkpoint and restore_checkpoint take (docs/protocol.md §10).
    pub fn create_checkpoint(&self, label: &str) -> Result<Checkpoint, Error> {
        self.host_call(METHOD_CHECKPOINT_CREATE, &CheckpointCreateParams { label: Some(label.to_string()) })
    }

    /// The checkpoints the journal keeps, oldest first, and the journal's size and bound.
    pub fn list_checkpoints(&self) -> Result<CheckpointListResult, Error> {
        let v = self.inner.call(METHOD_CHECKPOINT_LIST, None, None)?;
        serde_json::from_value(v).map_err(|e| Error::Protocol(format!("decoding the result of {METHOD_CHECKPOINT_LIST}: {e}")))
    }

    /// A unified diff of everything changed since checkpoint id, bounded like the tools' output.
    pub fn diff_checkpoint(&self, id: &str) -> Result<CheckpointDiffResult, Error> {
        self.host_call(METHOD_CHECKPOINT_DIFF, &CheckpointIDParams { id: id.to_string() })
    }

    /// Puts every path changed since checkpoint id back as it was; a path someone else changed
    /// since fsbox last wrote it is left alone and listed in not_restored, unless force.
    pub fn restore_checkpoint(&self, id: &str, force: bool) -> Result<CheckpointRestoreResult, Error> {
        self.host_call(METHOD_CHECKPOINT_RESTORE, &CheckpointRestoreParams { id: id.to_string(), force: force.then_some(true) })
    }

    /// Sends a host method with typed params and decodes its typed result.
    fn host_call<P: Serialize, R: DeserializeOwned>(&self, method: &str, params: &P) -> Result<R, Error> {
        let v = self.inner.call(method, Some(to_value(params)?), None)?;
        serde_json::from_value(v).map_err(|e| Error::Protocol(format!("decoding the result of {method}: {e}")))
    }

    /// Calls the tool name with args (any JSON value; Null sends no arguments) and returns the
    /// result as sent. It serves tools this crate has no typed method for, in any result shape.
    pub fn call(&self, name: &str, args: Value) -> Result<Value, Error> {
        let mut params = json!({ "name": name });
        if !args.is_null() {
            params["arguments"] = args;
        }
        self.inner.call(METHOD_TOOLS_CALL, Some(params), None)
    }

    /// Calls the tool name and returns the text of its result, the part meant for the model, in
    /// any result shape but "typed" (whose results carry no text: an error).
    pub fn text(&self, name: &str, args: Value) -> Result<String, Error> {
        let r = self.call(name, args)?;
        match r.get("text").and_then(|t| t.as_str()) {
            Some(t) => Ok(t.to_string()),
            None => Err(Error::Protocol(format!("{name}: the result has no text (the session's result shape is {:?})", self.session.result_shape))),
        }
    }

    /// Sends tools/call with typed arguments and decodes the typed result; the methods of
    /// client_gen.rs call it. In the "text" result shape it refuses before sending anything.
    pub(crate) fn call_typed<A: Serialize, R: DeserializeOwned>(&self, name: &str, args: &A) -> Result<R, Error> {
        if self.session.result_shape == "text" {
            return Err(Error::ResultShape(format!(
                "{name}: the session's result shape is \"text\": its results carry only text, so there is nothing to decode; \
                 use Client::text or Client::call, or start without result_shape \"text\""
            )));
        }
        let v = self.call(name, to_value(args)?)?;
        serde_json::from_value(v).map_err(|e| Error::Protocol(format!("decoding the result of {name}: {e}")))
    }

    /// Sends shutdown, closes the server's stdin, waits for it to exit and kills it if it has to.
    /// Pending calls fail with ConnectionLost. Idempotent; returns when the process is gone.
    pub fn close(&self) {
        self.inner.close();
    }
}

fn to_value<T: Serialize>(v: &T) -> Result<Value, Error> {
    serde_json::to_value(v).map_err(|e| Error::Protocol(format!("encoding a message: {e}")))
}

/// Copies the server's stderr to ours, keeping its last bytes for error messages.
fn spawn_stderr_copy(mut stderr: impl Read + Send + 'static, tail: Arc<Mutex<Vec<u8>>>) -> JoinHandle<()> {
    thread::spawn(move || {
        let mut buf = [0u8; 4096];
        loop {
            match stderr.read(&mut buf) {
                Ok(0) | Err(_) => return,
                Ok(n) => {
                    let _ = std::io::stderr().write_all(&buf[..n]);
                    let mut t = tail.lock().unwrap();
                    t.extend_from_slice(&buf[..n]);
                    if t.len() > STDERR_TAIL {
                        let cut = t.len() - STDERR_TAIL;
                        t.drain(..cut);
                    }
                }
            }
        }
    })
}

impl Inner {
    /// Sends a request and waits for its response; timeout None waits as long as it takes.
    fn call(&self, method: &str, params: Option<Value>, timeout: Option<Duration>) -> Result<Value, Error> {
        let (tx, rx) = channel();
        let id = {
            let mut st = self.state.lock().unwrap();
            if let Some(why) = &st.dead {
                return Err(Error::ConnectionLost(why.clone()));
            }
            st.next_id += 1;
            let id = st.next_id;
            st.pending.insert(id, tx);
            id
        };
        let mut msg = json!({ "jsonrpc": "2.0", "id": id, "method": method });
        if let Some(p) = params {
            msg["params"] = p;
        }
        if let Err(e) = self.write(&msg) {
            self.state.lock().unwrap().pending.remove(&id);
            return Err(self.dead_or(e));
        }
        let got = match timeout {
            Some(t) => rx.recv_timeout(t).map_err(|_| ()),
            None => rx.recv().map_err(|_| ()),
        };
        match got {
            Ok(r) => r,
            Err(()) => {
                self.state.lock().unwrap().pending.remove(&id);
                Err(Error::ConnectionLost(self.state.lock().unwrap().dead.clone().unwrap_or_else(|| format!("no answer to {method}"))))
            }
        }
    }

    /// The connection's error if a failed write was due to the server dying, else the write's.
    fn dead_or(&self, e: String) -> Error {
        let deadline = Instant::now() + Duration::from_secs(1);
        while Instant::now() < deadline {
            if let Some(why) = &self.state.lock().unwrap().dead {
                return Error::ConnectionLost(why.clone());
            }
            thread::sleep(Duration::from_millis(10));
        }
        Error::ConnectionLost(format!("writing to the server: {e}"))
    }

    /// Writes one message as one line.
    fn write(&self, msg: &Value) -> Result<(), String> {
        let mut line = serde_json::to_vec(msg).map_err(|e| e.to_string())?;
        line.push(b'\n');
        let mut stdin = self.stdin.lock().unwrap();
        match stdin.as_mut() {
            Some(w) => w.write_all(&line).and_then(|_| w.flush()).map_err(|e| e.to_string()),
            None => Err("the client is closed".to_string()),
        }
    }

    /// Handles the server's messages in wire order until stdout ends, then fails every pending
    /// call at once.
    fn read(self: Arc<Self>, stdout: impl Read) {
        let mut r = BufReader::new(stdout);
        let mut line = Vec::new();
        loop {
            line.clear();
            match r.read_until(b'\n', &mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if !line.iter().all(u8::is_ascii_whitespace) {
                        self.handle(&line);
                    }
                }
            }
        }
        let why = self.exit_reason();
        let pending = {
            let mut st = self.state.lock().unwrap();
            st.dead = Some(why.clone());
            std::mem::take(&mut st.pending)
        };
        for (_, tx) in pending {
            let _ = tx.send(Err(Error::ConnectionLost(why.clone())));
        }
    }

    /// Says how the server went away: closed by us, or its exit status and last stderr lines.
    fn exit_reason(&self) -> String {
        if self.state.lock().unwrap().closing {
            return "the client is closed".to_string();
        }
        let deadline = Instant::now() + Duration::from_secs(1);
        let mut status = "still running, but its stdout closed".to_string();
        while Instant::now() < deadline {
            if let Ok(Some(s)) = self.child.lock().unwrap().try_wait() {
                status = s.to_string();
                break;
            }
            thread::sleep(Duration::from_millis(10));
        }
        // Its last stderr lines are copied by another thread: once the process is gone, wait
        // (within the same second) for that copy to reach the end, so the message has them.
        while Instant::now() < deadline {
            let done = self.stderr_copy.lock().unwrap().as_ref().map_or(true, |h| h.is_finished());
            if done {
                break;
            }
            thread::sleep(Duration::from_millis(5));
        }
        let tail = String::from_utf8_lossy(&self.stderr_tail.lock().unwrap()).trim().to_string();
        if tail.is_empty() {
            format!("fsbox server exited ({status})")
        } else {
            format!("fsbox server exited ({status}); its stderr ended with:\n{tail}")
        }
    }

    /// Dispatches one line: a response, an event notification or a change request.
    fn handle(self: &Arc<Self>, line: &[u8]) {
        let msg: Value = match serde_json::from_slice(line) {
            Ok(v @ Value::Object(_)) => v,
            _ => {
                eprintln!("fsbox: ignoring a line that is not JSON-RPC: {}", String::from_utf8_lossy(&line[..line.len().min(200)]).trim_end());
                return;
            }
        };
        let method = msg.get("method").and_then(|m| m.as_str());
        let id = msg.get("id").filter(|i| !i.is_null());
        match (method, id) {
            (Some(m), None) if m == METHOD_EVENT => {
                if let Some(cb) = &self.on_event {
                    match Event::decode(msg.get("params").cloned().unwrap_or(Value::Null)) {
                        Ok(e) => cb(e),
                        Err(e) => eprintln!("fsbox: ignoring a malformed event: {e}"),
                    }
                }
            }
            (Some(_), Some(_)) => {
                let me = self.clone();
                thread::spawn(move || me.serve(msg));
            }
            (Some(_), None) => {} // a notification this client does not know
            (None, _) => self.resolve(msg),
        }
    }

    /// Delivers a response to the call waiting for it.
    fn resolve(&self, msg: Value) {
        let Some(id) = msg.get("id").and_then(|i| i.as_i64()) else {
            eprintln!("fsbox: ignoring a response with id {}", msg.get("id").unwrap_or(&Value::Null));
            return;
        };
        let Some(tx) = self.state.lock().unwrap().pending.remove(&id) else {
            return;
        };
        let r = match msg.get("error") {
            Some(e) if !e.is_null() => Err(Error::Tool(ServerError::from_wire(e))),
            _ => Ok(msg.get("result").cloned().unwrap_or(Value::Null)),
        };
        let _ = tx.send(r);
    }

    /// Answers a request from the server: change_request goes to on_change_request.
    fn serve(&self, msg: Value) {
        let id = msg.get("id").cloned().unwrap_or(Value::Null);
        let method = msg.get("method").and_then(|m| m.as_str()).unwrap_or("");
        let answer = match (&self.on_change_request, method == METHOD_CHANGE_REQUEST) {
            (Some(cb), true) => match serde_json::from_value::<ChangeRequest>(msg.get("params").cloned().unwrap_or(Value::Null)) {
                Ok(req) => match cb(&req) {
                    ChangeAnswer::Approve => Ok(json!({ "approve": true })),
                    ChangeAnswer::Reject(reason) if reason.is_empty() => Ok(json!({ "approve": false })),
                    ChangeAnswer::Reject(reason) => Ok(json!({ "approve": false, "reason": reason })),
                    // approve false: a server that predates edits refuses the change rather than
                    // applying the model's unedited one.
                    ChangeAnswer::ApproveWith(content) => Ok(json!({ "approve": false, "decision": "edit", "content": content })),
                    ChangeAnswer::EditArguments(args) => Ok(json!({ "approve": false, "decision": "edit", "arguments": args })),
                    ChangeAnswer::Fail(why) => Err(json!({ "code": -32603, "message": format!("change request handler failed: {why}") })),
                },
                Err(e) => Err(json!({ "code": CODE_INVALID_PARAMS, "message": format!("malformed change request: {e}") })),
            },
            _ => Err(json!({ "code": CODE_METHOD_NOT_FOUND, "message": format!("this client does not serve {method}") })),
        };
        let resp = match answer {
            Ok(result) => json!({ "jsonrpc": "2.0", "id": id, "result": result }),
            Err(error) => json!({ "jsonrpc": "2.0", "id": id, "error": error }),
        };
        if let Err(e) = self.write(&resp) {
            eprintln!("fsbox: could not answer {id}: {e}");
        }
    }

    fn close(&self) {
        {
            let mut st = self.state.lock().unwrap();
            if st.closing {
                drop(st);
                self.join_reader();
                return;
            }
            st.closing = true;
        }
        let _ = self.call(METHOD_SHUTDOWN, None, Some(SHUTDOWN_TIMEOUT));
        drop(self.stdin.lock().unwrap().take()); // EOF: the server exits
        let deadline = Instant::now() + EXIT_TIMEOUT;
        loop {
            let mut child = self.child.lock().unwrap();
            match child.try_wait() {
                Ok(Some(_)) | Err(_) => break,
                Ok(None) if Instant::now() >= deadline => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break;
                }
                Ok(None) => {}
            }
            drop(child);
            thread::sleep(Duration::from_millis(10));
        }
        self.join_reader();
        // Calls that raced the close get the closed answer rather than waiting forever.
        let pending = {
            let mut st = self.state.lock().unwrap();
            st.dead.get_or_insert_with(|| "the client is closed".to_string());
            std::mem::take(&mut st.pending)
        };
        for (_, tx) in pending {
            let _ = tx.send(Err(Error::ConnectionLost("the client is closed".to_string())));
        }
    }

    fn join_reader(&self) {
        let handle = self.reader.lock().unwrap().take();
        if let Some(h) = handle {
            if h.thread().id() != thread::current().id() {
                let _ = h.join();
            }
        }
    }
}
