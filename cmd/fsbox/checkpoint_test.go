package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// rpcSession drives a served process line by line.
type rpcSession struct {
	t  *testing.T
	s  *served
	rd *bufio.Reader
	id int
}

func newRPCSession(t *testing.T, s *served) *rpcSession {
	r := &rpcSession{t: t, s: s, rd: bufio.NewReaderSize(s.out, 1<<20)}
	r.wait("init")
	return r
}

// call sends a request and returns its result (or fails on an error).
func (r *rpcSession) call(method string, params any) json.RawMessage {
	r.t.Helper()
	r.id++
	id := fmt.Sprintf("r%d", r.id)
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if _, err := r.s.in.Write(append(b, '\n')); err != nil {
		r.t.Fatalf("%s: %v", method, err)
	}
	return r.wait(id)
}

// send sends a request without waiting for its answer.
func (r *rpcSession) send(method string, params any) {
	r.id++
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": fmt.Sprintf("r%d", r.id), "method": method, "params": params})
	r.s.in.Write(append(b, '\n'))
}

func (r *rpcSession) wait(id string) json.RawMessage {
	r.t.Helper()
	for {
		line, err := r.rd.ReadBytes('\n')
		if err != nil {
			r.t.Fatalf("waiting for %s: %v", id, err)
		}
		var m struct {
			ID     any             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		json.Unmarshal(line, &m)
		if m.ID != id {
			continue
		}
		if m.Error != nil {
			r.t.Fatalf("%s: error %s", id, m.Error)
		}
		return m.Result
	}
}

// TestServe_RestoreSurvivesSIGKILL kills a real `fsbox serve` in the middle of
// checkpoint/restore: every file is whole, as before or as after, never torn; a second server
// on the same --journal-dir finds the checkpoint and finishes the restore.
func TestServe_RestoreSurvivesSIGKILL(t *testing.T) {
	base := t.TempDir()
	root, jdir := filepath.Join(base, "root"), filepath.Join(base, "journal")
	os.Mkdir(root, 0o755)
	const files = 200
	orig := func(i int) string { return strings.Repeat(fmt.Sprintf("original %03d\n", i), 4000) }
	model := func(i int) string { return strings.Repeat(fmt.Sprintf("model %03d\n", i), 5000) }
	for i := 0; i < files; i++ {
		os.WriteFile(filepath.Join(root, fmt.Sprintf("f%03d.txt", i)), []byte(orig(i)), 0o644)
	}
	s := startServe(t, root, "--journal-dir", jdir)
	r := newRPCSession(t, s)
	var cp struct{ ID string }
	json.Unmarshal(r.call("checkpoint/create", map[string]any{"label": "before the run"}), &cp)
	for i := 0; i < files; i++ {
		r.call("tools/call", map[string]any{"name": "write_file", "arguments": map[string]any{"path": fmt.Sprintf("f%03d.txt", i), "content": model(i)}})
	}
	r.send("checkpoint/restore", map[string]any{"id": cp.ID})
	// Kill once some files are back and before all are.
	deadline := time.Now().Add(20 * time.Second)
	killed := false
	for time.Now().Before(deadline) && !killed {
		back := 0
		for i := 0; i < files; i++ {
			if b, _ := os.ReadFile(filepath.Join(root, fmt.Sprintf("f%03d.txt", i))); string(b) == orig(i) {
				back++
			}
		}
		if back > 0 {
			s.cmd.Process.Signal(syscall.SIGKILL)
			killed = true
			t.Logf("killed with %d of %d files restored", back, files)
		}
	}
	<-s.exit
	restored := 0
	for i := 0; i < files; i++ {
		b, err := os.ReadFile(filepath.Join(root, fmt.Sprintf("f%03d.txt", i)))
		switch {
		case err != nil:
			t.Fatalf("f%03d.txt: %v", i, err)
		case string(b) == orig(i):
			restored++
		case string(b) != model(i):
			t.Fatalf("f%03d.txt is torn: %d bytes, neither before nor after", i, len(b))
		}
	}
	if restored == files {
		t.Log("the restore finished before the kill; the second restore has nothing left")
	}
	s2 := startServe(t, root, "--journal-dir", jdir)
	r2 := newRPCSession(t, s2)
	var list struct {
		Checkpoints []struct{ ID string }
	}
	json.Unmarshal(r2.call("checkpoint/list", nil), &list)
	if len(list.Checkpoints) != 1 || list.Checkpoints[0].ID != cp.ID {
		t.Fatalf("after the restart: checkpoints %+v", list.Checkpoints)
	}
	var res struct {
		Restored, Unchanged []string
		NotRestored         []any `json:"not_restored"`
		Complete            bool
	}
	json.Unmarshal(r2.call("checkpoint/restore", map[string]any{"id": cp.ID}), &res)
	if !res.Complete {
		t.Fatalf("second restore: %+v", res.NotRestored)
	}
	for i := 0; i < files; i++ {
		if b, _ := os.ReadFile(filepath.Join(root, fmt.Sprintf("f%03d.txt", i))); string(b) != orig(i) {
			t.Fatalf("f%03d.txt not restored after the restart", i)
		}
	}
	t.Logf("second restore: %d restored, %d already back", len(res.Restored), len(res.Unchanged))
}
