package engine

import (
	"os"
	"testing"
	"time"

	"github.com/fsbox/fsbox/engine/internal/commit"
	"github.com/fsbox/fsbox/schema"
)

// TestInPlaceWriteBeforeRenameIsStale writes the target in place (same inode, as an editor
// that takes no lock may) after a guarded change checked its hash and before the rename: the
// identity check right before the rename sees the new size or modification time, and the change
// fails stale_hash instead of overwriting that write.
func TestInPlaceWriteBeforeRenameIsStale(t *testing.T) {
	cases := []struct {
		name  string
		write func(path string)
	}{
		{"new size", func(p string) { os.WriteFile(p, []byte("an editor's longer content\n"), 0o644) }},
		{"same size, new time", func(p string) {
			os.WriteFile(p, []byte("EDITOR\n"), 0o644)
			past := time.Now().Add(-time.Hour)
			os.Chtimes(p, past, past)
		}},
	}
	for _, c := range cases {
		for _, tool := range []string{"edit_file", "write_file"} {
			t.Run(c.name+"/"+tool, func(t *testing.T) {
				fx := makeFixture(t, "d/f.txt: before\n")
				e := fx.engine(schema.Config{})
				h := mustCall(t, e, "read_file", map[string]any{"path": "d/f.txt"}, Hooks{}).(*schema.ReadFileResult).Hash
				commit.TestHookCommit = func(stage string) {
					if stage == "before-rename" {
						c.write(fx.abs("d/f.txt"))
					}
				}
				defer func() { commit.TestHookCommit = nil }()
				args := map[string]any{"path": "d/f.txt", "expected_hash": h, "old_text": "before", "new_text": "after"}
				if tool == "write_file" {
					args = map[string]any{"path": "d/f.txt", "expected_hash": h, "content": "after\n"}
				}
				_, err := tryCall(t, e, tool, args, Hooks{})
				wantKind(t, tool, err, schema.KindStaleHash)
				if got := fx.read("d/f.txt"); got == "after\n" || got == "before\n" {
					t.Errorf("the in-place write was overwritten: %q", got)
				}
				if got := tempsIn(t, fx.abs("d")); len(got) != 0 {
					t.Errorf("temporary files left: %v", got)
				}
			})
		}
	}
}

// tempsIn returns the names in dir of the exact temporary-file form.
func tempsIn(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, en := range entries {
		if _, ok := commit.ParseTempName(en.Name()); ok {
			names = append(names, en.Name())
		}
	}
	return names
}
