package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

func treeOf(t *testing.T, e *Engine, args map[string]any) *schema.DirectoryTreeResult {
	t.Helper()
	return mustCall(t, e, "directory_tree", args, Hooks{}).(*schema.DirectoryTreeResult)
}

func TestDirectoryTree_DepthAndOrder(t *testing.T) {
	fx := makeFixture(t, "a/b/c/d.txt", "a/b.txt", "a.txt", "a0/x")
	e := fx.engine(allWalkers(schema.Config{}))
	res := treeOf(t, e, map[string]any{})
	want := "a/\na/b/\na/b/c/\na/b/c/d.txt  (12 bytes)\na/b.txt  (8 bytes)\na.txt  (6 bytes)\na0/\na0/x  (5 bytes)"
	if res.Text != want {
		t.Errorf("tree = %q; want %q", res.Text, want)
	}
	depths := []int{}
	for _, de := range res.Entries {
		depths = append(depths, de.Depth)
	}
	if fmt.Sprint(depths) != "[1 2 3 4 2 1 1 2]" {
		t.Errorf("depths %v", depths)
	}
	res = treeOf(t, e, map[string]any{"path": "a", "max_depth": 2})
	if res.Text != "a/b/\na/b/c/\na/b.txt  (8 bytes)" {
		t.Errorf("max_depth 2 = %q", res.Text)
	}
	if _, err := tryCall(t, e, "directory_tree", map[string]any{"max_depth": 0}, Hooks{}); err == nil || err.Kind != schema.KindInvalidArguments {
		t.Errorf("max_depth 0 = %v", err)
	}
}

func TestDirectoryTree_Cap(t *testing.T) {
	fx := makeFixture(t, "a/1", "a/2", "b/3")
	for _, tc := range []struct {
		cap       int
		truncated bool
	}{{4, true}, {5, false}} {
		e := fx.engine(allWalkers(schema.Config{MaxListResults: intp(tc.cap)}))
		res := treeOf(t, e, map[string]any{})
		if res.Truncated != tc.truncated || len(res.Entries) != min(tc.cap, 5) ||
			strings.HasSuffix(res.Text, fmt.Sprintf("[... truncated at %d entries]", tc.cap)) != tc.truncated {
			t.Errorf("cap %d: %q", tc.cap, res.Text)
		}
	}
}

func TestDirectoryTree_Symlinks(t *testing.T) {
	fx := makeFixture(t, seedTree...)
	fx.add("loop => .", "inner_dir => subdir", "escape => $OUTSIDE", "$OUTSIDE/secret.txt: x", "private/key.txt: x")
	e := fx.engine(allWalkers(schema.Config{DeniedPatterns: &[]string{"private"}}))
	res := treeOf(t, e, map[string]any{})
	for _, want := range []string{"loop/", "inner_dir/", "subdir/nested.py  (16 bytes)"} {
		if !strings.Contains(res.Text+"\n", want+"\n") {
			t.Errorf("tree lacks %q:\n%s", want, res.Text)
		}
	}
	for _, absent := range []string{"loop/hello.txt", "inner_dir/nested.py", "escape", "secret", "private", ".git", ".env"} {
		if strings.Contains(res.Text, absent) {
			t.Errorf("tree shows %q:\n%s", absent, res.Text)
		}
	}
	var rec recorder
	mustCall(t, e, "directory_tree", map[string]any{"path": "src"}, rec.hooks(false))
	ev, ok := rec.events[0].(*schema.DirectoryListedEvent)
	if len(rec.events) != 1 || !ok || ev.Path != "src" || ev.EntryCount != 3 || ev.Tool != "directory_tree" {
		t.Errorf("events %+v", rec.events)
	}
}
