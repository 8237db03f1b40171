package engine

import (
	"strings"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// TestSearchFileLinksOnce: search_files shows each file once: a file symlink whose target the
// walk reaches under its own path is skipped; one whose target it does not reach (outside the
// search path, hidden, not matching include_glob) is searched under the link's name.
func TestSearchFileLinksOnce(t *testing.T) {
	fx := makeFixture(t,
		"src/hello.py: print(1)\n", "alias.py => src/hello.py", "src/same.py => hello.py",
		"srclink => src", ".hidden/h.py: print(2)\n", "seen.py => .hidden/h.py",
		"other/o.txt: print(3)\n", "src/o.py => ../other/o.txt",
	)
	e := fx.engine(schema.Config{})
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"pattern": "print"}, "other/o.txt:1:print(3)\nseen.py:1:print(2)\nsrc/hello.py:1:print(1)"},
		{map[string]any{"pattern": "print", "path": "src"}, "src/hello.py:1:print(1)\nsrc/o.py:1:print(3)"},
		{map[string]any{"pattern": "print", "path": "srclink"}, "srclink/hello.py:1:print(1)\nsrclink/o.py:1:print(3)"},
		{map[string]any{"pattern": "print", "include_glob": "*.py"}, "seen.py:1:print(2)\nsrc/hello.py:1:print(1)\nsrc/o.py:1:print(3)"},
		{map[string]any{"pattern": "print", "include_glob": "alias*"}, "alias.py:1:print(1)"},
	} {
		if got := withoutHidden(resultText(mustCall(t, e, "search_files", c.args, Hooks{}))); got != c.want {
			t.Errorf("search_files %v:\n%s\nwant:\n%s", c.args, got, c.want)
		}
	}
}

// TestFindDirsOnlyShowsLinkedDirs: "*/" and "**/" match symlinked directories inside the root,
// which list_directory shows as directories (find rule 3), and still no files.
func TestFindDirsOnlyShowsLinkedDirs(t *testing.T) {
	fx := makeFixture(t, "src/a.py: x\n", "srclink => src", "src/inner => ../src", "f.txt: x\n", "flink => f.txt", "out => /")
	e := fx.engine(schema.Config{})
	list := resultText(mustCall(t, e, "list_directory", map[string]any{}, Hooks{}))
	var dirs []string
	for _, l := range strings.Split(list, "\n") {
		if strings.HasSuffix(l, "/") {
			dirs = append(dirs, l)
		}
	}
	if got, want := resultText(mustCall(t, e, "find_files", map[string]any{"pattern": "*/"}, Hooks{})), strings.Join(dirs, "\n"); got != want {
		t.Errorf("find_files */:\n%s\nlist_directory's directories:\n%s", got, want)
	}
	if got, want := resultText(mustCall(t, e, "find_files", map[string]any{"pattern": "**/"}, Hooks{})), "src/\nsrc/inner/\nsrclink/"; got != want {
		t.Errorf("find_files **/:\n%s\nwant:\n%s", got, want)
	}
}
