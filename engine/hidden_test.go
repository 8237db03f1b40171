package engine

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// Walk rules 2, 3 and 7: every walker says how many entries it left out and why, counts
// access-hidden entries without naming them, and tells an empty directory from one whose entries
// are all hidden.

const dotNotice = " hidden entries omitted; name a hidden path explicitly to include it]"

// hiddenOf returns the typed counts of a walker's result.
func hiddenOf(t *testing.T, res any) schema.HiddenCounts {
	t.Helper()
	b, _ := json.Marshal(res)
	var v struct {
		Hidden *schema.HiddenCounts `json:"hidden"`
	}
	if err := json.Unmarshal(b, &v); err != nil || v.Hidden == nil {
		t.Fatalf("result has no hidden counts: %s", b)
	}
	return *v.Hidden
}

// withoutHidden drops the hidden-entry notices from a walker's text, for tests about something else.
func withoutHidden(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	for _, l := range lines {
		if strings.HasSuffix(l, dotNotice) || strings.HasSuffix(l, " not shown: access rules deny them]") || l == "[1 entry not shown: access rules deny it]" {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

func TestHidden_ListDotEntries(t *testing.T) {
	fx := makeFixture(t, "a.txt: a", "sub/b.txt: bb", ".hidden: h", ".github/ci.yml: x", "empty/", "dots/.x: x", "dots/.y: y")
	e := fx.engine(allWalkers(schema.Config{}))
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
		dot  int
	}{
		// The wording is pydantic-ai-harness 0.62's.
		{"list_directory", map[string]any{}, "a.txt  (1 bytes)\ndots/\nempty/\nsub/\n[2" + dotNotice, 2},
		{"list_directory", map[string]any{"path": "dots"}, "[2" + dotNotice, 2},
		{"list_directory", map[string]any{"path": "empty"}, "(empty directory)", 0},
		{"directory_tree", map[string]any{"path": "dots"}, "[2" + dotNotice, 2},
		{"directory_tree", map[string]any{"path": "empty"}, "(empty directory)", 0},
		{"directory_tree", map[string]any{}, "a.txt  (1 bytes)\ndots/\nempty/\nsub/\nsub/b.txt  (2 bytes)\n[4" + dotNotice, 4},
		// Named by path: shown, nothing hidden.
		{"list_directory", map[string]any{"path": ".github"}, ".github/ci.yml  (1 bytes)", 0},
		{"search_files", map[string]any{"pattern": "x", "path": "dots"}, "No matches found.\n[2" + dotNotice, 2},
		{"search_files", map[string]any{"pattern": "zzz", "path": "empty"}, "No matches found.", 0},
	} {
		res := mustCall(t, e, tc.tool, tc.args, Hooks{})
		if got := resultText(res); got != tc.want {
			t.Errorf("%s(%v) = %q; want %q", tc.tool, tc.args, got, tc.want)
		}
		if h := hiddenOf(t, res); h != (schema.HiddenCounts{Dot: tc.dot}) {
			t.Errorf("%s(%v) hidden = %+v; want dot %d", tc.tool, tc.args, h, tc.dot)
		}
	}
}

func TestHidden_FindDot(t *testing.T) {
	fx := makeFixture(t, "a.py", ".venv/x.py", ".env.py", ".rc", "src/b.py", "src/.cache/c", "src/.tool")
	e := fx.engine(schema.Config{})
	for _, tc := range []struct {
		pattern string
		want    string
		dot     int
	}{
		// .venv and src/.cache are dot directories "**" would enter; .env.py a dot file "*.py" would
		// match; .rc and src/.tool neither.
		{"**/*.py", "a.py\nsrc/b.py\n[3" + dotNotice, 3},
		{"*.py", "a.py\n[1" + dotNotice, 1},
		{"src/**", "src/\nsrc/b.py\n[2" + dotNotice, 2},
		{"*.go", "No matches found.", 0},
		{"**/*.go", "[2" + dotNotice, 2}, // .venv and src/.cache: all hidden, the notice alone
		// A pattern naming the dot shows dot entries and counts none.
		{".venv/*.py", ".venv/x.py", 0},
	} {
		res := mustCall(t, e, "find_files", map[string]any{"pattern": tc.pattern}, Hooks{})
		if got := resultText(res); got != tc.want {
			t.Errorf("find_files %q = %q; want %q", tc.pattern, got, tc.want)
		}
		if h := hiddenOf(t, res); h != (schema.HiddenCounts{Dot: tc.dot}) {
			t.Errorf("find_files %q hidden = %+v; want dot %d", tc.pattern, h, tc.dot)
		}
	}
}

func TestHidden_AccessCountedNotNamed(t *testing.T) {
	fx := makeFixture(t, "a.txt: needle\n", "creds.secret: needle\n", "private/x.txt: needle\n", "keep/ok.txt: needle\n", "keep/k.secret: needle\n")
	e := fx.engine(allWalkers(schema.Config{DeniedPatterns: &[]string{"*.secret", "private"}}))
	for _, tc := range []struct {
		tool   string
		args   map[string]any
		want   string
		access int
	}{
		{"list_directory", map[string]any{}, "a.txt  (7 bytes)\nkeep/\n[2 entries not shown: access rules deny them]", 2},
		{"list_directory", map[string]any{"path": "keep"}, "keep/ok.txt  (7 bytes)\n[1 entry not shown: access rules deny it]", 1},
		{"directory_tree", map[string]any{}, "a.txt  (7 bytes)\nkeep/\nkeep/ok.txt  (7 bytes)\n[3 entries not shown: access rules deny them]", 3},
		{"search_files", map[string]any{"pattern": "needle"}, "a.txt:1:needle\nkeep/ok.txt:1:needle\n[3 entries not shown: access rules deny them]", 3},
		// private is not entered: the directory counts once, its contents not at all.
		{"find_files", map[string]any{"pattern": "**/*"}, "a.txt\nkeep/\nkeep/ok.txt\n[3 entries not shown: access rules deny them]", 3},
		{"find_files", map[string]any{"pattern": "*.secret", "path": "keep"}, "[1 entry not shown: access rules deny it]", 1},
	} {
		res := mustCall(t, e, tc.tool, tc.args, Hooks{})
		got := resultText(res)
		if got != tc.want {
			t.Errorf("%s(%v) = %q; want %q", tc.tool, tc.args, got, tc.want)
		}
		for _, name := range []string{"secret", "private"} {
			if strings.Contains(got, name) {
				t.Errorf("%s(%v) names a denied entry (%s): %q", tc.tool, tc.args, name, got)
			}
		}
		if h := hiddenOf(t, res); h != (schema.HiddenCounts{Access: tc.access}) {
			t.Errorf("%s(%v) hidden = %+v; want access %d", tc.tool, tc.args, h, tc.access)
		}
	}
}

// TestHidden_WithCaps: the notices follow the truncation and budget lines (counting the entries
// looked at before the cut: 0.secret and .h sort first).
func TestHidden_WithCaps(t *testing.T) {
	fx := makeFixture(t, "a.txt", "b.txt", "c.txt", ".h", "0.secret")
	deny := &[]string{"*.secret"}
	e := fx.engine(schema.Config{MaxListResults: intp(2), DeniedPatterns: deny})
	want := "a.txt  (6 bytes)\nb.txt  (6 bytes)\n[... truncated at 2 entries]\n[1" + dotNotice + "\n[1 entry not shown: access rules deny it]"
	if got := callText(t, e, "list_directory", map[string]any{}); got != want {
		t.Errorf("capped list = %q; want %q", got, want)
	}
	e = fx.engine(schema.Config{MaxOutputChars: intp(20), DeniedPatterns: deny})
	got := callText(t, e, "list_directory", map[string]any{})
	if !strings.HasPrefix(got, "a.txt  (6 bytes)\n[... truncated at 20 characters") || !strings.HasSuffix(got, "[1"+dotNotice+"\n[1 entry not shown: access rules deny it]") {
		t.Errorf("budgeted list = %q", got)
	}
}

// TestHidden_FindAlternatives: a directory named twice by alternatives counts its dot entries
// once, and a denied directory both matched and listed counts once.
func TestHidden_FindAlternatives(t *testing.T) {
	fx := makeFixture(t, "src/a.py", "src/.x.py", "lib/b.py", "private/c.py")
	e := fx.engine(schema.Config{DeniedPatterns: &[]string{"private"}})
	res := mustCall(t, e, "find_files", map[string]any{"pattern": "{src,lib,src}/*.py"}, Hooks{})
	if got, want := resultText(res), "lib/b.py\nsrc/a.py\n[1"+dotNotice; got != want {
		t.Errorf("find {src,lib,src}/*.py = %q; want %q", got, want)
	}
	res = mustCall(t, e, "find_files", map[string]any{"pattern": "**"}, Hooks{})
	if h := hiddenOf(t, res); h != (schema.HiddenCounts{Dot: 1, Access: 1}) { // src/.x.py, private
		t.Errorf("find ** hidden = %+v; want dot 1, access 1 (private matched and listed)", h)
	}
}
