package server

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// TestPolicyTypoFailsClosed is the attack of issue 19, item 3: a misspelled policy field used to be
// dropped by encoding/json, so initialize succeeded and the file the host meant to deny stayed
// readable. It is refused now, naming the field and the one meant, under a bare server and a
// fixed policy alike, and no session exists after it.
func TestPolicyTypoFailsClosed(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "secret.txt"), "the secret\n")
	for _, opts := range []Options{{}, {Config: schema.Config{RootDir: root}, FixedPolicy: true}} {
		w := newWire(t, opts)
		_, resp := w.request(1, "initialize", initParams(root, map[string]any{"denid": []string{"secret.txt"}}))
		code, data := errorCode(t, resp)
		msg := resp["error"].(map[string]any)["message"].(string)
		if code != schema.CodeInvalidParams || data["kind"] != "invalid_arguments" ||
			!strings.Contains(msg, "unknown member `config.denid`; did you mean `denied_patterns`?") {
			t.Fatalf("fixed=%v: initialize with a typo answered %v", opts.FixedPolicy, resp)
		}
		_, resp = w.request(2, "tools/call", toolCall("read_file", map[string]any{"path": "secret.txt"}))
		if _, data := errorCode(t, resp); data["kind"] != "not_initialized" {
			t.Fatalf("fixed=%v: after a refused initialize, read_file answered %v", opts.FixedPolicy, resp)
		}
	}
}

// TestCallEnvelopeIsStrict: {"NAME", "Arguments"} used to be accepted as a tools/call (encoding/json
// folds case); an extra member was dropped. Each is -32602 now and nothing runs.
func TestCallEnvelopeIsStrict(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "a.txt"), "old\n")
	w := newWire(t, Options{})
	w.request(1, "initialize", initParams(root, nil))
	w.onRequest = func(map[string]any) any { return map[string]any{"approve": true} }
	for i, params := range []map[string]any{
		{"NAME": "write_file", "Arguments": map[string]any{"path": "a.txt", "content": "new\n"}},
		{"name": "write_file", "arguments": map[string]any{"path": "a.txt", "content": "new\n"}, "meta": true},
		{"name": "write_file", "arguments": "path=a.txt"},
	} {
		_, resp := w.request(2+i, "tools/call", params)
		if code, data := errorCode(t, resp); code != schema.CodeInvalidParams || data["kind"] != "invalid_arguments" {
			t.Errorf("tools/call %v answered %v; want -32602", params, resp)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(b) != "old\n" {
		t.Fatalf("a refused call wrote: %q", b)
	}
}

// TestChangeRequestAnswerIsStrict: a misspelled decision used to be dropped, so {"approve": true,
// "decison": "edit", "content": …} approved the model's content instead of the reviewer's. It
// fails the call now, naming the member, and nothing is written.
func TestChangeRequestAnswerIsStrict(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "a.txt"), "old\n")
	w := newWire(t, Options{})
	w.request(1, "initialize", initParams(root, nil))
	for i, ans := range []map[string]any{
		{"approve": true, "decison": "edit", "content": "reviewer\n"},
		{"Approve": true},
		{"approve": "yes"},
	} {
		w.onRequest = func(map[string]any) any { return ans }
		_, resp := w.request(2+i, "tools/call", toolCall("write_file", map[string]any{"path": "a.txt", "content": "model\n"}))
		code, data := errorCode(t, resp)
		if code != schema.CodeFatal || data["kind"] != "change_request_failed" ||
			!strings.Contains(resp["error"].(map[string]any)["message"].(string), "`") {
			t.Errorf("answer %v: response %v; want change_request_failed naming the member", ans, resp)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(b) != "old\n" {
		t.Fatalf("a malformed answer let a change through: %q", b)
	}
}

// TestCallParamsMirrorTheBundle: the envelope server decodes tools/call into (arguments kept as
// bytes) has exactly the members of schema.ToolsCallParams, which the bundle publishes, with the
// same required ones; so the strict decoding of the envelope is the bundle's.
func TestCallParamsMirrorTheBundle(t *testing.T) {
	tags := func(rt reflect.Type) []string {
		var out []string
		for i := 0; i < rt.NumField(); i++ {
			out = append(out, rt.Field(i).Tag.Get("json"))
		}
		return out
	}
	got, want := tags(reflect.TypeFor[callParams]()), tags(reflect.TypeFor[schema.ToolsCallParams]())
	if !slices.Equal(got, want) {
		t.Fatalf("callParams members %q, schema.ToolsCallParams %q", got, want)
	}
}
