package engine

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/fsbox/fsbox/engine/internal/text"
	"github.com/fsbox/fsbox/schema"
)

func sp(s string) *string { return &s }

// changeCalls are the three changing tools, each as a call on target.txt (or new dir "made").
var changeCalls = []struct {
	tool, op, verb, path string
	args                 map[string]any
}{
	{"write_file", "write", "written", "target.txt", map[string]any{"path": "target.txt", "content": "new\n"}},
	{"write_file", "write", "written", "fresh.txt", map[string]any{"path": "fresh.txt", "content": "one\ntwo\n"}},
	{"edit_file", "edit", "edited", "target.txt", map[string]any{"path": "target.txt", "old_text": "old", "new_text": "new"}},
	{"create_directory", "create_directory", "created", "made", map[string]any{"path": "made"}},
}

func TestChangeRequest_ApproveAnnouncesTheDiff(t *testing.T) {
	wantDiff := map[string]string{
		"write_file target.txt": "--- a/target.txt\n+++ b/target.txt\n@@ -1 +1 @@\n-old\n+new\n",
		"write_file fresh.txt":  "--- a/fresh.txt\n+++ b/fresh.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n",
		"edit_file target.txt":  "--- a/target.txt\n+++ b/target.txt\n@@ -1 +1 @@\n-old\n+new\n",
		"create_directory made": "",
	}
	for _, cc := range changeCalls {
		t.Run(cc.tool+"/"+cc.path, func(t *testing.T) {
			fx := makeFixture(t, "target.txt: old\n")
			e := fx.engine(schema.Config{})
			var rec recorder
			var onDiskAtRequest string
			rec.answer = func(req *schema.FileChangeRequest) (bool, string, error) {
				onDiskAtRequest = fx.read(cc.path)
				return true, "", nil
			}
			mustCall(t, e, cc.tool, cc.args, rec.hooks(true))
			if len(rec.requests) != 1 {
				t.Fatalf("%d change requests; want 1", len(rec.requests))
			}
			req := rec.requests[0]
			if req.Operation != cc.op || req.Reason != "listener" || req.Path != cc.path || req.RootDir != fx.root || req.Truncated {
				t.Errorf("request = %+v", req)
			}
			if d := wantDiff[cc.tool+" "+cc.path]; req.Diff != d {
				t.Errorf("diff = %q; want %q", req.Diff, d)
			}
			if before := map[string]string{"target.txt": "old\n"}[cc.path]; onDiskAtRequest != before && onDiskAtRequest != "<missing>" {
				t.Errorf("the change landed before it was approved: %q", onDiskAtRequest)
			}
			if len(rec.events) != 1 {
				t.Fatalf("events = %v; want one", rec.events)
			}
			if cc.tool == "edit_file" {
				ev := rec.events[0].(*schema.FileEditedEvent)
				if ev.Kind != schema.KindFileEdited || ev.Diff != req.Diff || ev.ContentHash != text.ContentHash([]byte("new\n")) {
					t.Errorf("edited event = %+v", ev)
				}
			}
		})
	}
}

func TestChangeRequest_Refused(t *testing.T) {
	for _, cc := range changeCalls {
		for _, reason := range []string{"not today", ""} {
			t.Run(cc.tool+"/"+cc.path+"/"+reason, func(t *testing.T) {
				fx := makeFixture(t, "target.txt: old\n")
				e := fx.engine(schema.Config{})
				rec := recorder{answer: func(*schema.FileChangeRequest) (bool, string, error) { return false, reason, nil }}
				before := snapshot(t, fx.root)
				res := mustCall(t, e, cc.tool, cc.args, rec.hooks(true))
				want := reason
				if want == "" {
					want = "cancelled by a listener"
				}
				if got, wantText := resultText(res), "['"+cc.path+"' was not "+cc.verb+": "+want+"]"; got != wantText {
					t.Errorf("text = %q; want %q", got, wantText)
				}
				var outcome schema.ChangeOutcome
				switch r := res.(type) {
				case *schema.WriteFileResult:
					outcome = r.ChangeOutcome
				case *schema.EditFileResult:
					outcome = r.ChangeOutcome
				case *schema.CreateDirectoryResult:
					outcome = r.ChangeOutcome
				}
				if !outcome.Cancelled || outcome.CancelReason != want {
					t.Errorf("outcome = %+v", outcome)
				}
				if after := snapshot(t, fx.root); after != before {
					t.Errorf("refused change touched the root:\n%s\n%s", before, after)
				}
				if len(rec.events) != 0 {
					t.Errorf("events after a refusal: %v", rec.events)
				}
			})
		}
	}
}

func TestChangeRequest_ErrorAbortsWithNothingApplied(t *testing.T) {
	for _, cc := range changeCalls {
		t.Run(cc.tool+"/"+cc.path, func(t *testing.T) {
			fx := makeFixture(t, "target.txt: old\n")
			e := fx.engine(schema.Config{})
			boom := errors.New("connection lost")
			rec := recorder{answer: func(*schema.FileChangeRequest) (bool, string, error) { return false, "", boom }}
			before := snapshot(t, fx.root)
			_, err := tryCall(t, e, cc.tool, cc.args, rec.hooks(true))
			wantKind(t, cc.tool, err, "change_request_failed")
			if err.Retry() || !errors.Is(err, boom) {
				t.Errorf("error %v: retry=%v, wraps cause=%v", err, err.Retry(), errors.Is(err, boom))
			}
			if after := snapshot(t, fx.root); after != before {
				t.Errorf("failed change touched the root")
			}
			if len(rec.events) != 0 {
				t.Errorf("events: %v", rec.events)
			}
		})
	}
}

func TestChangeRequest_FileChangedWhileAnnounced(t *testing.T) {
	cases := []struct {
		name    string
		fixture []string
		args    map[string]any
		tool    string
		meddle  func(fx *fixture)
		kind    schema.ErrorKind
		final   string // content of target.txt afterwards
	}{
		{"write, file rewritten", []string{"target.txt: old\n"}, map[string]any{"path": "target.txt", "content": "new\n"}, "write_file",
			func(fx *fixture) { os.WriteFile(fx.abs("target.txt"), []byte("other\n"), 0o644) }, "stale_hash", "other\n"},
		{"edit, file rewritten", []string{"target.txt: old\n"}, map[string]any{"path": "target.txt", "old_text": "old", "new_text": "new"}, "edit_file",
			func(fx *fixture) { os.WriteFile(fx.abs("target.txt"), []byte("old and more\n"), 0o644) }, "changed_during_request", "old and more\n"},
		{"create, file appeared", nil, map[string]any{"path": "target.txt", "content": "new\n"}, "write_file",
			func(fx *fixture) { os.WriteFile(fx.abs("target.txt"), nil, 0o644) }, "stale_hash", ""},
		{"edit, file deleted", []string{"target.txt: old\n"}, map[string]any{"path": "target.txt", "old_text": "old", "new_text": "new"}, "edit_file",
			func(fx *fixture) { os.Remove(fx.abs("target.txt")) }, "not_found", "<missing>"},
		{"write, file replaced by a link elsewhere", []string{"target.txt: old\n", "other.txt: keep\n"}, map[string]any{"path": "target.txt", "content": "new\n"}, "write_file",
			func(fx *fixture) {
				os.Remove(fx.abs("target.txt"))
				os.Symlink("other.txt", fx.abs("target.txt"))
			}, "changed_during_request", "keep\n"},
		{"create_directory, file appeared", nil, map[string]any{"path": "target.txt"}, "create_directory",
			func(fx *fixture) { os.WriteFile(fx.abs("target.txt"), []byte("x"), 0o644) }, "already_exists", "x"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fx := makeFixture(t, c.fixture...)
			e := fx.engine(schema.Config{})
			rec := recorder{answer: func(*schema.FileChangeRequest) (bool, string, error) {
				c.meddle(fx)
				return true, "", nil
			}}
			_, err := tryCall(t, e, c.tool, c.args, rec.hooks(true))
			wantKind(t, c.name, err, c.kind)
			if got := fx.read("target.txt"); got != c.final {
				t.Errorf("target.txt = %q; want %q", got, c.final)
			}
			if len(rec.events) != 0 {
				t.Errorf("events: %v", rec.events)
			}
			if strings.Contains(err.Msg, fx.root) {
				t.Errorf("message names the root: %q", err.Msg)
			}
		})
	}
}

func TestChangeRequest_DirectoryAppearedMeanwhile(t *testing.T) {
	fx := makeFixture(t)
	e := fx.engine(schema.Config{})
	rec := recorder{answer: func(*schema.FileChangeRequest) (bool, string, error) {
		os.Mkdir(fx.abs("made"), 0o755)
		return true, "", nil
	}}
	res := mustCall(t, e, "create_directory", map[string]any{"path": "made"}, rec.hooks(true)).(*schema.CreateDirectoryResult)
	if res.Text != "Created directory: made" || res.Created || len(rec.events) != 0 {
		t.Errorf("res = %+v, events %v", res, rec.events)
	}
}

func TestChangeRequest_NoRequestForRefusedChanges(t *testing.T) {
	fx := makeFixture(t, "file.txt: x\n", "target.txt: old\n")
	e := fx.engine(schema.Config{DeniedPatterns: &[]string{"denied*"}})
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"write_file", map[string]any{"path": "denied.txt", "content": "x"}},
		{"write_file", map[string]any{"path": "missing/target.txt", "content": "x"}},
		{"write_file", map[string]any{"path": "file.txt/child.txt", "content": "x"}},
		{"write_file", map[string]any{"path": "target.txt", "content": "x", "expected_hash": "000000000000"}},
		{"edit_file", map[string]any{"path": "target.txt", "old_text": "old", "new_text": "x", "expected_hash": "000000000000"}},
		{"edit_file", map[string]any{"path": "target.txt", "old_text": "absent", "new_text": "x"}},
		{"create_directory", map[string]any{"path": "file.txt"}},
		{"create_directory", map[string]any{"path": "file.txt/deeper/still"}},
	}
	for _, c := range calls {
		var rec recorder
		if _, err := tryCall(t, e, c.tool, c.args, rec.hooks(true)); err == nil {
			t.Errorf("%s(%v) succeeded", c.tool, c.args)
		}
		if len(rec.requests)+len(rec.events) != 0 {
			t.Errorf("%s(%v) announced or emitted: %v %v", c.tool, c.args, rec.requests, rec.events)
		}
	}
}

func TestPermissionRules_Interrupt(t *testing.T) {
	rule := schema.PermissionRule{Operations: []string{"write"}, Paths: []string{"/guarded/**"}, Mode: "interrupt"}
	fx := makeFixture(t, "guarded/a.txt: old\n", "free.txt: old\n")
	e := fx.engine(schema.Config{Permissions: []schema.PermissionRule{rule,
		{Operations: []string{"read", "write"}, Paths: []string{"/secret*"}, Mode: "deny"}}})

	// No change-request hook: an interrupt rule is a denial, and nothing else asks.
	_, err := tryCall(t, e, "write_file", map[string]any{"path": "guarded/a.txt", "content": "x"}, Hooks{})
	wantKind(t, "interrupt without client", err, "permission_denied")
	mustCall(t, e, "write_file", map[string]any{"path": "free.txt", "content": "x"}, Hooks{})

	var rec recorder
	mustCall(t, e, "write_file", map[string]any{"path": "guarded/a.txt", "content": "new"}, Hooks{ChangeRequest: rec.hooks(true).ChangeRequest})
	if len(rec.requests) != 1 || rec.requests[0].Reason != "permission_rule" || rec.requests[0].Rule == nil || rec.requests[0].Rule.Mode != "interrupt" {
		t.Fatalf("requests = %+v", rec.requests)
	}
	if fx.read("guarded/a.txt") != "new" {
		t.Errorf("approved change not applied")
	}
	// /x/** covers /x itself.
	_, err = tryCall(t, e, "create_directory", map[string]any{"path": "guarded"}, Hooks{})
	if err != nil {
		t.Errorf("existing directory needs no change: %v", err)
	}
	_, err = tryCall(t, e, "read_file", map[string]any{"path": "secret.txt"}, Hooks{})
	wantKind(t, "read secret.txt", err, "permission_denied")
	// Doublestar: "*" stops at "/", so /secret* does not cover secrets/x.
	_, err = tryCall(t, e, "read_file", map[string]any{"path": "secrets/x"}, Hooks{})
	wantKind(t, "read secrets/x", err, "not_found")
}

func TestWriteFile_SameExpectedHashExactlyOneWins(t *testing.T) {
	fx := makeFixture(t, "f.txt: base\n")
	e := fx.engine(schema.Config{})
	h := text.ContentHash([]byte("base\n"))
	const writers = 16
	var wg sync.WaitGroup
	errs := make([]*Error, writers)
	start := make(chan struct{})
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, errs[i] = tryCall(t, e, "write_file", map[string]any{"path": "f.txt", "content": strings.Repeat("w", i+1), "expected_hash": "hash:" + h}, Hooks{})
		}()
	}
	close(start)
	wg.Wait()
	wins := 0
	for _, err := range errs {
		switch {
		case err == nil:
			wins++
		case err.Kind != "stale_hash":
			t.Errorf("loser failed with %s: %s", err.Kind, err.Msg)
		}
	}
	if wins != 1 {
		t.Errorf("%d writers won; want exactly 1", wins)
	}
}

func TestWriteFile_StaleHash(t *testing.T) {
	fx := makeFixture(t, "f.txt: base\n", `crlf.txt: alpha\r\nbeta\r\n`)
	e := fx.engine(schema.Config{})
	_, err := tryCall(t, e, "write_file", map[string]any{"path": "f.txt", "content": "x", "expected_hash": "000000000000"}, Hooks{})
	wantKind(t, "stale", err, "stale_hash")
	want := "Conflict: file 'f.txt' has changed (expected hash:000000000000, got hash:" + text.ContentHash([]byte("base\n")) + "). Re-read the file and retry."
	if err.Msg != want || fx.read("f.txt") != "base\n" {
		t.Errorf("msg %q, file %q", err.Msg, fx.read("f.txt"))
	}
	_, err = tryCall(t, e, "write_file", map[string]any{"path": "f.txt", "content": "x", "expected_hash": "zz"}, Hooks{})
	// A malformed hash on an existing file is the usual conflict (TestMalformedExpectedHash).
	wantKind(t, "malformed hash", err, "stale_hash")
	_, err = tryCall(t, e, "write_file", map[string]any{"path": "zz.txt", "content": "x", "expected_hash": "zz"}, Hooks{})
	wantKind(t, "malformed hash on a new file", err, "invalid_arguments")
	// A create ignores expected_hash.
	mustCall(t, e, "write_file", map[string]any{"path": "new.txt", "content": "x", "expected_hash": "000000000000"}, Hooks{})
	// The hash read_file shows for a CRLF file is accepted by write and edit; bytes stay exact.
	rd := mustCall(t, e, "read_file", map[string]any{"path": "crlf.txt"}, Hooks{}).(*schema.ReadFileResult)
	ed := mustCall(t, e, "edit_file", map[string]any{"path": "crlf.txt", "old_text": "alpha", "new_text": "ALPHA", "expected_hash": rd.Hash}, Hooks{}).(*schema.EditFileResult)
	if fx.read("crlf.txt") != "ALPHA\r\nbeta\r\n" {
		t.Errorf("crlf.txt = %q", fx.read("crlf.txt"))
	}
	rd2 := mustCall(t, e, "read_file", map[string]any{"path": "crlf.txt"}, Hooks{}).(*schema.ReadFileResult)
	if rd2.Hash != ed.Hash {
		t.Errorf("edit hash %s, read hash %s", ed.Hash, rd2.Hash)
	}
	mustCall(t, e, "write_file", map[string]any{"path": "crlf.txt", "content": "x\r\n", "expected_hash": rd2.Hash}, Hooks{})
}

func TestEvents(t *testing.T) {
	fx := makeFixture(t, "target.txt: hello\n", "sub/", `bin.dat: hello\0world`)
	e := fx.engine(schema.Config{ContentHashes: new(bool)})
	var rec recorder
	mustCall(t, e, "read_file", map[string]any{"path": "sub/../target.txt", "offset": 0, "limit": 1}, rec.hooks(false))
	mustCall(t, e, "read_file", map[string]any{"path": "bin.dat"}, rec.hooks(false))
	mustCall(t, e, "write_file", map[string]any{"path": "w.txt", "content": "new\n"}, rec.hooks(false))
	tryCall(t, e, "read_file", map[string]any{"path": "target.txt", "offset": 9}, rec.hooks(false))
	tryCall(t, e, "write_file", map[string]any{"path": ".env", "content": "x"}, rec.hooks(false))
	want := []any{
		&schema.FileReadEvent{EventBase: schema.EventBase{Kind: schema.KindFileRead, Path: "target.txt", RootDir: fx.root, Tool: "read_file"}, ContentHash: text.ContentHash([]byte("hello\n"))},
		&schema.FileReadEvent{EventBase: schema.EventBase{Kind: schema.KindFileRead, Path: "bin.dat", RootDir: fx.root, Tool: "read_file"}, ContentHash: text.ContentHash([]byte("hello\x00world"))},
		&schema.FileWrittenEvent{EventBase: schema.EventBase{Kind: schema.KindFileWritten, Path: "w.txt", RootDir: fx.root, Tool: "write_file"}, ContentHash: text.ContentHash([]byte("new\n"))},
	}
	if len(rec.events) != len(want) {
		t.Fatalf("events = %d; want %d", len(rec.events), len(want))
	}
	for i := range want {
		if g, w := jsonOf(rec.events[i]), jsonOf(want[i]); g != w {
			t.Errorf("event %d = %s; want %s", i, g, w)
		}
	}
}

// Calls changing one file are serialised for their whole course, so edits without expected_hash
// never lose to each other: each reads what the previous one wrote. Half go through a symlink,
// which must share the lock of its target.
func TestEditFile_ConcurrentEditsAllLand(t *testing.T) {
	const n = 16
	var lines []string
	for i := range n {
		lines = append(lines, fmt.Sprintf("line %02d", i))
	}
	fx := makeFixture(t, "f.txt: "+strings.Join(lines, "\n")+"\n", "alias.txt => f.txt")
	e := fx.engine(schema.Config{})
	var wg sync.WaitGroup
	errs := make([]*Error, n)
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			path := "f.txt"
			if i%2 == 1 {
				path = "alias.txt"
			}
			_, errs[i] = tryCall(t, e, "edit_file", map[string]any{"path": path, "old_text": lines[i] + "\n", "new_text": strings.ToUpper(lines[i]) + "\n"}, Hooks{})
		}()
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("edit %d failed: %s %s", i, err.Kind, err.Msg)
		}
	}
	if got, want := fx.read("f.txt"), strings.ToUpper(strings.Join(lines, "\n"))+"\n"; got != want {
		t.Errorf("file = %q; want every edit applied", got)
	}
}
