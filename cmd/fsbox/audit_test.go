package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/fsbox/fsbox/schema"
)

// Distinctive strings of the scripted session: none may ever appear in the audit log.
const (
	secretContent = "CONTENT-7d1be0-never-in-the-log"
	secretReason  = "REASON-5c0a44-never-in-the-log"
	secretRoot    = "HOSTROOT-e2a913"
)

// auditClient drives a real fsbox serve: requests by id, the server's change_requests answered
// by answer, and at each reply a snapshot of the audit log as it was when the reply was read.
type auditClient struct {
	t       *testing.T
	cmd     *exec.Cmd
	in      io.WriteCloser
	logPath string
	answer  func(req map[string]any) any

	mu        sync.Mutex
	writeMu   sync.Mutex
	next      int
	waiting   map[int]chan json.RawMessage
	snapshots map[int][]byte // the log's bytes right after the reply of id was read
	done      chan struct{}
	stopOnce  sync.Once
}

// stop ends the session (EOF) and waits for the process to exit.
func (c *auditClient) stop() {
	c.stopOnce.Do(func() {
		c.in.Close()
		<-c.done
		c.cmd.Wait()
	})
}

func startAuditServe(t *testing.T, root, logPath string, answer func(map[string]any) any, args ...string) *auditClient {
	t.Helper()
	cmd := exec.Command(fsboxBin, append([]string{"serve", "--root", root, "--audit", logPath}, args...)...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &auditClient{t: t, cmd: cmd, in: in, logPath: logPath, answer: answer,
		waiting: map[int]chan json.RawMessage{}, snapshots: map[int][]byte{}, done: make(chan struct{})}
	go c.read(out)
	t.Cleanup(func() {
		c.stop()
		if t.Failed() {
			t.Logf("stderr: %s", stderr.String())
		}
	})
	return c
}

func (c *auditClient) send(msg any) {
	b, _ := json.Marshal(msg)
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	c.in.Write(append(b, '\n'))
}

func (c *auditClient) read(out io.Reader) {
	defer close(c.done)
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var m struct {
			ID     *json.RawMessage `json:"id"`
			Method string           `json:"method"`
			Params map[string]any   `json:"params"`
		}
		line := append([]byte(nil), sc.Bytes()...)
		if json.Unmarshal(line, &m) != nil {
			continue
		}
		switch {
		case m.Method == "change_request":
			go c.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": c.answer(m.Params)})
		case m.Method == "" && m.ID != nil:
			// The reply is read: the log must already hold its line. Snapshot it now, before
			// anything else happens.
			snap, _ := os.ReadFile(c.logPath)
			var id int
			json.Unmarshal(*m.ID, &id)
			c.mu.Lock()
			c.snapshots[id] = snap
			ch := c.waiting[id]
			c.mu.Unlock()
			if ch != nil {
				ch <- line
			}
		}
	}
}

// start sends a request and returns the channel its reply arrives on.
func (c *auditClient) start(method string, params any) (int, chan json.RawMessage) {
	c.mu.Lock()
	c.next++
	id := c.next
	ch := make(chan json.RawMessage, 1)
	c.waiting[id] = ch
	c.mu.Unlock()
	c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return id, ch
}

func (c *auditClient) wait(ch chan json.RawMessage) json.RawMessage {
	select {
	case r := <-ch:
		return r
	case <-time.After(20 * time.Second):
		c.t.Fatal("no reply within 20 s")
		return nil
	}
}

func (c *auditClient) call(method string, params any) (int, json.RawMessage) {
	id, ch := c.start(method, params)
	return id, c.wait(ch)
}

func tool(name string, args any) map[string]any {
	return map[string]any{"name": name, "arguments": args}
}

// auditLines decodes the log's lines; each must be one JSON object.
func auditLines(t *testing.T, data []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatalf("audit line is not JSON: %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

// auditSchema compiles the bundle's AuditRecord, closed (additionalProperties false on the record
// and its parts) so that a field the schema does not declare fails too.
func auditSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	var bundle map[string]any
	if err := json.Unmarshal(schema.Bundle, &bundle); err != nil {
		t.Fatal(err)
	}
	defs := bundle["$defs"].(map[string]any)
	for _, name := range []string{"AuditRecord", "AuditChange", "AuditDecision"} {
		d, ok := defs[name].(map[string]any)
		if !ok {
			t.Fatalf("the bundle has no %s", name)
		}
		d["additionalProperties"] = false
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("fsbox.schema.json", bundle); err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("audit.json", map[string]any{"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": "fsbox.schema.json#/$defs/AuditRecord"}); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("audit.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func hash12(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:12]
}

// TestAuditScriptedSession drives a real fsbox serve through a session of reads, writes, edits,
// moves and deletes, change requests approved, refused, edited and failed, invalid calls of every
// sort and concurrent calls, then checks the log:
//
//   - every call has exactly one line, and the lines are numbered 1..N in file order;
//   - each line was in the file when the call's reply was read;
//   - every line validates against the bundle's AuditRecord (closed), its time is RFC 3339 with
//     a fraction;
//   - outcomes, kinds, decisions, who answered, and the hashes before and after are right;
//   - no file content, no client-written text and no host path is in the log.
func TestAuditScriptedSession(t *testing.T) {
	root := filepath.Join(t.TempDir(), secretRoot)
	os.Mkdir(root, 0o755)
	for name, content := range map[string]string{"ok-a.txt": "alpha " + secretContent + "\n", "ok-b.txt": "beta\n"} {
		os.WriteFile(filepath.Join(root, name), []byte(content), 0o644)
	}
	for i := range 16 {
		os.WriteFile(filepath.Join(root, fmt.Sprintf("c%02d.txt", i)), []byte(secretContent), 0o644)
	}
	logPath := filepath.Join(t.TempDir(), "audit.jsonl")
	c := startAuditServe(t, root, logPath, func(req map[string]any) any {
		p, _ := req["path"].(string)
		switch {
		case strings.HasPrefix(p, "no-"):
			return map[string]any{"approve": false, "decision": "reject", "reason": secretReason + " " + root}
		case strings.HasPrefix(p, "ed-"):
			return map[string]any{"approve": true, "decision": "edit", "content": "reviewed " + secretContent}
		case strings.HasPrefix(p, "bad-"):
			return map[string]any{"approve": true, "approve_typo": true}
		}
		return map[string]any{"approve": true}
	}, "--tools", "read_file,write_file,edit_file,create_directory,move_file,delete,list_directory,search_files,file_info")
	if _, r := c.call("initialize", map[string]any{"protocol_version": "1", "capabilities": map[string]any{"change_requests": true, "events": true}}); replyError(r) != nil {
		t.Fatalf("initialize: %s", r)
	}

	type expect struct {
		tool, outcome, kind string
		path                string // a path the line must list
		answer, by          string // the decision, when there is one
		changes             []map[string]string
	}
	var order []int // the ids of the tools/calls, as sent
	want := map[int]expect{}
	run := func(e expect, params any) json.RawMessage {
		id, reply := c.call("tools/call", params)
		order = append(order, id)
		want[id] = e
		return reply
	}

	run(expect{tool: "read_file", outcome: "ok", path: "ok-a.txt"}, tool("read_file", map[string]any{"path": "ok-a.txt"}))
	run(expect{tool: "write_file", outcome: "ok", path: "ok-new.txt", answer: "approved", by: "client",
		changes: []map[string]string{{"op": "write", "path": "ok-new.txt", "before": "<absent>", "after": hash12(secretContent)}}},
		tool("write_file", map[string]any{"path": "ok-new.txt", "content": secretContent}))
	run(expect{tool: "write_file", outcome: "refused", path: "no-x.txt", answer: "refused", by: "client"},
		tool("write_file", map[string]any{"path": "no-x.txt", "content": secretContent}))
	run(expect{tool: "edit_file", outcome: "ok", path: "ok-a.txt", answer: "approved", by: "client",
		changes: []map[string]string{{"op": "write", "path": "ok-a.txt", "before": hash12("alpha " + secretContent + "\n"), "after": hash12("omega " + secretContent + "\n")}}},
		tool("edit_file", map[string]any{"path": "ok-a.txt", "old_text": "alpha", "new_text": "omega"}))
	run(expect{tool: "write_file", outcome: "ok", path: "ed-y.txt", answer: "edited", by: "client",
		changes: []map[string]string{{"op": "write", "path": "ed-y.txt", "before": "<absent>", "after": hash12("reviewed " + secretContent)}}},
		tool("write_file", map[string]any{"path": "ed-y.txt", "content": "model's"}))
	run(expect{tool: "write_file", outcome: "error", kind: "change_request_failed", path: "bad-z.txt", answer: "failed", by: "client"},
		tool("write_file", map[string]any{"path": "bad-z.txt", "content": "x"}))
	run(expect{tool: "create_directory", outcome: "ok", path: "ok-dir", answer: "approved", by: "client",
		changes: []map[string]string{{"op": "create_directory", "path": "ok-dir"}}},
		tool("create_directory", map[string]any{"path": "ok-dir"}))
	run(expect{tool: "move_file", outcome: "ok", path: "ok-dir/moved.txt", answer: "approved", by: "client",
		changes: []map[string]string{{"op": "move", "path": "ok-dir/moved.txt", "source": "ok-new.txt"}}},
		tool("move_file", map[string]any{"source": "ok-new.txt", "destination": "ok-dir/moved.txt"}))
	run(expect{tool: "delete", outcome: "ok", path: "ok-dir/moved.txt", answer: "approved", by: "client",
		changes: []map[string]string{{"op": "delete", "path": "ok-dir/moved.txt"}}},
		tool("delete", map[string]any{"path": "ok-dir/moved.txt"}))
	run(expect{tool: "list_directory", outcome: "ok", path: "."}, tool("list_directory", map[string]any{"path": "."}))
	run(expect{tool: "search_files", outcome: "ok", path: "."}, tool("search_files", map[string]any{"pattern": secretContent}))
	run(expect{tool: "file_info", outcome: "ok", path: "ok-b.txt"}, tool("file_info", map[string]any{"path": "ok-b.txt"}))
	// Invalid calls of every sort.
	run(expect{tool: "read_file", outcome: "error", kind: "invalid_arguments"}, tool("read_file", map[string]any{"pth": "ok-a.txt"}))
	run(expect{tool: "no_such_tool", outcome: "error", kind: "unknown_tool"}, tool("no_such_tool", map[string]any{}))
	run(expect{outcome: "error", kind: "unknown_tool"}, tool(secretContent, map[string]any{}))
	run(expect{outcome: "error", kind: "invalid_arguments"}, map[string]any{"nam": "read_file"})
	run(expect{tool: "read_file", outcome: "error", kind: "outside_root"}, tool("read_file", map[string]any{"path": filepath.Join(filepath.Dir(root), "elsewhere.txt")}))
	run(expect{tool: "read_file", outcome: "error", kind: "not_found", path: "missing.txt"}, tool("read_file", map[string]any{"path": "missing.txt"}))

	// Concurrent calls: all sent before any reply is read.
	type inflight struct {
		id int
		ch chan json.RawMessage
	}
	var batch []inflight
	for i := range 16 {
		p := fmt.Sprintf("c%02d.txt", i)
		id, ch := c.start("tools/call", tool("read_file", map[string]any{"path": p}))
		order = append(order, id)
		want[id] = expect{tool: "read_file", outcome: "ok", path: p}
		batch = append(batch, inflight{id, ch})
	}
	for _, b := range batch {
		c.wait(b.ch)
	}
	// The whole log, once the server is gone: a line written after its reply shows up below as
	// missing from the snapshot taken when the reply was read.
	c.stop()
	data, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{secretContent, secretReason, secretRoot, filepath.Dir(root)} {
		if bytes.Contains(data, []byte(bad)) {
			t.Errorf("the audit log holds %q:\n%s", bad, data)
		}
	}
	lines := auditLines(t, data)
	if len(lines) != len(order) {
		t.Errorf("%d lines for %d calls:\n%s", len(lines), len(order), data)
	}
	sch := auditSchema(t)
	for i, l := range lines {
		if err := sch.Validate(l); err != nil {
			t.Errorf("line %d does not validate against the bundle's AuditRecord: %v", i+1, err)
		}
		if l["seq"] != float64(i+1) {
			t.Errorf("line %d has seq %v", i+1, l["seq"])
		}
		ts, _ := l["time"].(string)
		if tm, err := time.Parse(time.RFC3339Nano, ts); err != nil || !strings.Contains(ts, ".") || tm.Location() != time.UTC {
			t.Errorf("line %d: time %q is not RFC 3339 UTC with a fraction", i+1, ts)
		}
		if l["session"] != float64(1) || l["method"] != "tools/call" {
			t.Errorf("line %d: session %v method %v", i+1, l["session"], l["method"])
		}
	}

	// Every call exactly once: match each call to the one line that fits it, and check that
	// line was in the file when the call's reply was read.
	used := make([]bool, len(lines))
	for _, id := range order {
		e := want[id]
		match := -1
		for i, l := range lines {
			if used[i] || !fits(l, e.tool, e.outcome, e.kind, e.path) {
				continue
			}
			match = i
			break
		}
		if match < 0 {
			t.Errorf("call %d (%+v) has no line", id, e)
			continue
		}
		used[match] = true
		l := lines[match]
		c.mu.Lock()
		snap := c.snapshots[id]
		c.mu.Unlock()
		if !bytes.Contains(snap, fmt.Appendf(nil, `{"seq":%d,`, match+1)) {
			t.Errorf("call %d's reply was read before its line (seq %d) was in the log", id, match+1)
		}
		if e.answer != "" {
			d, _ := l["decision"].(map[string]any)
			if d["answer"] != e.answer || d["by"] != e.by {
				t.Errorf("call %d (%s %s): decision %v, want %s by %s", id, e.tool, e.path, l["decision"], e.answer, e.by)
			}
		} else if l["decision"] != nil {
			t.Errorf("call %d (%s): a decision on a call that changes nothing: %v", id, e.tool, l["decision"])
		}
		if e.changes != nil {
			got, _ := json.Marshal(l["changes"])
			wantJSON, _ := json.Marshal(e.changes)
			if !bytes.Equal(got, wantJSON) {
				t.Errorf("call %d (%s %s): changes %s, want %s", id, e.tool, e.path, got, wantJSON)
			}
		}
	}
}

// replyError returns the error member of a reply, nil for a result.
func replyError(reply json.RawMessage) map[string]any {
	var m struct {
		Error map[string]any `json:"error"`
	}
	json.Unmarshal(reply, &m)
	return m.Error
}

// fits reports whether line l records a call of tool with outcome and kind that reached path.
func fits(l map[string]any, tool, outcome, kind, path string) bool {
	if got, _ := l["tool"].(string); got != tool {
		return false
	}
	if l["outcome"] != outcome {
		return false
	}
	if got, _ := l["error_kind"].(string); got != kind {
		return false
	}
	if path == "" {
		return l["paths"] == nil
	}
	ps, _ := l["paths"].([]any)
	for _, p := range ps {
		if p == path {
			return true
		}
	}
	return false
}

// TestAuditFailsClosed: when the audit log cannot be written (the host's pipe lost its reader),
// the call's result is withheld with audit_failed, and every later call is refused before it
// runs: the write_file after the failure creates nothing.
func TestAuditFailsClosed(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\n"), 0o644)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(fsboxBin, "serve", "--root", root, "--audit-fd", "3")
	cmd.ExtraFiles = []*os.File{w}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	defer cmd.Wait()
	defer in.Close()
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	ask := func(line string) json.RawMessage {
		t.Helper()
		io.WriteString(in, line+"\n")
		if !sc.Scan() {
			t.Fatalf("no reply; stderr: %s", stderr.String())
		}
		return append(json.RawMessage(nil), sc.Bytes()...)
	}
	ask(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocol_version":"1"}}`)
	if e := replyError(ask(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"}}}`)); e != nil {
		t.Fatalf("with the log readable: %v", e)
	}
	line, _ := bufio.NewReader(r).ReadString('\n')
	if !strings.Contains(line, `"tool":"read_file"`) {
		t.Fatalf("the log's first line: %q", line)
	}
	r.Close() // the host's log collector is gone
	e := replyError(ask(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"}}}`))
	if d, _ := e["data"].(map[string]any); d["kind"] != "audit_failed" {
		t.Fatalf("a call whose line could not be written answered %v, want audit_failed", e)
	}
	e = replyError(ask(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"b.txt","content":"x"}}}`))
	if d, _ := e["data"].(map[string]any); d["kind"] != "audit_failed" {
		t.Fatalf("a call after the log failed answered %v, want audit_failed", e)
	}
	if _, err := os.Stat(filepath.Join(root, "b.txt")); err == nil {
		t.Fatal("a write ran unaudited after the log failed")
	}
	e = replyError(ask(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"nam":"read_file"}}`))
	if d, _ := e["data"].(map[string]any); d["kind"] != "audit_failed" {
		t.Fatalf("a refused envelope after the log failed answered %v, want audit_failed", e)
	}
	in.Close()
	cmd.Wait()
	if !strings.Contains(stderr.String(), "audit log") {
		t.Errorf("the host was not told on stderr: %q", stderr.String())
	}
}

// TestAuditRotatesBySize: with --audit-max-bytes the log rotates to FILE.1 … FILE.Keep, under the
// kernel's confinement where there is one (the rotation needs its own Landlock rule); no file
// passes the bound, every line validates, and the sequence runs on across the files.
func TestAuditRotatesBySize(t *testing.T) {
	root := tree(t, map[string]string{"a.txt": "a\n"})
	logPath := filepath.Join(t.TempDir(), "audit.jsonl")
	const maxBytes = 1500
	c := startAuditServe(t, root, logPath, nil, "--audit-max-bytes", fmt.Sprint(maxBytes), "--audit-keep", "2", "--sandbox", "auto")
	c.call("initialize", map[string]any{"protocol_version": "1"})
	const calls = 60
	for i := range calls {
		_, reply := c.call("tools/call", tool("read_file", map[string]any{"path": "a.txt"}))
		if e := replyError(reply); e != nil {
			t.Fatalf("call %d: %v", i, e)
		}
	}
	c.stop()
	sch := auditSchema(t)
	var seqs []float64
	for _, name := range []string{logPath + ".2", logPath + ".1", logPath} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(name), err)
		}
		if len(data) > maxBytes {
			t.Errorf("%s has %d bytes, more than %d", filepath.Base(name), len(data), maxBytes)
		}
		for _, l := range auditLines(t, data) {
			if err := sch.Validate(l); err != nil {
				t.Errorf("%s: %v", filepath.Base(name), err)
			}
			seqs = append(seqs, l["seq"].(float64))
		}
	}
	if _, err := os.Stat(logPath + ".3"); err == nil {
		t.Error("more than --audit-keep rotated files")
	}
	if seqs[len(seqs)-1] != calls || seqs[0] == 1 {
		t.Errorf("sequence %v: want the newest %d ending at %d, the oldest dropped", seqs, len(seqs), calls)
	}
	for i := 1; i < len(seqs); i++ {
		if seqs[i] != seqs[i-1]+1 {
			t.Fatalf("the sequence breaks across rotated files: %v", seqs)
		}
	}
}

// TestAuditLogOutsideEveryRoot: a log inside the root, inside a mount, or inside the root a
// client names in initialize is refused; the model could read or alter it there.
func TestAuditLogOutsideEveryRoot(t *testing.T) {
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, "sub"), 0o755)
	if r := fsbox(t, "", "serve", "--root", root, "--audit", filepath.Join(root, "sub", "audit.log")); r.code != 2 || !strings.Contains(r.stderr, "audit log lies inside") {
		t.Errorf("log inside --root: exit %d, stderr %q", r.code, r.stderr)
	}
	if _, err := os.Lstat(filepath.Join(root, "sub", "audit.log")); !os.IsNotExist(err) {
		t.Errorf("the refused log was created inside the root: %v", err)
	}
	mountDir := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "cfg.json")
	os.WriteFile(cfg, []byte(`{"root_dir":`+jsonString(root)+`,"mounts":[{"path":"m","dir":`+jsonString(mountDir)+`,"read_only":true}]}`), 0o644)
	if r := fsbox(t, "", "serve", "--config", cfg, "--audit", filepath.Join(mountDir, "audit.log")); r.code != 2 || !strings.Contains(r.stderr, "audit log lies inside") {
		t.Errorf("log inside a read-only mount: exit %d, stderr %q", r.code, r.stderr)
	}
	// No host root: the client names one, around the log; initialize is refused.
	logDir := t.TempDir()
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocol_version":"1","config":{"root_dir":` + jsonString(filepath.Dir(logDir)) + `}}}` + "\n"
	r := fsbox(t, in, "serve", "--audit", filepath.Join(logDir, "audit.log"))
	if !strings.Contains(r.stdout, `"kind":"invalid_arguments"`) || !strings.Contains(r.stdout, "audit log") {
		t.Errorf("a client root around the log: %s", r.stdout)
	}
	// A rotating log may create and remove files beneath its directory: that directory must not
	// hold a root, whether the host or the client names it.
	parent := t.TempDir()
	ws := filepath.Join(parent, "ws")
	os.Mkdir(ws, 0o755)
	if r := fsbox(t, "", "serve", "--root", ws, "--audit", filepath.Join(parent, "audit.log"), "--audit-max-bytes", "4096"); r.code != 2 || !strings.Contains(r.stderr, "directory of its own") {
		t.Errorf("a rotating log above --root: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := fsbox(t, "", "serve", "--root", ws, "--audit", filepath.Join(parent, "audit.log")); r.code != 0 {
		t.Errorf("a log that does not rotate beside --root: exit %d, stderr %q", r.code, r.stderr)
	}
	in = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocol_version":"1","config":{"root_dir":` + jsonString(ws) + `}}}` + "\n"
	r = fsbox(t, in, "serve", "--audit", filepath.Join(parent, "audit2.log"), "--audit-max-bytes", "4096")
	if !strings.Contains(r.stdout, `"kind":"invalid_arguments"`) || !strings.Contains(r.stdout, "directory of its own") {
		t.Errorf("a client root beneath a rotating log's directory: %s", r.stdout)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestAuditFlagMisuse: flags that cannot work together are usage errors before anything runs.
func TestAuditFlagMisuse(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"--audit", filepath.Join(dir, "a.log"), "--audit-fd", "3"},
		{"--audit-fd", "1"},
		{"--audit-fd", "5", "--audit-max-bytes", "100"},
		{"--audit", filepath.Join(dir, "a.log"), "--audit-max-bytes", "100", "--audit-keep", "0"},
		{"--audit-sync"},
	} {
		if r := fsbox(t, "", append([]string{"serve"}, args...)...); r.code != 2 {
			t.Errorf("serve %v: exit %d, stderr %q; want a usage error", args, r.code, r.stderr)
		}
	}
	link := filepath.Join(dir, "link.log")
	os.Symlink(filepath.Join(dir, "target"), link)
	if r := fsbox(t, "", "serve", "--audit", link); r.code == 0 || !strings.Contains(r.stderr, "symbolic link") {
		t.Errorf("--audit naming a symlink: exit %d, stderr %q", r.code, r.stderr)
	}
	if _, err := os.Lstat(filepath.Join(dir, "target")); err == nil {
		t.Error("the symlink's target was created")
	}
}

// TestAuditMCP: fsbox mcp --audit records every tools/call, those the MCP SDK refuses before a
// handler runs (an unknown tool) included, each before its reply; the lines validate.
func TestAuditMCP(t *testing.T) {
	root := tree(t, map[string]string{"a.txt": secretContent})
	logPath := filepath.Join(t.TempDir(), "audit.jsonl")
	p := startLineProc(t, "mcp", "--audit", logPath, root)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	p.next()
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	calls := []struct{ params, tool, outcome, kind string }{
		{`{"name":"read_file","arguments":{"path":"a.txt"}}`, "read_file", "ok", ""},
		{`{"name":"read_file","arguments":{"pth":"a.txt"}}`, "read_file", "error", "invalid_arguments"},
		{`{"name":"no_such_tool","arguments":{}}`, "no_such_tool", "error", "unknown_tool"},
		{`{"name":"write_file","arguments":{"path":"b.txt","content":"x"}}`, "write_file", "ok", ""},
	}
	sch := auditSchema(t)
	for i, c := range calls {
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, i+2, c.params))
		p.next()
		data, _ := os.ReadFile(logPath)
		lines := auditLines(t, data)
		if len(lines) != i+1 {
			t.Fatalf("after reply %d the log has %d lines:\n%s", i+1, len(lines), data)
		}
		l := lines[i]
		if err := sch.Validate(l); err != nil {
			t.Errorf("line %d: %v", i+1, err)
		}
		if got, _ := l["error_kind"].(string); l["tool"] != c.tool || l["outcome"] != c.outcome || got != c.kind {
			t.Errorf("line %d: %v; want tool %s outcome %s kind %q", i+1, l, c.tool, c.outcome, c.kind)
		}
	}
	if data, _ := os.ReadFile(logPath); bytes.Contains(data, []byte(secretContent)) || bytes.Contains(data, []byte(root)) {
		t.Errorf("the log holds file contents or the root's host path:\n%s", data)
	}
}

// TestAuditMCPCompat: a compatibility tool that refuses its arguments before calling the engine
// still gets its line, under its own name.
func TestAuditMCPCompat(t *testing.T) {
	root := tree(t, map[string]string{"a.txt": "a\n"})
	logPath := filepath.Join(t.TempDir(), "audit.jsonl")
	p := startLineProc(t, "mcp", "--compat", "reference", "--audit", logPath, root)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	p.next()
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"a.txt","head":1,"tail":1}}}`)
	p.next()
	data, _ := os.ReadFile(logPath)
	lines := auditLines(t, data)
	if len(lines) != 1 || lines[0]["tool"] != "read_text_file" || lines[0]["error_kind"] != "invalid_arguments" {
		t.Fatalf("log:\n%s", data)
	}
}
