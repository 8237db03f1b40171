//go:build linux && (amd64 || arm64)

package engine

import (
	"os"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// TestRootDeletedIsNotFound deletes the root under a running engine: every tool, walkers
// included, answers not_found (a deleted directory still lists, empty, through the os.Root's
// descriptor, so walkers used to answer "No matches found.").
func TestRootDeletedIsNotFound(t *testing.T) {
	fx := makeFixture(t, "a.txt: x\n")
	e := fx.engine(schema.Config{})
	if err := os.RemoveAll(fx.root); err != nil {
		t.Fatal(err)
	}
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"search_files", map[string]any{"pattern": "x"}},
		{"find_files", map[string]any{"pattern": "*"}},
		{"list_directory", map[string]any{"path": "."}},
		{"read_file", map[string]any{"path": "a.txt"}},
		{"file_info", map[string]any{"path": "."}},
	}
	for _, c := range calls {
		res, err := tryCall(t, e, c.tool, c.args, Hooks{})
		if err == nil || err.Kind != schema.KindNotFound {
			t.Errorf("%s after the root was deleted = %q, %v; want not_found", c.tool, resultText(res), err)
		}
	}
}
