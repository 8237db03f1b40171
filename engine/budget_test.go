package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/fsbox/fsbox/engine/internal/text"
	"github.com/fsbox/fsbox/schema"
)

// allTools enables the opt-in tools too.
var allTools = []string{"read_file", "list_directory", "search_files", "find_files", "read_multiple_files", "directory_tree", "list_files", "grep"}

// noticeSlack is what budget rule 2 allows past max_output_chars: one closing notice.
const noticeSlack = 300

// wantWithin fails unless text is at most limit characters plus one notice.
func wantWithin(t *testing.T, what, text string, limit int) {
	t.Helper()
	if n := utf8.RuneCountInString(text); n > limit+noticeSlack {
		t.Errorf("%s: text is %d characters; budget %d (+%d for the notice)", what, n, limit, noticeSlack)
	}
}

func TestCutLine(t *testing.T) {
	long := strings.Repeat("a", 5000) + "NEEDLE" + strings.Repeat("b", 5000)
	got := text.CutLine([]byte(long), func(b []byte) []int { i := strings.Index(string(b), "NEEDLE"); return []int{i, i + 6} })
	want := strings.Repeat("a", 80) + "NEEDLE" + strings.Repeat("b", 164) + " [... line cut: showing chars 4921-5170 of 10006]"
	if got != want {
		t.Errorf("cutLine = %q\nwant %q", got, want)
	}
	// A match near the start shows the line's start; near the end, its end.
	got = text.CutLine([]byte("NEEDLE"+strings.Repeat("é", 600)), func([]byte) []int { return []int{0, 6} })
	if !strings.HasSuffix(got, " [... line cut: showing chars 1-250 of 606]") || !strings.HasPrefix(got, "NEEDLE") {
		t.Errorf("text.CutLine(start) = %q", got)
	}
	got = text.CutLine([]byte(strings.Repeat("x", 600)+"NEEDLE"), func([]byte) []int { return []int{600, 606} })
	if !strings.HasSuffix(got, "xNEEDLE [... line cut: showing chars 357-606 of 606]") {
		t.Errorf("text.CutLine(end) = %q", got)
	}
	// 250 characters are not cut, even when they are more bytes.
	if s := strings.Repeat("é", 250); text.CutLine([]byte(s), nil) != s {
		t.Error("a 250-character line was cut")
	}
}

// TestSearchFiles_LongLineCut: a 1 MB minified line is shown as 250 characters around the match,
// in the text and in the typed match, with the marker.
func TestSearchFiles_LongLineCut(t *testing.T) {
	fx := makeFixture(t, "app.min.js: "+strings.Repeat("var a=1;", 1<<17)+"function needle(){}"+strings.Repeat("b", 1000)+"\nneedle short\n")
	e := fx.engine(schema.Config{})
	res := mustCall(t, e, "search_files", map[string]any{"pattern": "needle"}, Hooks{}).(*schema.SearchFilesResult)
	if len(res.Matches) != 2 {
		t.Fatalf("matches = %d", len(res.Matches))
	}
	m := res.Matches[0]
	wantMarker := fmt.Sprintf(" [... line cut: showing chars %d-%d of %d]", 8<<17+9-80+1, 8<<17+9-80+250, 8<<17+19+1000)
	if !strings.Contains(m.Text, "function needle(){}") || !strings.HasSuffix(m.Text, wantMarker) || utf8.RuneCountInString(m.Text) > 250+len(wantMarker) {
		t.Errorf("match text (%d chars) = %.400q", len(m.Text), m.Text)
	}
	if want := "app.min.js:1:" + m.Text + "\napp.min.js:2:needle short"; res.Text != want {
		t.Errorf("text = %.400q", res.Text)
	}
}

// TestSearchFiles_OutputBudget: many matching files overrun max_output_chars before
// max_search_results; the result is truncated and says how to narrow.
func TestSearchFiles_OutputBudget(t *testing.T) {
	var lines []string
	for i := range 40 {
		lines = append(lines, fmt.Sprintf("f%02d.txt: %s needle %s\n", i, strings.Repeat("x", 100), strings.Repeat("y", 100)))
	}
	fx := makeFixture(t, lines...)
	e := fx.engine(schema.Config{MaxOutputChars: intp(2000)})
	res := mustCall(t, e, "search_files", map[string]any{"pattern": "needle"}, Hooks{}).(*schema.SearchFilesResult)
	if !res.Truncated || len(res.Matches) == 0 || len(res.Matches) >= 40 {
		t.Fatalf("truncated = %v, matches = %d", res.Truncated, len(res.Matches))
	}
	wantWithin(t, "search_files", res.Text, 2000)
	if !strings.HasSuffix(res.Text, "\n[... truncated at 2000 characters of output (max_output_chars); narrow the search: a path further down, a more specific pattern, or an include_glob]") {
		t.Errorf("text ends %q", res.Text[max(len(res.Text)-200, 0):])
	}
	if got := strings.Count(res.Text, "\n"); got != len(res.Matches) {
		t.Errorf("text has %d lines before the notice, matches %d", got, len(res.Matches))
	}
}

// TestReadMultipleFiles_Budget: one budget for the whole reply; the paths past it are listed as
// not read, and more than 100 paths are refused.
func TestReadMultipleFiles_Budget(t *testing.T) {
	var lines []string
	var paths []string
	for i := range 10 {
		lines = append(lines, fmt.Sprintf("f%d.txt: %s\n", i, strings.Repeat("z", 900)))
		paths = append(paths, fmt.Sprintf("f%d.txt", i))
	}
	fx := makeFixture(t, lines...)
	e := fx.engine(schema.Config{Tools: allTools, MaxOutputChars: intp(3000)})
	var rec recorder
	res := mustCall(t, e, "read_multiple_files", map[string]any{"paths": paths}, rec.hooks(false)).(*schema.ReadMultipleFilesResult)
	if !res.Truncated || len(res.Files)+len(res.NotRead) != 10 || len(res.NotRead) == 0 || len(res.Files) < 2 {
		t.Fatalf("truncated %v, %d read, not read %v", res.Truncated, len(res.Files), res.NotRead)
	}
	if res.NotRead[0] != paths[len(res.Files)] {
		t.Errorf("not_read starts at %q, want %q", res.NotRead[0], paths[len(res.Files)])
	}
	if len(rec.events) != len(res.Files) {
		t.Errorf("%d events for %d files read", len(rec.events), len(res.Files))
	}
	wantWithin(t, "read_multiple_files", res.Text, 3000)
	if !strings.Contains(res.Text, fmt.Sprintf("[%d files not read: the output budget of 3000 characters (max_output_chars) is used up. Read them with read_file: %s", len(res.NotRead), res.NotRead[0])) {
		t.Errorf("text = %q", res.Text)
	}
	many := make([]string, 101)
	for i := range many {
		many[i] = "f0.txt"
	}
	_, err := tryCall(t, e, "read_multiple_files", map[string]any{"paths": many}, Hooks{})
	wantKind(t, "read_multiple_files(101 paths)", err, schema.KindInvalidArguments)
	if !strings.Contains(err.Msg, "at most 100") {
		t.Errorf("message %q", err.Msg)
	}
}

// deepChain creates depth nested directories named by name(i) below dir, with mkdirat so the
// chain can be longer than PATH_MAX, and returns nothing: the tree is the fixture.
func deepChain(t testing.TB, dir string, depth int, name func(int) string) {
	t.Helper()
	cur, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range depth {
		n := name(i)
		if err := cur.Mkdir(n, 0o755); err != nil {
			t.Fatal(err)
		}
		next, err := cur.OpenRoot(n)
		cur.Close()
		if err != nil {
			t.Fatal(err)
		}
		cur = next
	}
	cur.Close()
}

// TestWalkers_OutputBudget: a chain of long-named directories and a directory of long names
// overrun the budget of find_files, directory_tree and list_directory long before their entry
// caps; each is truncated by characters, with its notice.
func TestWalkers_OutputBudget(t *testing.T) {
	fx := makeFixture(t, "wide/")
	deepChain(t, fx.root, 60, func(i int) string { return fmt.Sprintf("%03d", i) + strings.Repeat("d", 197) })
	for i := range 100 {
		os.WriteFile(filepath.Join(fx.root, "wide", fmt.Sprintf("%03d", i)+strings.Repeat("n", 197)), nil, 0o644)
	}
	e := fx.engine(schema.Config{Tools: allTools, MaxOutputChars: intp(5000)})
	for _, tc := range []struct {
		tool   string
		args   map[string]any
		notice string
	}{
		{"find_files", map[string]any{"pattern": "**"}, "search from a path further down, or use a more specific pattern]"},
		{"directory_tree", map[string]any{}, "show a subdirectory, or a smaller max_depth]"},
		{"list_directory", map[string]any{"path": "wide"}, "list a subdirectory, or use find_files with a narrower pattern]"},
	} {
		res := mustCall(t, e, tc.tool, tc.args, Hooks{})
		text := resultText(res)
		wantWithin(t, tc.tool, text, 5000)
		if !strings.HasSuffix(text, "[... truncated at 5000 characters of output (max_output_chars); "+tc.notice) {
			t.Errorf("%s text ends %q", tc.tool, text[max(len(text)-200, 0):])
		}
		if !strings.Contains(jsonOf(res), `"truncated":true`) {
			t.Errorf("%s not truncated", tc.tool)
		}
	}
	// A chain whose paths outgrow the budget is not entered past it (budget rule 4), and says so.
	res := mustCall(t, e, "find_files", map[string]any{"pattern": "**/nothing"}, Hooks{}).(*schema.FindFilesResult)
	if !res.Truncated || !strings.Contains(res.Text, "directories not searched: their paths alone are longer than max_output_chars (5000)") {
		t.Errorf("find_files(**/nothing) = %v %q", res.Truncated, res.Text)
	}
	sres := mustCall(t, e, "search_files", map[string]any{"pattern": "nothing"}, Hooks{}).(*schema.SearchFilesResult)
	if !sres.Truncated || sres.Text != "[... 1 directories not searched: their paths alone are longer than max_output_chars (5000); search from inside them]" {
		t.Errorf("search_files(nothing) = %v %q", sres.Truncated, sres.Text)
	}
}

func TestMaxOutputChars_Validated(t *testing.T) {
	fx := makeFixture(t)
	_, err := New(schema.Config{RootDir: fx.root, MaxOutputChars: intp(0)}, Options{})
	if err == nil || !strings.Contains(err.Error(), "max_output_chars must be a positive integer") {
		t.Errorf("New(max_output_chars 0) = %v", err)
	}
}
