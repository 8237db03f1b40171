package engine

import (
	"os"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

var changeTools = []string{schema.ToolReadFile, schema.ToolRemoveDirectory, schema.ToolDelete, schema.ToolMoveFile, schema.ToolEditFile}

func exists(fx *fixture, name string) bool {
	_, err := os.Lstat(fx.abs(name))
	return err == nil
}

func TestDeleteFileAndLinks(t *testing.T) {
	fx := makeFixture(t, "a.txt: one\ntwo\n", "d/x", "$OUTSIDE/secret: s")
	fx.add("out => $OUTSIDE/secret", "outdir => $OUTSIDE", "in => a.txt")
	e := fx.engine(schema.Config{Tools: changeTools})
	var rec recorder
	mustCall(t, e, schema.ToolDelete, map[string]any{"path": "out"}, rec.hooks(false))
	mustCall(t, e, schema.ToolDelete, map[string]any{"path": "outdir", "recursive": true}, rec.hooks(false))
	mustCall(t, e, schema.ToolDelete, map[string]any{"path": "in"}, rec.hooks(false))
	if exists(fx, "out") || exists(fx, "outdir") || exists(fx, "in") || fx.read("$OUTSIDE/secret") != "s" || fx.read("a.txt") != "one\ntwo\n" {
		t.Fatal("delete of a link touched its target or left the link")
	}
	_, err := tryCall(t, e, schema.ToolDelete, map[string]any{"path": "d"}, rec.hooks(false))
	wantKind(t, "delete of a directory without recursive", err, schema.KindNotAFile)
	_, err = tryCall(t, e, schema.ToolDelete, map[string]any{"path": "outdir/secret"}, rec.hooks(false))
	wantKind(t, "delete through a removed link", err, schema.KindNotFound)
	_, err = tryCall(t, e, schema.ToolDelete, map[string]any{"path": "../outside/secret"}, rec.hooks(false))
	wantKind(t, "delete ../", err, schema.KindOutsideRoot)
	_, err = tryCall(t, e, schema.ToolDelete, map[string]any{"path": ".", "recursive": true}, rec.hooks(false))
	wantKind(t, "delete root", err, schema.KindInvalidArguments)

	rec = recorder{}
	rec.answer = func(*schema.FileChangeRequest) (bool, string, error) { return false, "no", nil }
	res := mustCall(t, e, schema.ToolDelete, map[string]any{"path": "a.txt"}, rec.hooks(true))
	if got := resultText(res); got != "['a.txt' was not deleted: no]" || !exists(fx, "a.txt") || len(rec.events) != 0 {
		t.Fatalf("refused delete: %q", got)
	}
	if r := rec.requests[0]; r.Operation != "delete" || r.Diff != "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +0,0 @@\n-one\n-two\n" {
		t.Fatalf("request %s", jsonOf(r))
	}
	rec = recorder{}
	mustCall(t, e, schema.ToolDelete, map[string]any{"path": "a.txt"}, rec.hooks(true))
	if exists(fx, "a.txt") || len(rec.events) != 1 || rec.events[0].(*schema.FileDeletedEvent).Path != "a.txt" {
		t.Fatalf("delete: events %s", jsonOf(rec.events))
	}
}

func TestDeleteTreeRefusesWholly(t *testing.T) {
	fx := makeFixture(t, "t/a", "t/sub/b", "t/sub/keep.lock", "t/sub/.x.secret: X=1", "u/a", "u/sub/b", "w/a", "w/deep/c")
	e := fx.engine(schema.Config{Tools: changeTools, ProtectedPatterns: &[]string{"*.lock"}, DeniedPatterns: &[]string{"*.secret"},
		Permissions: []schema.PermissionRule{{Operations: []string{"write"}, Paths: []string{"/w/deep/**"}, Mode: "interrupt"}}})
	var rec recorder
	_, err := tryCall(t, e, schema.ToolDelete, map[string]any{"path": "t", "recursive": true}, rec.hooks(false))
	wantKind(t, "delete of a tree with a protected file", err, schema.KindProtected)
	if !exists(fx, "t/a") || !exists(fx, "t/sub/b") || !exists(fx, "t/sub/keep.lock") {
		t.Fatal("a refused delete removed something")
	}
	os.Remove(fx.abs("t/sub/keep.lock"))
	_, err = tryCall(t, e, schema.ToolDelete, map[string]any{"path": "t", "recursive": true}, rec.hooks(false))
	wantKind(t, "delete of a tree with a denied file", err, schema.KindDenied)
	if !exists(fx, "t/a") || !exists(fx, "t/sub/.x.secret") {
		t.Fatal("a refused delete removed something")
	}
	// An interrupt rule on an entry inside fires for the whole tree.
	_, err = tryCall(t, e, schema.ToolDelete, map[string]any{"path": "w", "recursive": true}, rec.hooks(false))
	wantKind(t, "interrupt without change requests", err, schema.KindPermissionDenied)
	rec.answer = func(*schema.FileChangeRequest) (bool, string, error) { return false, "", nil }
	mustCall(t, e, schema.ToolDelete, map[string]any{"path": "w", "recursive": true}, rec.hooks(true))
	if len(rec.requests) != 1 || rec.requests[0].Reason != "permission_rule" || !exists(fx, "w/deep/c") {
		t.Fatalf("requests %s", jsonOf(rec.requests))
	}
	rec = recorder{}
	res := mustCall(t, e, schema.ToolDelete, map[string]any{"path": "u", "recursive": true}, rec.hooks(false))
	if exists(fx, "u") || res.(*schema.DeleteResult).Removed != 4 {
		t.Fatalf("tree not deleted: %s", jsonOf(res))
	}
	if ev := rec.events[0].(*schema.FileDeletedEvent); !ev.Recursive || ev.Path != "u" {
		t.Fatalf("event %s", jsonOf(ev))
	}
}

func TestDeleteTreeLimit(t *testing.T) {
	fx := makeFixture(t, "big/")
	for i := 0; i <= maxDeleteEntries; i++ {
		if err := os.WriteFile(fx.abs("big/"+itoa(i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e := fx.engine(schema.Config{Tools: changeTools})
	_, err := tryCall(t, e, schema.ToolDelete, map[string]any{"path": "big", "recursive": true}, Hooks{})
	wantKind(t, "delete of a huge tree", err, schema.KindTooManyEntries)
	if !exists(fx, "big/0") {
		t.Fatal("a refused delete removed something")
	}
}

func itoa(i int) string {
	b := []byte{}
	for {
		b = append([]byte{byte('0' + i%10)}, b...)
		if i /= 10; i == 0 {
			return string(b)
		}
	}
}

// TestDeleteTreeSwapRace swaps a subdirectory of the tree for a symlink to a denied directory
// and to the outside while recursive deletes run: nothing outside or denied is ever removed.
func TestDeleteTreeSwapRace(t *testing.T) {
	fx := makeFixture(t, "secret/keep", "$OUTSIDE/keep")
	e := fx.engine(schema.Config{Tools: changeTools, DeniedPatterns: &[]string{"secret"}})
	for round := 0; round < 200; round++ {
		fx.add("t/sub/a", "t/sub/b", "t/c")
		stop := flipDirectory(fx, "t/sub", fx.abs("secret"), fx.outside)
		tryCall(t, e, schema.ToolDelete, map[string]any{"path": "t", "recursive": true}, Hooks{})
		stop()
		if !exists(fx, "secret/keep") || !exists(fx, "$OUTSIDE/keep") {
			t.Fatalf("round %d: a racing delete removed a file outside the tree", round)
		}
		os.RemoveAll(fx.abs("t"))
		os.RemoveAll(fx.abs("t/sub.real"))
	}
}
