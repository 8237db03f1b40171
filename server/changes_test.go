package server

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

func toolCall(name string, args map[string]any) map[string]any {
	return map[string]any{"name": name, "arguments": args}
}

// Every event a call causes is on the wire before the call's response.
func TestEventsPrecedeTheResponse(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "a.txt"), "hello\n")
	w := newWire(t, Options{})
	w.request(1, "initialize", map[string]any{"protocol_version": "1", "config": map[string]any{"root_dir": root}, "capabilities": map[string]any{"events": true}})
	before, resp := w.request(2, "tools/call", toolCall("read_file", map[string]any{"path": "a.txt"}))
	if resp["result"] == nil || len(before) != 1 {
		t.Fatalf("messages before the response = %v, response %v; want one event", before, resp)
	}
	ev := before[0]["params"].(map[string]any)
	if before[0]["method"] != "event" || ev["kind"] != schema.KindFileRead || ev["path"] != "a.txt" || ev["tool"] != "read_file" {
		t.Fatalf("event = %v", before[0])
	}
	// A failed call sends nothing.
	before, resp = w.request(3, "tools/call", toolCall("read_file", map[string]any{"path": "missing.txt"}))
	if resp["error"] == nil || len(before) != 0 {
		t.Fatalf("failed call sent %v and %v; want only an error", before, resp)
	}
}

// Without capabilities.events the server sends no event at all.
func TestNoEventsWithoutTheCapability(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "a.txt"), "hello\n")
	w := newWire(t, Options{})
	w.request(1, "initialize", map[string]any{"protocol_version": "1", "config": map[string]any{"root_dir": root}})
	if before, _ := w.request(2, "tools/call", toolCall("read_file", map[string]any{"path": "a.txt"})); len(before) != 0 {
		t.Fatalf("events sent without the capability: %v", before)
	}
}

func TestChangeRequestRefusedLeavesTheDiskAlone(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "a.txt"), "old\n")
	w := newWire(t, Options{})
	w.onRequest = func(m map[string]any) any { return map[string]any{"approve": false, "reason": "not today"} }
	w.request(1, "initialize", initParams(root, nil))
	before, resp := w.request(2, "tools/call", toolCall("write_file", map[string]any{"path": "a.txt", "content": "new\n"}))
	res, _ := resp["result"].(map[string]any)
	if res == nil || res["cancelled"] != true || res["cancel_reason"] != "not today" || res["text"] != "['a.txt' was not written: not today]" {
		t.Fatalf("refused write = %v", resp)
	}
	if len(before) != 1 || before[0]["method"] != "change_request" {
		t.Fatalf("messages before = %v; want exactly the change request (no event for a refused change)", before)
	}
	req := before[0]["params"].(map[string]any)
	if req["kind"] != schema.KindFileChangeRequest || req["operation"] != "write" || req["reason"] != "listener" ||
		!strings.Contains(req["diff"].(string), "-old\n+new") {
		t.Fatalf("change request = %v", req)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(b) != "old\n" {
		t.Fatalf("disk changed to %q", b)
	}
}

func TestChangeRequestApproved(t *testing.T) {
	root := t.TempDir()
	w := newWire(t, Options{})
	w.onRequest = func(m map[string]any) any { return map[string]any{"approve": true} }
	w.request(1, "initialize", initParams(root, nil))
	before, resp := w.request(2, "tools/call", toolCall("write_file", map[string]any{"path": "n.txt", "content": "x\n"}))
	if resp["result"] == nil || len(before) != 2 || before[0]["method"] != "change_request" || before[1]["method"] != "event" {
		t.Fatalf("approved write: before %v resp %v; want change_request then event then result", before, resp)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "n.txt")); string(b) != "x\n" {
		t.Fatalf("file = %q", b)
	}
}

// A client that answers a change request with an error aborts the call with a fatal error, and
// nothing is applied.
func TestChangeRequestErrorIsFatal(t *testing.T) {
	root := t.TempDir()
	w := newWire(t, Options{})
	w.request(1, "initialize", initParams(root, nil))
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": toolCall("write_file", map[string]any{"path": "n.txt", "content": "x"})})
	w.send(string(b))
	req := w.next()
	if req["method"] != "change_request" {
		t.Fatalf("got %v; want a change request", req)
	}
	ans, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req["id"], "error": map[string]any{"code": -32000, "message": "listener crashed"}})
	w.send(string(ans))
	resp := w.next()
	code, data := errorCode(t, resp)
	if code != schema.CodeFatal || data["kind"] != "change_request_failed" || data["retry"] != false {
		t.Fatalf("response = %v; want -32002 change_request_failed", resp)
	}
	if _, err := os.Stat(filepath.Join(root, "n.txt")); !os.IsNotExist(err) {
		t.Fatal("the change was applied")
	}
}

// An interrupt rule is a denial when the client offered no change requests.
func TestInterruptRuleWithoutChangeRequestsDenies(t *testing.T) {
	root := t.TempDir()
	w := newWire(t, Options{})
	w.request(1, "initialize", map[string]any{"protocol_version": "1", "config": map[string]any{"root_dir": root,
		"permissions": []map[string]any{{"operations": []string{"write"}, "paths": []string{"/**"}, "mode": "interrupt"}}}})
	_, resp := w.request(2, "tools/call", toolCall("write_file", map[string]any{"path": "n.txt", "content": "x"}))
	if code, data := errorCode(t, resp); code != schema.CodeRetry || data["kind"] != "permission_denied" {
		t.Fatalf("interrupt without change requests = %v; want -32001 permission_denied", resp)
	}
}

// Retry and fatal kinds map to their codes, with the root-relative path in data.
func TestErrorMapping(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "a.txt"), "x\n")
	w := newWire(t, Options{})
	w.request(1, "initialize", initParams(root, nil))
	for i, c := range []struct {
		args map[string]any
		code float64
		kind string
	}{
		{map[string]any{"path": "../outside.txt"}, schema.CodeRetry, "outside_root"},
		{map[string]any{"path": "a.txt", "bogus": 1}, schema.CodeInvalidParams, "invalid_arguments"},
		{map[string]any{"path": "a.txt", "offset": 5}, schema.CodeRetry, "offset_out_of_range"},
	} {
		_, resp := w.request(10+i, "tools/call", toolCall("read_file", c.args))
		code, data := errorCode(t, resp)
		if code != c.code || data["kind"] != c.kind || data["retry"] != true {
			t.Errorf("read_file %v = %v; want %v %s", c.args, resp, c.code, c.kind)
		}
		if msg := resp["error"].(map[string]any)["message"].(string); strings.Contains(msg, root) {
			t.Errorf("message names the host root: %q", msg)
		}
	}
}

// An edit answer on the wire: the reviewer's arguments are applied and marked; an answer whose
// arguments are not an object is change_request_failed with nothing applied.
func TestChangeRequestAnsweredWithAnEdit(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "a.txt"), "old\n")
	w := newWire(t, Options{})
	w.onRequest = func(m map[string]any) any {
		return map[string]any{"approve": false, "decision": "edit", "arguments": map[string]any{"path": "b.txt", "content": "reviewed\n"}}
	}
	w.request(1, "initialize", initParams(root, nil))
	before, resp := w.request(2, "tools/call", toolCall("write_file", map[string]any{"path": "a.txt", "content": "model\n"}))
	res, _ := resp["result"].(map[string]any)
	if res == nil || res["modified_by_reviewer"] != true || !strings.HasSuffix(res["text"].(string), "\nNote: the reviewer modified this change before it was applied.") {
		t.Fatalf("edited write = %v", resp)
	}
	if len(before) != 2 || before[1]["method"] != "event" || before[1]["params"].(map[string]any)["modified_by_reviewer"] != true {
		t.Fatalf("messages before = %v; want the change request and a marked event", before)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "b.txt")); string(b) != "reviewed\n" {
		t.Fatalf("b.txt = %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(b) != "old\n" {
		t.Fatalf("a.txt = %q", b)
	}

	w.onRequest = func(m map[string]any) any { return map[string]any{"decision": "edit", "arguments": "b.txt"} }
	_, resp = w.request(3, "tools/call", toolCall("write_file", map[string]any{"path": "a.txt", "content": "model\n"}))
	if code, data := errorCode(t, resp); code != schema.CodeFatal || data["kind"] != "change_request_failed" {
		t.Fatalf("response = %v; want change_request_failed", resp)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(b) != "old\n" {
		t.Fatalf("a.txt = %q", b)
	}
}
