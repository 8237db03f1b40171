//go:build unix

package engine

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/fsbox/fsbox/engine/internal/text"
	"github.com/fsbox/fsbox/schema"
)

// auditedEngine opens an engine on fx with an audit log in a directory of its own and returns
// the log's path.
func auditedEngine(t *testing.T, fx *fixture, cfg schema.Config) (*Engine, string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := OpenAuditLog(AuditOptions{Path: p})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	cfg.RootDir = fx.root
	e, err := New(cfg, Options{Audit: l.Session()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e, p
}

func readAudit(t *testing.T, p string) []schema.AuditRecord {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []schema.AuditRecord
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r schema.AuditRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%q: %v", sc.Text(), err)
		}
		out = append(out, r)
	}
	return out
}

func decisionOf(r schema.AuditRecord) string {
	if r.Decision == nil {
		return "none"
	}
	return r.Decision.Answer + " by " + r.Decision.By
}

// TestAuditDecisions: who decided each change is recorded: the policy when nobody was asked
// (a change let through, an interrupt rule refusing because nobody can be asked), the client
// when its hook answered, the host when a front end's hook answered from the host's settings
// (AnsweredBy), and pending when the answer comes with a later call (ErrChangeDeferred).
func TestAuditDecisions(t *testing.T) {
	fx := makeFixture(t, "a.txt: old\n")
	e, p := auditedEngine(t, fx, schema.Config{Permissions: []schema.PermissionRule{
		{Operations: []string{"write"}, Paths: []string{"/ask/**"}, Mode: "interrupt"}}})
	os.Mkdir(filepath.Join(fx.root, "ask"), 0o755)
	none := Hooks{}
	mustCall(t, e, "write_file", map[string]any{"path": "a.txt", "content": "new\n"}, none)
	_, err := tryCall(t, e, "write_file", map[string]any{"path": "ask/b.txt", "content": "x"}, none)
	wantKind(t, "interrupt rule without a client", err, schema.KindPermissionDenied)
	client := Hooks{ChangeRequest: func(context.Context, *schema.FileChangeRequest) (schema.ChangeRequestResult, error) {
		return Reject("no"), nil
	}}
	mustCall(t, e, "write_file", map[string]any{"path": "c.txt", "content": "x"}, client)
	host := Hooks{ChangeRequest: func(ctx context.Context, _ *schema.FileChangeRequest) (schema.ChangeRequestResult, error) {
		AnsweredBy(ctx, schema.AuditByHost)
		return Approve(), nil
	}}
	mustCall(t, e, "write_file", map[string]any{"path": "d.txt", "content": "x"}, host)
	later := Hooks{ChangeRequest: func(context.Context, *schema.FileChangeRequest) (schema.ChangeRequestResult, error) {
		return schema.ChangeRequestResult{}, fmt.Errorf("asked in the result: %w", ErrChangeDeferred)
	}}
	tryCall(t, e, "write_file", map[string]any{"path": "e.txt", "content": "x"}, later)
	mustCall(t, e, "read_file", map[string]any{"path": "a.txt"}, none)

	recs := readAudit(t, p)
	want := []struct{ outcome, decision string }{
		{"ok", "approved by policy-auto"},
		{"error", "refused by policy-auto"},
		{"refused", "refused by client"},
		{"ok", "approved by host"},
		{"pending", "pending by client"},
		{"ok", "none"},
	}
	if len(recs) != len(want) {
		t.Fatalf("%d records, want %d", len(recs), len(want))
	}
	for i, w := range want {
		if recs[i].Outcome != w.outcome || decisionOf(recs[i]) != w.decision {
			t.Errorf("record %d (%s %v): outcome %s, decision %s; want %s, %s", i+1, recs[i].Tool, recs[i].Paths, recs[i].Outcome, decisionOf(recs[i]), w.outcome, w.decision)
		}
	}
	if c := recs[0].Changes; len(c) != 1 || c[0].Before != text.ContentHash([]byte("old\n")) || c[0].After != text.ContentHash([]byte("new\n")) {
		t.Errorf("overwrite without expected_hash: changes %+v, want before and after hashes", c)
	}
	if _, err := os.Stat(filepath.Join(fx.root, "e.txt")); err == nil {
		t.Error("a deferred change was written")
	}
}

// TestAuditCallerNeverRunsAfterAFailure: once the log fails, Call refuses before resolving or
// touching anything.
func TestAuditCallerNeverRunsAfterAFailure(t *testing.T) {
	fx := makeFixture(t, "a.txt")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	l, err := OpenAuditLog(AuditOptions{File: w})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	e, err := New(schema.Config{RootDir: fx.root}, Options{Audit: l.Session()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r.Close()
	_, aerr := tryCall(t, e, "write_file", map[string]any{"path": "b.txt", "content": "x"}, Hooks{})
	wantKind(t, "the call whose line failed", aerr, schema.KindAuditFailed)
	_, aerr = tryCall(t, e, "write_file", map[string]any{"path": "c.txt", "content": "x"}, Hooks{})
	wantKind(t, "a call after the failure", aerr, schema.KindAuditFailed)
	if _, err := os.Stat(filepath.Join(fx.root, "c.txt")); err == nil {
		t.Error("a call ran after the audit log failed")
	}
}

// TestAuditBeforeHashIsBounded: a write without expected_hash over a file larger than the bound
// records "<unhashed>" instead of reading it; a smaller one is hashed.
func TestAuditBeforeHashIsBounded(t *testing.T) {
	defer func(old int64) { maxAuditHashBytes = old }(maxAuditHashBytes)
	maxAuditHashBytes = 10
	fx := makeFixture(t, "small.txt: 12345", "big.txt: 0123456789abcdef")
	e, p := auditedEngine(t, fx, schema.Config{})
	mustCall(t, e, "write_file", map[string]any{"path": "small.txt", "content": "x"}, Hooks{})
	mustCall(t, e, "write_file", map[string]any{"path": "big.txt", "content": "x"}, Hooks{})
	recs := readAudit(t, p)
	if got := recs[0].Changes[0].Before; got != text.ContentHash([]byte("12345")) {
		t.Errorf("small file: before %q", got)
	}
	if got := recs[1].Changes[0].Before; got != "<unhashed>" {
		t.Errorf("file over the bound: before %q, want <unhashed>", got)
	}
}
