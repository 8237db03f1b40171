package engine

import (
	"os"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

func TestMoveFile(t *testing.T) {
	fx := makeFixture(t, "a: A", "b: B", "keep.lock: L", "d/x", "d/y.lock: Y", "e/x", "sub/", "$OUTSIDE/o: O")
	fx.add("out => $OUTSIDE/o", "sublink => sub")
	e := fx.engine(schema.Config{Tools: changeTools, ProtectedPatterns: &[]string{"*.lock", "ge/x"}})
	var rec recorder
	for _, c := range []struct {
		src, dst  string
		overwrite bool
		kind      schema.ErrorKind
	}{
		{"a", "b", false, schema.KindAlreadyExists},
		{"a", "keep.lock", true, schema.KindProtected},  // a protected destination
		{"keep.lock", "c", false, schema.KindProtected}, // a protected source
		{"a", "new.lock", false, schema.KindProtected},  // the destination's name is protected
		{"d", "moved", false, schema.KindProtected},     // a tree holding a protected file
		{"e", "ge", false, schema.KindProtected},        // a tree whose new paths are protected
		{"a", "../outside/a", false, schema.KindOutsideRoot},
		{"../outside/o", "o", false, schema.KindOutsideRoot},
		{"a", "missing/a", false, schema.KindParentMissing},
		{"a", "sub", true, schema.KindAlreadyExists}, // never over a directory
		{"e", "e/inner", false, schema.KindInvalidArguments},
		{"a", "a", false, schema.KindInvalidArguments},
		{".", "x", false, schema.KindInvalidArguments},
	} {
		_, err := tryCall(t, e, schema.ToolMoveFile, map[string]any{"source": c.src, "destination": c.dst, "overwrite": c.overwrite}, rec.hooks(false))
		wantKind(t, "move "+c.src+" -> "+c.dst, err, c.kind)
	}
	if fx.read("a") != "A" || fx.read("b") != "B" || fx.read("keep.lock") != "L" || !exists(fx, "d/y.lock") || len(rec.events) != 0 {
		t.Fatal("a refused move changed something")
	}
	rec.answer = func(*schema.FileChangeRequest) (bool, string, error) { return false, "not now", nil }
	res := mustCall(t, e, schema.ToolMoveFile, map[string]any{"source": "a", "destination": "c"}, rec.hooks(true))
	if resultText(res) != "['a' was not moved: not now]" || !exists(fx, "a") || exists(fx, "c") {
		t.Fatalf("refused move: %s", jsonOf(res))
	}
	if r := rec.requests[0]; r.Operation != "move" || r.Path != "c" || r.Diff != "diff --git a/a b/c\nrename from a\nrename to c\n" {
		t.Fatalf("request %s", jsonOf(r))
	}
	rec = recorder{}
	mustCall(t, e, schema.ToolMoveFile, map[string]any{"source": "a", "destination": "b", "overwrite": true}, rec.hooks(false))
	if exists(fx, "a") || fx.read("b") != "A" {
		t.Fatal("overwrite move did not land")
	}
	if ev := rec.events[0].(*schema.FileMovedEvent); ev.Path != "b" || ev.Source != "a" || ev.Kind != schema.KindFileMoved {
		t.Fatalf("event %s", jsonOf(ev))
	}
	// A symlink moves as a link; its outside target stays where it is.
	mustCall(t, e, schema.ToolMoveFile, map[string]any{"source": "out", "destination": "sublink/out2"}, rec.hooks(false))
	if exists(fx, "out") || !exists(fx, "sub/out2") || fx.read("$OUTSIDE/o") != "O" {
		t.Fatal("moving a link touched its target")
	}
	mustCall(t, e, schema.ToolMoveFile, map[string]any{"source": "e", "destination": "sub/e"}, rec.hooks(false))
	if !exists(fx, "sub/e/x") {
		t.Fatal("directory not moved")
	}
}

// TestMoveSwapRace swaps the destination's parent for a symlink to a denied directory and to the
// outside while moves run: no file ever lands outside the root or in the denied directory.
func TestMoveSwapRace(t *testing.T) {
	fx := makeFixture(t, "dst/", "secret/")
	e := fx.engine(schema.Config{Tools: changeTools, DeniedPatterns: &[]string{"secret"}})
	stop := flipDirectory(fx, "dst", "secret", fx.outside) // relative: os.Root would follow it
	for i := 0; i < 300; i++ {
		fx.add("src: s")
		tryCall(t, e, schema.ToolMoveFile, map[string]any{"source": "src", "destination": "dst/f"}, Hooks{})
		os.Remove(fx.abs("dst/f"))
		os.Remove(fx.abs("dst.real/f"))
	}
	stop()
	if exists(fx, "secret/f") || exists(fx, "$OUTSIDE/f") {
		t.Fatal("a racing move put a file outside the root or into a denied directory")
	}
}
