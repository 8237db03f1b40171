//! The Rust binding's conformance adapter: `fsbox conformance run --target binding:rust` builds it
//! with cargo and sends it one NDJSON op per line on stdin (start, call, tools, schema, stop); it
//! answers each with one line on stdout after executing it through the fsbox crate. While a call
//! runs, each change request the client's on_change_request receives is written out as
//! {"change_request": …} and answered by the runner's next line, {"op":"answer",…}. Tool calls go
//! through the typed methods (the table in dispatch_gen.rs is generated from the schema); a tool
//! without one, or arguments its typed parameters cannot represent exactly (an unknown field, a
//! wrong type, a missing required field), go through Client::call, so the server's own verdict
//! comes back. The protocol is described in docs/conformance-vectors.md and docs/sdk-authors.md.

mod dispatch_gen;

use std::io::{BufRead, BufReader, Stdin, Write};
use std::sync::{Arc, Mutex};

use fsbox::{ChangeAnswer, Client, Config, Error, Options};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Map, Value};

/// What a typed dispatch gives: the call's outcome, or None when the typed arguments cannot carry
/// the ones sent.
pub type Handled = Option<Result<Value, Error>>;

/// Calls method with args decoded into its typed arguments, if they round-trip exactly.
pub fn typed<A, R>(c: &Client, args: &Value, method: fn(&Client, &A) -> Result<R, Error>) -> Handled
where
    A: DeserializeOwned + Serialize,
    R: Serialize,
{
    let a: A = serde_json::from_value(args.clone()).ok()?;
    if serde_json::to_value(&a).ok().as_ref() != Some(args) {
        return None;
    }
    Some(method(c, &a).and_then(|r| serde_json::to_value(r).map_err(|e| Error::Protocol(e.to_string()))))
}

/// The runner's pipes: ops arrive on stdin, answers leave on stdout, one line each. The change
/// request callback uses them too, while the main loop waits for its call.
struct Pipes {
    input: Mutex<BufReader<Stdin>>,
    output: Mutex<std::io::Stdout>,
}

impl Pipes {
    /// The next op, skipping blank lines; Ok(None) at the end of input, Err for a line that is not
    /// a JSON object.
    fn next(&self) -> Option<Result<Map<String, Value>, ()>> {
        let mut input = self.input.lock().unwrap();
        let mut line = String::new();
        loop {
            line.clear();
            match input.read_line(&mut line) {
                Ok(0) | Err(_) => return None,
                Ok(_) if line.trim().is_empty() => continue,
                Ok(_) => {
                    return Some(match serde_json::from_str::<Value>(&line) {
                        Ok(Value::Object(m)) => Ok(m),
                        _ => Err(()),
                    })
                }
            }
        }
    }

    fn send(&self, v: &Value) {
        let mut out = self.output.lock().unwrap();
        let line = serde_json::to_string(v).expect("a Value encodes");
        if writeln!(out, "{line}").and_then(|_| out.flush()).is_err() {
            eprintln!("adapter: stdout closed");
            std::process::exit(1);
        }
    }
}

fn str_of<'a>(o: &'a Map<String, Value>, k: &str) -> &'a str {
    o.get(k).and_then(|v| v.as_str()).unwrap_or("")
}

fn bool_of(o: &Map<String, Value>, k: &str) -> bool {
    o.get(k).and_then(|v| v.as_bool()).unwrap_or(false)
}

struct Adapter {
    pipes: Arc<Pipes>,
    client: Option<Client>,
    events: Arc<Mutex<Vec<Value>>>,
    exchange: Arc<Mutex<()>>, // one change request at a time on the pipes
}

fn main() {
    let pipes = Arc::new(Pipes { input: Mutex::new(BufReader::new(std::io::stdin())), output: Mutex::new(std::io::stdout()) });
    let mut a = Adapter { pipes: pipes.clone(), client: None, events: Arc::new(Mutex::new(Vec::new())), exchange: Arc::new(Mutex::new(())) };
    loop {
        let Some(next) = pipes.next() else {
            a.stop();
            return;
        };
        let (resp, stop) = match next {
            Ok(o) => (a.op(&o), str_of(&o, "op") == "stop"),
            Err(()) => (json!({ "ok": false, "skipped": "op is not JSON" }), false),
        };
        pipes.send(&resp);
        if stop {
            return;
        }
    }
}

impl Adapter {
    fn op(&mut self, o: &Map<String, Value>) -> Value {
        let name = str_of(o, "op");
        match (name, &self.client) {
            ("start", _) => self.start(o),
            ("stop", _) => {
                self.stop();
                json!({ "ok": true })
            }
            ("call" | "tools" | "schema", None) => json!({ "ok": false, "skipped": format!("{name} before start") }),
            ("call", Some(c)) => self.call(c, o),
            ("tools", Some(c)) => answer(c.list_tools().map(|t| json!({ "tools": t }))),
            ("schema", Some(c)) => answer(c.schema()),
            _ => json!({ "ok": false, "skipped": format!("unknown op {name:?}") }),
        }
    }

    fn start(&mut self, o: &Map<String, Value>) -> Value {
        if self.client.is_some() {
            return json!({ "ok": false, "skipped": "a session is already running" });
        }
        let mut opts = Options::default();
        if !str_of(o, "binary").is_empty() {
            opts.binary = Some(str_of(o, "binary").into());
        }
        if !str_of(o, "root_dir").is_empty() {
            opts.root_dir = Some(str_of(o, "root_dir").to_string());
        }
        // A config the typed Config cannot carry exactly (a typo, a wrong type: vectors send them
        // on purpose) goes as raw JSON, so the server's own verdict comes back.
        if let Some(cfg) = o.get("config").filter(|c| !c.is_null()) {
            let decoded = serde_json::from_value::<Config>(cfg.clone()).ok().filter(|c| serde_json::to_value(c).ok().as_ref() == Some(cfg));
            match decoded {
                Some(c) => opts.config = Some(c),
                None => opts.config_json = Some(cfg.clone()),
            }
        }
        if bool_of(o, "events") {
            let events = self.events.clone();
            opts.on_event = Some(Arc::new(move |e| {
                let v = serde_json::to_value(&e).unwrap_or_else(|err| json!({ "adapter_error": err.to_string() }));
                events.lock().unwrap().push(v);
            }));
        }
        if bool_of(o, "change_requests") {
            let (pipes, exchange) = (self.pipes.clone(), self.exchange.clone());
            opts.on_change_request = Some(Arc::new(move |req| on_change_request(&pipes, &exchange, req)));
        }
        if !str_of(o, "result_shape").is_empty() {
            opts.result_shape = Some(str_of(o, "result_shape").to_string());
        }
        match Client::start(opts) {
            Ok(c) => {
                let session = serde_json::to_value(c.session()).unwrap_or(Value::Null);
                self.client = Some(c);
                json!({ "ok": true, "initialize": session })
            }
            Err(e) => json!({ "ok": false, "error": error_json(&e) }),
        }
    }

    fn call(&self, c: &Client, o: &Map<String, Value>) -> Value {
        self.events.lock().unwrap().clear();
        let tool = str_of(o, "tool");
        let args = o.get("arguments").filter(|a| !a.is_null()).cloned().unwrap_or_else(|| json!({}));
        // In the text and typed shapes a typed result cannot report what was sent, so the call
        // goes through Client::call and the runner sees the wire result, as in the Go adapter.
        let shape = c.session().result_shape.as_str();
        let typed = if shape == "both" || shape.is_empty() { dispatch_gen::dispatch(c, tool, &args).flatten() } else { None };
        let outcome = typed.unwrap_or_else(|| c.call(tool, args));
        let mut resp = answer(outcome);
        resp["events"] = Value::Array(std::mem::take(&mut *self.events.lock().unwrap()));
        resp
    }

    fn stop(&mut self) {
        if let Some(c) = self.client.take() {
            c.close();
        }
    }
}

fn answer(r: Result<Value, Error>) -> Value {
    match r {
        Ok(v) => json!({ "ok": true, "result": v }),
        Err(e) => json!({ "ok": false, "error": error_json(&e) }),
    }
}

/// Hands a change request to the runner and returns what it answers.
fn on_change_request(pipes: &Pipes, exchange: &Mutex<()>, req: &fsbox::ChangeRequest) -> ChangeAnswer {
    let _one = exchange.lock().unwrap();
    pipes.send(&json!({ "change_request": req }));
    let ans = match pipes.next() {
        Some(Ok(a)) if str_of(&a, "op") == "answer" => a,
        Some(_) => return ChangeAnswer::Fail("the runner did not answer the change request".into()),
        None => return ChangeAnswer::Fail("no answer from the runner".into()),
    };
    if !str_of(&ans, "error").is_empty() {
        return ChangeAnswer::Fail(str_of(&ans, "error").to_string());
    }
    let content = ans.get("content").and_then(|c| c.as_str());
    let arguments = ans.get("arguments").filter(|a| !a.is_null());
    let decision = str_of(&ans, "decision");
    let approve = bool_of(&ans, "approve");
    if decision == "edit" || (decision.is_empty() && approve && (content.is_some() || arguments.is_some())) {
        return match (content, arguments) {
            (Some(c), None) => ChangeAnswer::ApproveWith(c.to_string()),
            (None, Some(a)) => ChangeAnswer::EditArguments(a.clone()),
            _ => ChangeAnswer::Fail("the SDK sends an edit with content or with arguments, not both or neither".into()),
        };
    }
    match decision {
        "approve" => ChangeAnswer::Approve,
        "reject" => ChangeAnswer::Reject(str_of(&ans, "reason").to_string()),
        _ if !approve => ChangeAnswer::Reject(str_of(&ans, "reason").to_string()),
        _ => ChangeAnswer::Approve,
    }
}

/// Flattens an error for the runner: a server error field by field, anything else as a message.
fn error_json(e: &Error) -> Value {
    let Error::Tool(se) = e else {
        return json!({ "message": e.to_string() });
    };
    let mut m = json!({ "code": se.code, "message": se.message, "retry": se.retry, "counts_as_retry": se.counts_as_retry });
    if let Some(k) = &se.kind {
        m["kind"] = json!(k.as_str());
    }
    if let Some(p) = se.path.as_ref().filter(|p| !p.is_empty()) {
        m["path"] = json!(p);
    }
    if let Some(d) = &se.data {
        m["data"] = d.clone();
    }
    m
}
