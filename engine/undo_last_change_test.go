package engine

import (
	"os"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// TestUndoLastChange: the opt-in tool takes back the latest call's files, then the one before,
// and leaves a file someone else changed alone.
func TestUndoLastChange(t *testing.T) {
	fx := makeFixture(t, "a.txt: a\n", "b.txt: b\n")
	e, _ := journalEngine(t, fx, nil, nil)
	mustCall(t, e, "write_file", map[string]any{"path": "a.txt", "content": "a2\n"}, Hooks{})
	mustCall(t, e, "apply_patch", map[string]any{"input": "*** Begin Patch\n*** Update File: a.txt\n@@\n-a2\n+a3\n*** Update File: b.txt\n@@\n-b\n+b2\n*** End Patch\n"}, Hooks{})
	res := mustCall(t, e, "undo_last_change", map[string]any{}, Hooks{}).(*schema.UndoLastChangeResult)
	if fx.read("a.txt") != "a2\n" || fx.read("b.txt") != "b\n" || len(res.Paths) != 2 {
		t.Fatalf("first undo: %q, a %q b %q", res.Text, fx.read("a.txt"), fx.read("b.txt"))
	}
	mustCall(t, e, "undo_last_change", map[string]any{}, Hooks{})
	if fx.read("a.txt") != "a\n" {
		t.Fatalf("second undo: a %q", fx.read("a.txt"))
	}
	mustCall(t, e, "write_file", map[string]any{"path": "a.txt", "content": "model\n"}, Hooks{})
	os.WriteFile(fx.abs("a.txt"), []byte("human\n"), 0o644)
	res = mustCall(t, e, "undo_last_change", map[string]any{}, Hooks{}).(*schema.UndoLastChangeResult)
	if fx.read("a.txt") != "human\n" || !strings.Contains(res.Text, "Not undone: a.txt") {
		t.Errorf("undo over a human's change: %q, a %q", res.Text, fx.read("a.txt"))
	}
	e2, err := New(schema.Config{RootDir: fx.root, Tools: []string{"undo_last_change"}}, Options{})
	if err != nil || !e2.Journaling() {
		t.Fatalf("undo_last_change without journal config: want a private journal, got %v", err)
	}
	e2.Close()
}
