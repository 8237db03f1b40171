package server

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// A relayed initialize cannot widen a host that fixed the policy; through the whole session.
func TestFixedPolicySession(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	for name, content := range map[string]string{"a.txt": "a\n", ".env": "TOKEN=1\n", "sub/b.txt": "b\n", "sub/.env": "T=2\n", "secret/k": "k\n"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(root, name), content)
	}
	writeFile(t, filepath.Join(base, "outside.txt"), "outside\n")
	host := schema.Config{RootDir: root, Tools: []string{"read_file", "list_directory", "write_file"},
		Permissions: []schema.PermissionRule{{Operations: []string{"read"}, Paths: []string{"/secret/**"}, Mode: "deny"}}}
	opts := Options{Config: host, FixedPolicy: true}
	for _, c := range []struct {
		name  string
		cfg   map[string]any
		field string
	}{
		{"root at /", map[string]any{"root_dir": "/"}, "root_dir"},
		{"root above", map[string]any{"root_dir": base}, "root_dir"},
		{"relative root above", map[string]any{"root_dir": ".."}, "root_dir"},
		{"clear denied", map[string]any{"denied_patterns": []any{}}, "denied_patterns"},
		{"more tools", map[string]any{"tools": []any{"read_file", "edit_file"}}, "tools"},
		{"raise a limit", map[string]any{"max_read_chars": 1 << 30}, "max_read_chars"},
	} {
		w := newWire(t, opts)
		_, resp := w.request(1, "initialize", map[string]any{"protocol_version": "1", "config": c.cfg})
		code, data := errorCode(t, resp)
		msg := resp["error"].(map[string]any)["message"].(string)
		if code != schema.CodeInvalidParams || data["kind"] != "invalid_arguments" || !strings.HasPrefix(msg, c.field+": ") {
			t.Errorf("%s: %v %v %q; want -32602 invalid_arguments naming %s", c.name, code, data, msg, c.field)
		}
		if strings.Contains(msg, root) {
			t.Errorf("%s: the refusal names the host's root: %q", c.name, msg)
		}
	}
	// Narrowing works: a root inside (relative to the host's), more denied patterns, fewer tools.
	w := newWire(t, opts)
	_, resp := w.request(1, "initialize", map[string]any{"protocol_version": "1",
		"config": map[string]any{"root_dir": "sub", "denied_patterns": []any{"b.txt"}, "tools": []any{"read_file"},
			"permissions": []any{map[string]any{"operations": []any{"read"}, "paths": []any{"/**"}, "mode": "allow"}}}})
	res, ok := resp["result"].(map[string]any)
	if !ok {
		t.Fatalf("narrowing initialize = %v", resp)
	}
	if res["root_dir"] != filepath.Join(root, "sub") {
		t.Errorf("root_dir = %v", res["root_dir"])
	}
	for id, c := range map[int]struct{ path, kind string }{
		2: {"b.txt", "denied"}, // the client's pattern
		3: {".env", "denied"},  // the host's defaults still apply
		4: {"../a.txt", "outside_root"},
	} {
		_, resp := w.request(id, "tools/call", toolCall("read_file", map[string]any{"path": c.path}))
		if _, data := errorCode(t, resp); data["kind"] != c.kind {
			t.Errorf("read %s = %v; want %s", c.path, data, c.kind)
		}
	}
	_, resp = w.request(5, "tools/call", toolCall("write_file", map[string]any{"path": "n.txt", "content": "x"}))
	if _, data := errorCode(t, resp); data["kind"] != "unknown_tool" {
		t.Errorf("write_file after narrowing tools = %v; want unknown_tool", data)
	}
	// A host permission deny holds though the client allows everything.
	w = newWire(t, opts)
	w.request(1, "initialize", map[string]any{"protocol_version": "1", "config": map[string]any{
		"permissions": []any{map[string]any{"operations": []any{"read"}, "paths": []any{"/**"}, "mode": "allow"}}}})
	_, resp = w.request(2, "tools/call", toolCall("read_file", map[string]any{"path": "secret/k"}))
	if _, data := errorCode(t, resp); data["kind"] != "permission_denied" {
		t.Errorf("read secret/k = %v; want the host's permission_denied", data)
	}
}

// A bare server (no fixed policy) keeps letting its client configure everything, the way the
// SDKs use it; the secure defaults apply only while the client does not opt out.
func TestBareServerClientConfiguresEverything(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, ".env"), "TOKEN=1\n")
	w := newWire(t, Options{})
	w.request(1, "initialize", initParams(root, nil))
	_, resp := w.request(2, "tools/call", toolCall("read_file", map[string]any{"path": ".env"}))
	if _, data := errorCode(t, resp); data["kind"] != "denied" {
		t.Errorf("default read .env = %v; want denied", data)
	}
	w = newWire(t, Options{})
	w.request(1, "initialize", initParams(root, map[string]any{"denied_patterns": []any{}, "max_read_chars": 1 << 30}))
	if _, resp := w.request(2, "tools/call", toolCall("read_file", map[string]any{"path": ".env"})); resp["result"] == nil {
		t.Errorf("read .env with denied_patterns: [] = %v", resp)
	}
}

// post_edit and post_edit_timeout come only from the host: a client setting them in initialize
// is refused with -32602 naming the field, whether or not the host fixed the policy, and a
// refused session ran nothing.
func TestClientCannotSetPostEdit(t *testing.T) {
	root := t.TempDir()
	marker := filepath.Join(root, "HOOK-RAN")
	hook := []map[string]any{{"path": "*", "cmd": []string{"touch", marker}}}
	for _, opts := range []Options{{}, {Config: schema.Config{RootDir: root}, FixedPolicy: true}} {
		w := newWire(t, opts)
		w.onRequest = func(map[string]any) any { return map[string]any{"approve": true} }
		for i, cfg := range []map[string]any{{"post_edit": hook}, {"post_edit": []any{}}, {"post_edit_timeout": 5}} {
			_, resp := w.request(i+1, "initialize", initParams(root, cfg))
			code, data := errorCode(t, resp)
			msg, _ := resp["error"].(map[string]any)["message"].(string)
			field := "post_edit"
			if _, ok := cfg["post_edit_timeout"]; ok {
				field = "post_edit_timeout"
			}
			if code != schema.CodeInvalidParams || data["kind"] != "invalid_arguments" || !strings.HasPrefix(msg, field+": ") {
				t.Errorf("fixed=%v config %v = %v; want -32602 invalid_arguments naming %s", opts.FixedPolicy, cfg, resp, field)
			}
		}
		_, resp := w.request(9, "initialize", initParams(root, nil))
		if resp["result"] == nil {
			t.Fatalf("initialize after the refusals = %v", resp)
		}
		w.request(10, "tools/call", map[string]any{"name": "write_file", "arguments": map[string]any{"path": "a.txt", "content": "x"}})
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a client-sent post_edit hook ran")
	}
}

// The host's hooks run in a session whose client narrowed the root, matched against paths
// relative to the host's root, with ${file} relative to the session root (the hook's cwd).
func TestHostHooksUnderNarrowedRoot(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	host := schema.Config{RootDir: root, PostEdit: []schema.PostEditHook{
		{Path: "sub/*.txt", Cmd: []string{"sh", "-c", `printf '%s\n' "$1" >> hook.log`, "sh", "${file}"}},
		{Path: "other/*.txt", Cmd: []string{"touch", "WRONG"}},
	}}
	w := newWire(t, Options{Config: host, FixedPolicy: true})
	w.onRequest = func(map[string]any) any { return map[string]any{"approve": true} }
	if _, resp := w.request(1, "initialize", initParams("sub", nil)); resp["result"] == nil {
		t.Fatalf("initialize = %v", resp)
	}
	_, resp := w.request(2, "tools/call", map[string]any{"name": "write_file", "arguments": map[string]any{"path": "a.txt", "content": "x\n"}})
	if resp["result"] == nil {
		t.Fatalf("write_file = %v", resp)
	}
	b, err := os.ReadFile(filepath.Join(root, "sub", "hook.log"))
	if err != nil || string(b) != "./a.txt\n" {
		t.Errorf("hook.log in the session root = %q, %v; want \"./a.txt\\n\"", b, err)
	}
	if _, err := os.Stat(filepath.Join(root, "sub", "WRONG")); err == nil {
		t.Error("a hook whose pattern does not match ran")
	}
}

// mounts come only from the host: a client asking to mount a directory in initialize is refused
// with -32602 naming the field, whether or not the host fixed the policy, and the session that
// follows cannot reach the directory; the host's own mounts work through the wire.
func TestMountsAreHostOnly(t *testing.T) {
	root, other := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "secret.txt"), []byte("MOUNTED SECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, opts := range []Options{{}, {Config: schema.Config{RootDir: root}, FixedPolicy: true}} {
		w := newWire(t, opts)
		_, resp := w.request(1, "initialize", initParams(root, map[string]any{"mounts": []any{map[string]any{"path": "m", "dir": other}}}))
		code, data := errorCode(t, resp)
		msg, _ := resp["error"].(map[string]any)["message"].(string)
		if code != schema.CodeInvalidParams || data["kind"] != "invalid_arguments" || !strings.HasPrefix(msg, "mounts: ") || strings.Contains(msg, other) {
			t.Errorf("fixed=%v: client mounts = %v; want -32602 invalid_arguments naming mounts", opts.FixedPolicy, resp)
		}
		if _, resp := w.request(2, "initialize", initParams(root, nil)); resp["result"] == nil {
			t.Fatalf("initialize after the refusal = %v", resp)
		}
		if _, resp := w.request(3, "tools/call", toolCall("read_file", map[string]any{"path": "m/secret.txt"})); strings.Contains(wireJSON(resp), "MOUNTED SECRET") {
			t.Fatalf("a refused client mount is reachable: %v", resp)
		}
	}
	host := schema.Config{RootDir: root, Mounts: []schema.Mount{{Path: "m", Dir: other, ReadOnly: true}}}
	w := newWire(t, Options{Config: host, FixedPolicy: true})
	if _, resp := w.request(1, "initialize", initParams(root, nil)); resp["result"] == nil {
		t.Fatalf("initialize = %v", resp)
	}
	if _, resp := w.request(2, "tools/call", toolCall("read_file", map[string]any{"path": "m/secret.txt"})); !strings.Contains(wireJSON(resp), "MOUNTED SECRET") {
		t.Errorf("the host's mount is not readable: %v", resp)
	}
	_, resp := w.request(3, "tools/call", toolCall("write_file", map[string]any{"path": "m/new.txt", "content": "x"}))
	if s := wireJSON(resp); !strings.Contains(s, "read_only_filesystem") || strings.Contains(s, other) {
		t.Errorf("write into the host's read-only mount = %v; want read_only_filesystem without the host path", resp)
	}
}

// wireJSON is the JSON of a decoded reply, for substring checks.
func wireJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
