//go:build unix

package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/fsbox/fsbox/engine"
	"github.com/fsbox/fsbox/schema"
)

// TestAuditConcurrentCallsInProcess: concurrent tools/calls (pipelined, answered out of order),
// a call before initialize and a malformed envelope each get exactly one line, numbered in file
// order; run under -race it also checks the session's recorders are safe together.
func TestAuditConcurrentCallsInProcess(t *testing.T) {
	root := t.TempDir()
	for i := range 20 {
		writeFile(t, filepath.Join(root, fmt.Sprintf("f%d.txt", i)), "x\n")
	}
	p := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := engine.OpenAuditLog(engine.AuditOptions{Path: p})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	w := newWire(t, Options{Audit: l})
	_, resp := w.request(1, "tools/call", map[string]any{"name": "read_file", "arguments": map[string]any{"path": "f0.txt"}})
	if _, data := errorCode(t, resp); data["kind"] != string(schema.KindNotInitialized) {
		t.Fatalf("before initialize: %v", resp)
	}
	w.request(2, "initialize", initParams(root, nil))
	for i := range 20 {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 100 + i, "method": "tools/call",
			"params": map[string]any{"name": "read_file", "arguments": map[string]any{"path": fmt.Sprintf("f%d.txt", i)}}})
		w.send(string(b))
	}
	for replies := 0; replies < 20; {
		if _, isNotif := w.next()["method"]; !isNotif {
			replies++
		}
	}
	w.request(3, "tools/call", map[string]any{"nam": "read_file"})

	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []schema.AuditRecord
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r schema.AuditRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	if len(recs) != 22 {
		t.Fatalf("%d lines, want 22", len(recs))
	}
	seen := map[string]int{}
	for i, r := range recs {
		if r.Seq != int64(i+1) {
			t.Errorf("line %d has seq %d", i+1, r.Seq)
		}
		for _, path := range r.Paths {
			seen[path]++
		}
	}
	for i := range 20 {
		if n := seen[fmt.Sprintf("f%d.txt", i)]; n != 1 {
			t.Errorf("f%d.txt is in %d lines, want 1", i, n)
		}
	}
	if recs[0].ErrorKind != schema.KindNotInitialized || recs[21].ErrorKind != schema.KindInvalidArguments {
		t.Errorf("first %+v, last %+v", recs[0], recs[21])
	}
}

// TestAuditCheckpointMethods: the host's checkpoint methods are in the audit log like tool calls,
// one line each under their own method name, with the root-relative paths a restore put back and
// the error kind of a refused one; a restore is a change, so it is never unaudited.
func TestAuditCheckpointMethods(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "a.txt"), "ORIGINAL-CONTENT-7\n")
	p := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := engine.OpenAuditLog(engine.AuditOptions{Path: p})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	w := newWire(t, Options{Audit: l})
	w.onRequest = func(map[string]any) any { return map[string]any{"approve": true} }
	if _, resp := w.request(1, "initialize", initParams(root, map[string]any{"journal": map[string]any{}})); resp["error"] != nil {
		t.Fatalf("initialize: %v", resp["error"])
	}
	_, resp := w.request(2, "checkpoint/create", map[string]any{"label": "start"})
	id := resp["result"].(map[string]any)["id"].(string)
	if _, resp = w.request(3, "tools/call", map[string]any{"name": "write_file",
		"arguments": map[string]any{"path": "a.txt", "content": "after\n"}}); resp["error"] != nil {
		t.Fatalf("write: %v", resp["error"])
	}
	if _, resp = w.request(4, "checkpoint/restore", map[string]any{"id": id}); resp["error"] != nil {
		t.Fatalf("restore: %v", resp["error"])
	}
	w.request(5, "checkpoint/restore", map[string]any{"id": "cp-99"})

	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var recs []schema.AuditRecord
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var r schema.AuditRecord
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	want := []string{"checkpoint/create", "tools/call", "checkpoint/restore", "checkpoint/restore"}
	if len(recs) != len(want) {
		t.Fatalf("%d lines, want %d: %s", len(recs), len(want), data)
	}
	for i, r := range recs {
		if r.Method != want[i] || r.Seq != int64(i+1) {
			t.Errorf("line %d: method %q seq %d, want %q", i+1, r.Method, r.Seq, want[i])
		}
	}
	if r := recs[2]; r.Outcome != schema.AuditOK || len(r.Paths) != 1 || r.Paths[0] != "a.txt" {
		t.Errorf("restore line: %+v", r)
	}
	if r := recs[3]; r.Outcome != schema.AuditError || r.ErrorKind == "" {
		t.Errorf("refused restore line: %+v", r)
	}
	if bytes.Contains(data, []byte(root)) || bytes.Contains(data, []byte("ORIGINAL-CONTENT-7")) {
		t.Errorf("the log holds a host path or file contents: %s", data)
	}
}
