package engine

import (
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// TestWalkers_SymlinkSwapRace flips a directory between the real thing, a symlink to the outside
// and a symlink to a denied directory, while every walker runs over the root and over the
// directory itself. No walker may ever show a name or a line from outside the root or from the
// denied directory: entries are opened relative to directory descriptors with O_NOFOLLOW, and a
// walk root that changed after its resolution is refused.
func TestWalkers_SymlinkSwapRace(t *testing.T) {
	fx := makeFixture(t, "dir/f.txt: inside\n", "dir/sub/g.txt: inside\n",
		"private/OUTSIDE_OR_PRIVATE_NAME.txt: PRIVATE\n", "$OUTSIDE/OUTSIDE_OR_PRIVATE_NAME.txt: OUTSIDE\n")
	e := fx.engine(allWalkers(schema.Config{DeniedPatterns: []string{"private"}}))
	forbidden := []string{"OUTSIDE", "PRIVATE"}

	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		targets := []string{fx.outside, "private"}
		for i := 0; !stop.Load(); i++ {
			if err := os.Rename(fx.abs("dir"), fx.abs("dir.real")); err != nil {
				continue
			}
			os.Symlink(targets[i%2], fx.abs("dir"))
			os.Remove(fx.abs("dir"))
			os.Rename(fx.abs("dir.real"), fx.abs("dir"))
		}
	}()
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"list_directory", map[string]any{"path": "dir"}},
		{"directory_tree", map[string]any{}},
		{"search_files", map[string]any{"pattern": "."}},
		{"search_files", map[string]any{"pattern": ".", "path": "dir"}},
		{"find_files", map[string]any{"pattern": "**"}},
		{"find_files", map[string]any{"pattern": "dir/**"}},
	}
	for range 300 {
		for _, c := range calls {
			res, err := tryCall(t, e, c.tool, c.args, Hooks{})
			text := resultText(res)
			if err != nil {
				text = err.Msg
				if !err.Retry() {
					t.Errorf("%s: fatal %s: %s", c.tool, err.Kind, err.Msg)
				}
			}
			for _, f := range forbidden {
				if strings.Contains(text, f) {
					t.Fatalf("%s(%v) showed %q:\n%s", c.tool, c.args, f, text)
				}
			}
		}
	}
	stop.Store(true)
	wg.Wait()
}
