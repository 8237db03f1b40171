package conformance

import "testing"

// The contract compiles from the committed bundle, accepts real shapes and names what is wrong
// with a bad one: a missing required field, a wrong type. (Results are open to new fields, so an
// unknown property passes.)
func TestContract_ValidatesAgainstTheBundle(t *testing.T) {
	c := loadContract()
	if c.err != nil {
		t.Fatal(c.err)
	}
	read := c.results["read_file"]
	if read == nil || c.events["file_system.file_read"] == nil || c.init == nil || len(c.kinds) == 0 {
		t.Fatalf("contract incomplete: read_file=%v init=%v kinds=%d", read, c.init, len(c.kinds))
	}
	good := map[string]any{"text": "[a.txt | 1 lines | hash:0123456789ab]\n     1\tx\n", "path": "a.txt", "content": "x\n",
		"offset": 0, "lines_shown": 1, "total_lines": 1, "size": 2, "binary": false, "hash": "0123456789ab"}
	if reason := validate(read, good); reason != "" {
		t.Fatalf("a real read_file result was refused: %s", reason)
	}
	for name, mutate := range map[string]func(m map[string]any){
		"missing text":       func(m map[string]any) { delete(m, "text") },
		"size as a string":   func(m map[string]any) { m["size"] = "2" },
		"binary as a number": func(m map[string]any) { m["binary"] = 0 },
	} {
		bad := map[string]any{}
		for k, v := range good {
			bad[k] = v
		}
		mutate(bad)
		if reason := validate(read, bad); reason == "" {
			t.Errorf("%s: the validator accepted %v", name, bad)
		}
	}
	init := map[string]any{"protocol_version": "1", "server_info": map[string]any{"name": "x", "version": "1"},
		"root_dir": "/r", "cwd": ".", "tools": []any{}, "schema_hash": "sha256:00", "result_shape": "both"}
	if reason := validate(c.init, init); reason != "" {
		t.Errorf("a real initialize result was refused: %s", reason)
	}
	delete(init, "schema_hash")
	if reason := validate(c.init, init); reason == "" {
		t.Errorf("an initialize result without schema_hash was accepted")
	}
	if retry, ok := c.kinds["stale_hash"]; !ok || !retry {
		t.Errorf("stale_hash: retry = %v (known %v); want a retryable kind", retry, ok)
	}
	if retry, ok := c.kinds["read_only_filesystem"]; !ok || retry {
		t.Errorf("read_only_filesystem: retry = %v (known %v); want a fatal kind", retry, ok)
	}
	ev := map[string]any{"kind": "file_system.file_read", "path": "a.txt", "root_dir": "/r", "tool": "read_file", "content_hash": "0123456789ab"}
	if reason := validate(c.events["file_system.file_read"], ev); reason != "" {
		t.Errorf("a real file_read event was refused: %s", reason)
	}
	ev["kind"] = 7
	if reason := validate(c.events["file_system.file_read"], ev); reason == "" {
		t.Errorf("an event with a numeric kind was accepted")
	}
}
