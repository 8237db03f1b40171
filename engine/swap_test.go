package engine

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/fsbox/fsbox/engine/internal/commit"
	"github.com/fsbox/fsbox/engine/internal/text"
	"github.com/fsbox/fsbox/schema"
)

// TestSymlinkSwapRace flips a directory between the real thing, a symlink to the outside and a
// symlink to a denied directory inside the root, while reads, writes, edits and file_info loop
// on a file below it. Nothing outside the root and nothing in the denied directory may ever be
// read or written: containment holds at I/O time (os.Root) and the identity checks catch a
// redirection inside the root.
func TestSymlinkSwapRace(t *testing.T) {
	fx := makeFixture(t, "dir/f.txt: inside\n", "private/f.txt: PRIVATE\n", "$OUTSIDE/f.txt: OUTSIDE\n")
	e := fx.engine(schema.Config{DeniedPatterns: &[]string{"private"}})
	outsideBefore := snapshot(t, fx.outside)
	privateBefore := snapshot(t, fx.abs("private"))
	forbidden := []string{"OUTSIDE", "PRIVATE", text.ContentHash([]byte("OUTSIDE\n")), text.ContentHash([]byte("PRIVATE\n"))}

	stopFlipping := flipDirectory(fx, "dir", fx.outside, "private")

	const rounds = 1500
	var seen [4]int // successes per tool
	for i := 0; i < rounds; i++ {
		calls := []struct {
			tool string
			args map[string]any
		}{
			{"read_file", map[string]any{"path": "dir/f.txt"}},
			{"write_file", map[string]any{"path": "dir/f.txt", "content": fmt.Sprintf("inside %d\n", i)}},
			{"edit_file", map[string]any{"path": "dir/f.txt", "old_text": "inside", "new_text": "inside"}},
			{"file_info", map[string]any{"path": "dir/f.txt"}},
		}
		for k, c := range calls {
			res, err := tryCall(t, e, c.tool, c.args, Hooks{})
			text := resultText(res)
			if err != nil {
				text = err.Msg
				if err.Kind == "internal" || !err.Retry() {
					t.Errorf("%s: fatal %s: %s", c.tool, err.Kind, err.Msg)
				}
			} else {
				seen[k]++
			}
			for _, f := range forbidden {
				if strings.Contains(text, f) {
					t.Fatalf("%s leaked %q: %q", c.tool, f, text)
				}
			}
		}
	}
	flips := stopFlipping()
	t.Logf("%d flips; successes read/write/edit/info = %v", flips, seen)
	if after := snapshot(t, fx.outside); after != outsideBefore {
		t.Errorf("the outside directory changed:\n%s\n%s", outsideBefore, after)
	}
	if after := snapshot(t, fx.abs("private")); after != privateBefore {
		t.Errorf("the denied directory changed:\n%s\n%s", privateBefore, after)
	}
}

// TestCommitDetectsSwaps swaps a component at the exact points a race would hit (through
// commit.TestHookCommit) and checks the write is refused with nothing written anywhere.
func TestCommitDetectsSwaps(t *testing.T) {
	cases := []struct {
		name  string
		stage string
		swap  func(fx *fixture)
	}{
		{"parent becomes a link to a denied directory", "open-parent", func(fx *fixture) {
			os.Rename(fx.abs("dir"), fx.abs("dir.real"))
			os.Symlink("private", fx.abs("dir"))
		}},
		{"parent becomes a link outside", "open-parent", func(fx *fixture) {
			os.Rename(fx.abs("dir"), fx.abs("dir.real"))
			os.Symlink(fx.outside, fx.abs("dir"))
		}},
		{"parent replaced by another directory", "open-parent", func(fx *fixture) {
			os.Rename(fx.abs("dir"), fx.abs("dir.real"))
			os.Mkdir(fx.abs("dir"), 0o755)
			os.WriteFile(fx.abs("dir/f.txt"), []byte("impostor\n"), 0o644)
		}},
		{"target becomes a link to a denied file", "before-rename", func(fx *fixture) {
			os.Remove(fx.abs("dir/f.txt"))
			os.Symlink("../private/f.txt", fx.abs("dir/f.txt"))
		}},
		{"target replaced", "before-rename", func(fx *fixture) {
			os.WriteFile(fx.abs("dir/g.txt"), []byte("other\n"), 0o644)
			os.Rename(fx.abs("dir/g.txt"), fx.abs("dir/f.txt"))
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fx := makeFixture(t, "dir/f.txt: inside\n", "private/f.txt: PRIVATE\n", "$OUTSIDE/f.txt: OUTSIDE\n")
			e := fx.engine(schema.Config{DeniedPatterns: &[]string{"private"}})
			before := snapshot(t, fx.outside) + snapshot(t, fx.abs("private"))
			commit.TestHookCommit = func(stage string) {
				if stage == c.stage {
					c.swap(fx)
				}
			}
			defer func() { commit.TestHookCommit = nil }()
			_, err := tryCall(t, e, "write_file", map[string]any{"path": "dir/f.txt", "content": "new\n"}, Hooks{})
			wantKind(t, c.name, err, "changed_during_request")
			if after := snapshot(t, fx.outside) + snapshot(t, fx.abs("private")); after != before {
				t.Errorf("written outside or into the denied directory:\n%s\n%s", before, after)
			}
			if got := fx.read("dir.real/f.txt"); got != "inside\n" && got != "<missing>" {
				t.Errorf("dir.real/f.txt = %q", got)
			}
			for _, d := range []string{"dir", "dir.real", "private"} {
				entries, _ := os.ReadDir(fx.abs(d))
				for _, en := range entries {
					if strings.HasPrefix(en.Name(), ".fsbox-") {
						t.Errorf("temporary file left in %s: %s", d, en.Name())
					}
				}
			}
		})
	}
}

// flipDirectory swaps the fixture directory dir, in a loop until the returned stop function is
// called, between itself and a symlink to each of targets in turn (rename away, symlink, remove,
// rename back). stop waits for the loop to end and returns how many flips it made.
func flipDirectory(fx *fixture, dir string, targets ...string) (stop func() int64) {
	var done atomic.Bool
	var flips atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; !done.Load(); i++ {
			if err := os.Rename(fx.abs(dir), fx.abs(dir+".real")); err != nil {
				continue
			}
			os.Symlink(targets[i%len(targets)], fx.abs(dir))
			os.Remove(fx.abs(dir))
			os.Rename(fx.abs(dir+".real"), fx.abs(dir))
			flips.Add(1)
		}
	}()
	return func() int64 {
		done.Store(true)
		wg.Wait()
		return flips.Load()
	}
}
