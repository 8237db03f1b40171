package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

func TestFindFiles_Patterns(t *testing.T) {
	fx := makeFixture(t, seedTree...)
	fx.add(".github/workflows/ci.yml", ".github/workflows/ci.txt", "sub/.env: X=1\n", "we[ird]/x.txt", "src/a/.cache/c.go")
	e := fx.engine(schema.Config{})
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"pattern": "*.py"}, "No matches found."},
		{map[string]any{"pattern": "**/*.py"}, "subdir/nested.py\n[3 hidden entries omitted; name a hidden path explicitly to include it]"},
		{map[string]any{"pattern": "./**/./*.py"}, "subdir/nested.py\n[3 hidden entries omitted; name a hidden path explicitly to include it]"},
		{map[string]any{"pattern": "*.py", "path": "subdir"}, "subdir/nested.py"},
		{map[string]any{"pattern": "{hello,multi}.txt"}, "hello.txt\nmulti.txt"},
		{map[string]any{"pattern": "{hello,hello}.txt"}, "hello.txt"},
		{map[string]any{"pattern": "*/"}, "empty/\nsrc/\nsub/\nsubdir/\nwe[ird]/\n[2 hidden entries omitted; name a hidden path explicitly to include it]"},
		// Walk rule 2 / find rule 2: hidden only when the pattern names the dot.
		{map[string]any{"pattern": "*"}, "binary.bin\ncrlf.txt\nempty/\nhello.txt\nmulti.txt\nsrc/\nsub/\nsubdir/\nwe[ird]/\n[4 hidden entries omitted; name a hidden path explicitly to include it]"},
		// Walk rule 7: all hidden, so the notice alone; "**" counts the dot directories it skipped.
		{map[string]any{"pattern": "**/*.yml"}, "[3 hidden entries omitted; name a hidden path explicitly to include it]"},
		{map[string]any{"pattern": ".github/**/*.yml"}, ".github/workflows/ci.yml"},
		{map[string]any{"pattern": "**/*.txt", "path": ".github"}, ".github/workflows/ci.txt"},
		{map[string]any{"pattern": "**/.env"}, "[2 entries not shown: access rules deny them]"}, // denied by default: counted, not named
		{map[string]any{"pattern": "**/.env", "path": "sub"}, "[1 entry not shown: access rules deny it]"},
		{map[string]any{"pattern": "**/*.go"}, "src/a/deep.go\nsrc/b.go\n[3 hidden entries omitted; name a hidden path explicitly to include it]"},
		// The search path is not a match of its own "**".
		{map[string]any{"pattern": "**", "path": "src"}, "src/a/\nsrc/a/deep.go\nsrc/b.go\n[1 hidden entries omitted; name a hidden path explicitly to include it]"},
		// Metacharacters in the search path are literal.
		{map[string]any{"pattern": "*.txt", "path": "we[ird]"}, "we[ird]/x.txt"},
	} {
		if got := callText(t, e, "find_files", tc.args); got != tc.want {
			t.Errorf("find_files(%v) = %q; want %q", tc.args, got, tc.want)
		}
	}
}

func TestFindFiles_Errors(t *testing.T) {
	fx := makeFixture(t, seedTree...)
	e := fx.engine(schema.Config{})
	for _, tc := range []struct {
		args map[string]any
		kind schema.ErrorKind
		msg  string
	}{
		{map[string]any{"pattern": "/etc/*"}, schema.KindInvalidPattern, "must be relative to the search path"},
		{map[string]any{"pattern": "."}, schema.KindInvalidPattern, "not a valid glob pattern"},
		{map[string]any{"pattern": ".."}, schema.KindInvalidPattern, "not a valid glob pattern"},
		{map[string]any{"pattern": "a/../b"}, schema.KindInvalidPattern, "not a valid glob pattern"},
		{map[string]any{"pattern": ""}, schema.KindInvalidPattern, "not a valid glob pattern"},
		{map[string]any{"pattern": "/"}, schema.KindInvalidPattern, "must be relative"},
		{map[string]any{"pattern": "[a"}, schema.KindInvalidPattern, "not a valid glob pattern"},
		{map[string]any{"pattern": "*", "path": "hello.txt"}, schema.KindNotADirectory, "Not a directory: hello.txt"},
		{map[string]any{"pattern": "*", "path": "nope"}, schema.KindNotFound, "nope"},
		{map[string]any{"pattern": "*", "path": "../x"}, schema.KindOutsideRoot, ""},
	} {
		_, err := tryCall(t, e, "find_files", tc.args, Hooks{})
		wantKind(t, fmt.Sprintf("find_files(%v)", tc.args), err, tc.kind)
		if !strings.Contains(err.Msg, tc.msg) {
			t.Errorf("find_files(%v) message %q lacks %q", tc.args, err.Msg, tc.msg)
		}
	}
}

func TestFindFiles_Cap(t *testing.T) {
	fx := makeFixture(t)
	for i := range 10 {
		fx.add(fmt.Sprintf("d/f%d.txt", i))
	}
	e := fx.engine(schema.Config{MaxFindResults: intp(3)})
	var rec recorder
	res := mustCall(t, e, "find_files", map[string]any{"pattern": "**/*.txt"}, rec.hooks(false)).(*schema.FindFilesResult)
	if res.Text != "d/f0.txt\nd/f1.txt\nd/f2.txt\n[... truncated at 3 matches]" || !res.Truncated {
		t.Errorf("cap 3 of 10: %q", res.Text)
	}
	ev := rec.events[0].(*schema.FilesSearchedEvent)
	if ev.Search != "find" || ev.MatchCount != 3 || !ev.Truncated || ev.Pattern != "**/*.txt" || ev.Path != "." {
		t.Errorf("event %+v", ev)
	}
	e = fx.engine(schema.Config{MaxFindResults: intp(10)})
	if got := callText(t, e, "find_files", map[string]any{"pattern": "d/*"}); strings.Contains(got, "truncated") || strings.Count(got, "\n") != 9 {
		t.Errorf("exactly at the cap: %q", got)
	}
}

// TestFindFiles_Symlinks covers walk rules 3 and 4 and find rule 3.
func TestFindFiles_Symlinks(t *testing.T) {
	fx := makeFixture(t, seedTree...)
	fx.add(
		"$OUTSIDE/secret.txt: escaped!\n",
		"escape_dir => $OUTSIDE",
		"escape_link.txt => $OUTSIDE/secret.txt",
		"inner_dir => subdir",
		"loop => .",
		"dangling.txt => gone.txt",
		"self => self",
		"creds.secret: x",
		"alias.txt => creds.secret",
	)
	e := fx.engine(schema.Config{DeniedPatterns: &[]string{"*.secret"}})
	got := callText(t, e, "find_files", map[string]any{"pattern": "**"})
	for _, want := range []string{"subdir/nested.py", "inner_dir/", "loop/"} {
		if !strings.Contains(got+"\n", want+"\n") {
			t.Errorf("find ** lacks %q:\n%s", want, got)
		}
	}
	for _, absent := range []string{"secret", "escape", "inner_dir/nested.py", "loop/hello.txt", "dangling", "self", "alias.txt"} {
		if strings.Contains(got, absent) {
			t.Errorf("find ** shows %q:\n%s", absent, got)
		}
	}
	if got := callText(t, e, "find_files", map[string]any{"pattern": "**/*.txt"}); strings.Count(got, "hello.txt") != 1 {
		t.Errorf("loop duplicated matches:\n%s", got)
	}
	// A literal component may name an in-root directory link (find rule 3).
	if got := callText(t, e, "find_files", map[string]any{"pattern": "inner_dir/*.py"}); got != "inner_dir/nested.py" {
		t.Errorf("inner_dir/*.py = %q", got)
	}
	if got := callText(t, e, "find_files", map[string]any{"pattern": "escape_dir/*"}); got != "No matches found." {
		t.Errorf("escape_dir/* = %q", got)
	}
	if got := callText(t, e, "find_files", map[string]any{"pattern": "*.py", "path": "inner_dir"}); got != "inner_dir/nested.py" {
		t.Errorf("find in inner_dir = %q", got)
	}
}

func TestFindFiles_Patterns_DeniedAndAllowed(t *testing.T) {
	fx := makeFixture(t, "keep.py", "skip.md", "sub/x.py", "private/secret.txt")
	e := fx.engine(schema.Config{AllowedPatterns: []string{"*.py"}, DeniedPatterns: &[]string{"private"}})
	if got := callText(t, e, "find_files", map[string]any{"pattern": "**"}); got != "keep.py\nsub/x.py\n[3 entries not shown: access rules deny them]" { // skip.md, sub/, private/
		t.Errorf("find ** = %q", got)
	}
}

// TestFindFiles_ManyGlobstars: twenty "**" components over twenty nested directories finish
// (doublestar walks, it does not backtrack over C(40,20) splits).
func TestFindFiles_ManyGlobstars(t *testing.T) {
	fx := makeFixture(t, strings.Repeat("d/", 20)+"deep.txt")
	e := fx.engine(schema.Config{})
	stars := strings.Repeat("**/", 20)
	if got := callText(t, e, "find_files", map[string]any{"pattern": stars + "*.md"}); got != "No matches found." {
		t.Errorf("*.md = %q", got)
	}
	if got := callText(t, e, "find_files", map[string]any{"pattern": stars + "*.txt"}); got != strings.Repeat("d/", 20)+"deep.txt" {
		t.Errorf("*.txt = %q", got)
	}
}

// TestFindFiles_WalkCut: a pattern that makes doublestar list directories over and over stops at
// the listing budget with a notice and a truncated result (find rule 5).
func TestFindFiles_WalkCut(t *testing.T) {
	defer func(n int) { maxFindDirReads = n }(maxFindDirReads)
	maxFindDirReads = 50
	fx := makeFixture(t, strings.Repeat("d/", 12)+"deep.txt")
	e := fx.engine(schema.Config{})
	res := mustCall(t, e, "find_files", map[string]any{"pattern": strings.Repeat("**/d/", 5) + "*.txt"}, Hooks{}).(*schema.FindFilesResult)
	if !res.Truncated || !strings.HasSuffix(res.Text, "[... walk cut short after 50 directory listings; narrow the path or the pattern]") {
		t.Errorf("result %q truncated=%v", res.Text, res.Truncated)
	}
}

func TestComparePaths(t *testing.T) {
	sorted := []string{"a", "a/b", "a/b/c", "a.txt", "a0", "b", "é"}
	for i := range sorted {
		for j := range sorted {
			got := comparePaths(sorted[i], sorted[j])
			if (got < 0) != (i < j) || (got == 0) != (i == j) {
				t.Errorf("comparePaths(%q, %q) = %d", sorted[i], sorted[j], got)
			}
		}
	}
}
