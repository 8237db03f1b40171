package server

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fsbox/fsbox/schema"
)

// wire is a line-level client of one in-process session: tests write raw lines and read raw
// messages, so they see exactly what a client on stdio would.
type wire struct {
	t    *testing.T
	in   *io.PipeWriter
	out  chan []byte // lines the server wrote, read off the pipe as they come so it never blocks
	done chan error
	// onRequest answers server-to-client requests; nil answers nothing.
	onRequest func(msg map[string]any) any
}

func newWire(t *testing.T, opts Options) *wire {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	w := &wire{t: t, in: inW, out: make(chan []byte, 1024), done: make(chan error, 1)}
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			w.out <- append([]byte(nil), sc.Bytes()...)
		}
		close(w.out)
	}()
	go func() {
		err := New(opts).Serve(context.Background(), inR, outW)
		outW.Close()
		w.done <- err
	}()
	t.Cleanup(func() { inW.Close() })
	return w
}

func (w *wire) send(line string) {
	w.t.Helper()
	if _, err := io.WriteString(w.in, line+"\n"); err != nil {
		w.t.Fatalf("writing %s: %v", line, err)
	}
}

// next returns the next message the server wrote.
func (w *wire) next() map[string]any {
	w.t.Helper()
	var line []byte
	select {
	case l, ok := <-w.out:
		if !ok {
			w.t.Fatal("server closed its output")
		}
		line = l
	case <-time.After(30 * time.Second):
		w.t.Fatal("no message from the server in 30s")
	}
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		w.t.Fatalf("server wrote a line that is not JSON: %q", line)
	}
	return m
}

// request sends a request and returns every message up to and including its response; it
// answers server-to-client requests on the way with onRequest.
func (w *wire) request(id int, method string, params any) (before []map[string]any, resp map[string]any) {
	w.t.Helper()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	w.send(string(b))
	for {
		m := w.next()
		if _, isReq := m["method"]; isReq {
			before = append(before, m)
			if _, hasID := m["id"]; hasID && w.onRequest != nil {
				ans, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m["id"], "result": w.onRequest(m)})
				w.send(string(ans))
			}
			continue
		}
		if m["id"] == float64(id) {
			return before, m
		}
		w.t.Fatalf("unexpected message while waiting for %d: %v", id, m)
	}
}

func errorCode(t *testing.T, resp map[string]any) (float64, map[string]any) {
	t.Helper()
	e, ok := resp["error"].(map[string]any)
	if !ok {
		t.Fatalf("response %v has no error", resp)
	}
	data, _ := e["data"].(map[string]any)
	return e["code"].(float64), data
}

func initParams(root string, extra map[string]any) map[string]any {
	cfg := map[string]any{"root_dir": root}
	for k, v := range extra {
		cfg[k] = v
	}
	return map[string]any{"protocol_version": "1", "config": cfg, "capabilities": map[string]any{"events": true, "change_requests": true}}
}

// Rule 1: a request pipelined before initialize is refused even though initialize, right
// behind it, completes first.
func TestRequestBeforeInitializeIsRefused(t *testing.T) {
	w := newWire(t, Options{})
	w.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": initParams(t.TempDir(), nil)})
	w.send(string(b))
	first := w.next()
	if first["id"] != float64(1) {
		t.Fatalf("first reply = %v; want the refusal of id 1", first)
	}
	code, data := errorCode(t, first)
	if code != schema.CodeFatal || data["kind"] != "not_initialized" || data["retry"] != false {
		t.Fatalf("refusal = %v; want -32002 not_initialized", first)
	}
	if second := w.next(); second["result"] == nil {
		t.Fatalf("initialize = %v; want a result", second)
	}
}

// Rules 2 and 3.
func TestInitializeVersionAndRepeat(t *testing.T) {
	w := newWire(t, Options{})
	_, resp := w.request(1, "initialize", map[string]any{"protocol_version": "2"})
	code, data := errorCode(t, resp)
	if code != schema.CodeInvalidParams || len(data["supported"].([]any)) != 1 || data["supported"].([]any)[0] != "1" {
		t.Fatalf("unknown major = %v; want -32602 with data.supported [1]", resp)
	}
	if _, resp := w.request(2, "initialize", initParams(t.TempDir(), nil)); resp["result"] == nil {
		t.Fatalf("initialize after a refused one = %v; want a result", resp)
	}
	_, resp = w.request(3, "initialize", initParams(t.TempDir(), nil))
	if code, _ := errorCode(t, resp); code != schema.CodeInvalidRequest {
		t.Fatalf("second initialize = %v; want -32600", resp)
	}
}

// Rule 4: a bad config is refused at initialize and leaves the session open for a good one.
func TestBadConfigIsRefusedAtInitialize(t *testing.T) {
	w := newWire(t, Options{})
	for i, bad := range []map[string]any{
		{"max_read_lines": 0}, {"max_search_results": -3}, {"tools": []string{"bogus"}},
		{"permissions": []map[string]any{{"operations": []string{"read"}, "paths": []string{"/**"}, "mode": "Deny"}}},
	} {
		_, resp := w.request(i+1, "initialize", initParams(t.TempDir(), bad))
		if code, data := errorCode(t, resp); code != schema.CodeInvalidParams || data["kind"] != "invalid_arguments" {
			t.Errorf("config %v = %v; want -32602 invalid_arguments", bad, resp)
		}
	}
	if _, resp := w.request(9, "initialize", initParams(t.TempDir(), nil)); resp["result"] == nil {
		t.Fatalf("good initialize after bad ones = %v", resp)
	}
}

func TestInitializeResult(t *testing.T) {
	root := t.TempDir()
	real, _ := filepath.EvalSymlinks(root)
	w := newWire(t, Options{})
	_, resp := w.request(1, "initialize", initParams(root, map[string]any{"content_hashes": false, "tools": []string{"write_file", "read_file"}}))
	res := resp["result"].(map[string]any)
	if res["root_dir"] != real || res["cwd"] != "." || res["schema_hash"] != schema.Hash() {
		t.Errorf("result = root %v cwd %v hash %v", res["root_dir"], res["cwd"], res["schema_hash"])
	}
	tools := res["tools"].([]any)
	var names []string
	for _, tl := range tools {
		names = append(names, tl.(map[string]any)["name"].(string))
	}
	if strings.Join(names, ",") != "read_file,write_file" {
		t.Errorf("tools = %v; want registration order read_file,write_file", names)
	}
	b, _ := json.Marshal(tools)
	if strings.Contains(string(b), "expected_hash") {
		t.Error("content_hashes false must remove expected_hash from the tool schemas")
	}
	_, list := w.request(2, "tools/list", nil)
	b2, _ := json.Marshal(list["result"].(map[string]any)["tools"])
	if string(b) != string(b2) {
		t.Error("tools/list and initialize disagree")
	}
}

func TestSchemaMethodServesTheBundle(t *testing.T) {
	w := newWire(t, Options{})
	w.request(1, "initialize", initParams(t.TempDir(), nil))
	_, resp := w.request(2, "schema", nil)
	b, _ := json.Marshal(resp["result"])
	var want any
	json.Unmarshal(schema.Bundle, &want)
	wb, _ := json.Marshal(want)
	if string(b) != string(wb) {
		t.Fatal("schema result differs from the committed bundle")
	}
}

func TestUnknownMethodAndUnknownTool(t *testing.T) {
	w := newWire(t, Options{})
	w.request(1, "initialize", initParams(t.TempDir(), nil))
	_, resp := w.request(2, "files/frobnicate", nil)
	if code, _ := errorCode(t, resp); code != schema.CodeMethodNotFound {
		t.Errorf("unknown method = %v; want -32601", resp)
	}
	_, resp = w.request(3, "tools/call", map[string]any{"name": "rm_rf", "arguments": map[string]any{}})
	if code, data := errorCode(t, resp); code != schema.CodeInvalidParams || data["kind"] != "unknown_tool" || data["retry"] != true {
		t.Errorf("unknown tool = %v; want -32602 unknown_tool retry", resp)
	}
}

// Rule 5: shutdown is answered, then Serve returns.
func TestShutdownEndsTheSession(t *testing.T) {
	w := newWire(t, Options{})
	w.request(1, "initialize", initParams(t.TempDir(), nil))
	if _, resp := w.request(2, "shutdown", nil); resp["error"] != nil {
		t.Fatalf("shutdown = %v", resp)
	}
	select {
	case err := <-w.done:
		if err != nil {
			t.Fatalf("Serve after shutdown = %v; want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after shutdown")
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
