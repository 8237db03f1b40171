package engine

import (
	"strings"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// TestWalkers_SymlinkSwapRace flips a directory between the real thing, a symlink to the outside
// and a symlink to a denied directory, while every walker runs over the root and over the
// directory itself and below it. No walker may ever show a name or a line from outside the root
// or from the denied directory: walk roots and link targets are opened component by component
// from the root's descriptor with O_NOFOLLOW, entries relative to their directory's descriptor,
// and a walk root that changed after its resolution is refused. (Resolving "dir/sub" checks
// "dir" and then "dir/sub" with two Lstats, so "dir" can be swapped in between; only the
// descriptor walk at open time makes the check hold.)
func TestWalkers_SymlinkSwapRace(t *testing.T) {
	fx := makeFixture(t, "dir/f.txt: inside\n", "dir/sub/g.txt: inside\n",
		"private/sub/OUTSIDE_OR_PRIVATE_NAME.txt: PRIVATE\n", "private/OUTSIDE_OR_PRIVATE_NAME.txt: PRIVATE\n", "$OUTSIDE/OUTSIDE_OR_PRIVATE_NAME.txt: OUTSIDE\n")
	e := fx.engine(allWalkers(schema.Config{DeniedPatterns: &[]string{"private"}}))
	forbidden := []string{"OUTSIDE", "PRIVATE"}

	stopFlipping := flipDirectory(fx, "dir", fx.outside, "private")
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"list_directory", map[string]any{"path": "dir/sub"}}, {"search_files", map[string]any{"pattern": ".", "path": "dir/sub"}}, {"directory_tree", map[string]any{"path": "dir/sub"}}, {"find_files", map[string]any{"pattern": "*", "path": "dir/sub"}},
		{"directory_tree", map[string]any{}},
		{"search_files", map[string]any{"pattern": "."}},
		{"search_files", map[string]any{"pattern": ".", "path": "dir"}},
		{"find_files", map[string]any{"pattern": "**"}},
		{"find_files", map[string]any{"pattern": "dir/**"}},
	}
	// Half the rounds list ahead and stat in parallel, as on a machine with more cores.
	defer func(p int) { minParallelWalkProcs = p }(minParallelWalkProcs)
	for i := range 300 {
		if i%2 == 0 {
			minParallelWalkProcs = 1
		} else {
			minParallelWalkProcs = 1 << 20
		}
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
	stopFlipping()
}
