//! The crate against the real fsbox binary ($FSBOX_BIN, as scripts/test-rust.sh sets it): typed
//! calls, typed errors with kind and retry, events, change requests, the result shape guard and
//! the failures named like the other SDKs'. Every guarantee the conformance suite grades through
//! the adapter is also graded there; these pin the crate's own API.

use std::sync::{Arc, Mutex};

use fsbox::*;

fn root() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("fsbox-rs-test-{}-{:?}", std::process::id(), std::thread::current().id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn start(opts: Options) -> Client {
    assert!(std::env::var_os("FSBOX_BIN").is_some(), "set FSBOX_BIN to the fsbox binary (scripts/test-rust.sh does)");
    Client::start(opts).expect("start")
}

#[test]
fn typed_calls_and_typed_errors() {
    let dir = root();
    let c = start(Options { root_dir: Some(dir.to_string_lossy().into()), ..Default::default() });
    let w = c.write_file(&WriteFileArgs { path: "a.txt".into(), content: "one\ntwo\n".into(), ..Default::default() }).unwrap();
    assert!(w.created);
    let r = c.read_file(&ReadFileArgs { path: "a.txt".into(), offset: Some(1), ..Default::default() }).unwrap();
    assert_eq!((r.total_lines, r.lines_shown), (2, 1));
    assert!(r.text.contains("two") && !r.text.contains("one"), "{}", r.text);

    match c.read_file(&ReadFileArgs { path: "missing.txt".into(), ..Default::default() }) {
        Err(Error::Tool(e)) => {
            assert_eq!(e.kind, Some(ErrorKind::NotFound));
            assert!(e.retry && !e.counts_as_retry, "{e:?}");
            assert_eq!(e.code, CODE_RETRY);
        }
        other => panic!("read of a missing file: {other:?}"),
    }
    match c.read_file(&ReadFileArgs { path: "../outside".into(), ..Default::default() }) {
        Err(e) => assert_eq!(e.kind(), Some(&ErrorKind::OutsideRoot), "{e}"),
        Ok(r) => panic!("read outside the root answered {r:?}"),
    }
    c.close();
    match c.list_tools() {
        Err(Error::ConnectionLost(_)) => {}
        other => panic!("call after close: {other:?}"),
    }
}

#[test]
fn events_and_change_requests() {
    let dir = root();
    let events = Arc::new(Mutex::new(Vec::new()));
    let seen = events.clone();
    let c = start(Options {
        root_dir: Some(dir.to_string_lossy().into()),
        on_event: Some(Arc::new(move |e| seen.lock().unwrap().push(e))),
        on_change_request: Some(Arc::new(|req: &ChangeRequest| match req.path.as_str() {
            "refused.txt" => ChangeAnswer::Reject("not this one".into()),
            "edited.txt" => ChangeAnswer::ApproveWith("reviewer\n".into()),
            "failed.txt" => ChangeAnswer::Fail("handler broke".into()),
            _ => ChangeAnswer::Approve,
        })),
        ..Default::default()
    });
    c.write_file(&WriteFileArgs { path: "ok.txt".into(), content: "x\n".into(), ..Default::default() }).unwrap();
    assert!(events.lock().unwrap().iter().any(|e| matches!(e, Event::FileWritten(w) if w.path == "ok.txt")), "{:?}", events.lock().unwrap());

    let refused = c.write_file(&WriteFileArgs { path: "refused.txt".into(), content: "x\n".into(), ..Default::default() }).unwrap();
    assert!(refused.text.contains("not this one"), "{}", refused.text);
    assert!(!dir.join("refused.txt").exists());

    c.write_file(&WriteFileArgs { path: "edited.txt".into(), content: "model\n".into(), ..Default::default() }).unwrap();
    assert_eq!(std::fs::read_to_string(dir.join("edited.txt")).unwrap(), "reviewer\n");

    match c.write_file(&WriteFileArgs { path: "failed.txt".into(), content: "x\n".into(), ..Default::default() }) {
        Err(e) => assert_eq!(e.kind(), Some(&ErrorKind::ChangeRequestFailed), "{e}"),
        Ok(r) => panic!("a failed handler let the write through: {r:?}"),
    }
    assert!(!dir.join("failed.txt").exists());
    c.close();
}

#[test]
fn text_shape_refuses_typed_methods() {
    let dir = root();
    std::fs::write(dir.join("a.txt"), "hello\n").unwrap();
    let c = start(Options { root_dir: Some(dir.to_string_lossy().into()), result_shape: Some("text".into()), ..Default::default() });
    match c.read_file(&ReadFileArgs { path: "a.txt".into(), ..Default::default() }) {
        Err(Error::ResultShape(m)) => assert!(m.contains("Client::text"), "{m}"),
        other => panic!("typed call in the text shape: {other:?}"),
    }
    let text = c.text("read_file", serde_json::json!({ "path": "a.txt" })).unwrap();
    assert!(text.contains("hello"), "{text}");
    c.close();
}

#[test]
fn binary_not_found_and_server_gone() {
    match Client::start(Options { binary: Some("/nonexistent/fsbox".into()), ..Default::default() }) {
        Err(Error::ConnectionLost(m)) => assert!(m.contains("/nonexistent/fsbox"), "{m}"),
        other => panic!("start with a missing binary: {:?}", other.map(|_| ())),
    }
    // A "server" that exits at once: start fails with ConnectionLost naming the exit status.
    let dir = root();
    let script = dir.join("dies");
    std::fs::write(&script, "#!/bin/sh\necho dying >&2\nexit 3\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        match Client::start(Options { binary: Some(script), ..Default::default() }) {
            Err(Error::ConnectionLost(m)) => assert!(m.contains("3") && m.contains("dying"), "{m}"),
            other => panic!("start against a dying server: {:?}", other.map(|_| ())),
        }
    }
}

#[test]
fn raw_config_is_decoded_strictly_by_the_server() {
    let dir = root();
    let opts = Options { root_dir: Some(dir.to_string_lossy().into()), config_json: Some(serde_json::json!({ "denid": ["x"] })), ..Default::default() };
    match Client::start(opts) {
        Err(Error::Tool(e)) => assert!(e.message.contains("denid"), "{e:?}"),
        other => panic!("a config with a typo started: {:?}", other.map(|_| ())),
    }
    let opts = Options { root_dir: Some(dir.to_string_lossy().into()), config_json: Some(serde_json::json!({ "denied_patterns": ["x.txt"] })), ..Default::default() };
    let c = Client::start(opts).expect("start with raw config");
    assert_eq!(c.session().root_dir, std::fs::canonicalize(&dir).unwrap().to_string_lossy());
    c.close();
}

#[test]
fn checkpoints_restore_what_a_run_changed() {
    let dir = root();
    std::fs::write(dir.join("a.txt"), "before\n").unwrap();
    let config = Config { journal: Some(JournalConfig::default()), ..Default::default() };
    let c = start(Options { root_dir: Some(dir.to_string_lossy().into()), config: Some(config), ..Default::default() });
    let cp = c.create_checkpoint("start").unwrap();
    c.write_file(&WriteFileArgs { path: "a.txt".into(), content: "after\n".into(), ..Default::default() }).unwrap();
    c.write_file(&WriteFileArgs { path: "new.txt".into(), content: "x\n".into(), ..Default::default() }).unwrap();
    let d = c.diff_checkpoint(&cp.id).unwrap();
    assert!(d.diff.contains("+after"), "{}", d.diff);
    assert_eq!(c.list_checkpoints().unwrap().checkpoints.len(), 1);
    let r = c.restore_checkpoint(&cp.id, false).unwrap();
    assert!(r.complete && r.not_restored.is_empty(), "{r:?}");
    assert_eq!(std::fs::read_to_string(dir.join("a.txt")).unwrap(), "before\n");
    assert!(!dir.join("new.txt").exists());
    match c.restore_checkpoint("cp-99", false) {
        Err(e) => assert_eq!(e.kind(), Some(&ErrorKind::InvalidArguments), "{e}"),
        Ok(r) => panic!("restore of an unknown checkpoint answered {r:?}"),
    }
    c.close();
}
