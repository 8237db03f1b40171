package textdiff

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// applyCases are round-tripped through GNU patch and git apply.
var applyCases = []struct {
	name     string
	old, new string
}{
	{"one line changed", "a\nb\nc\n", "a\nB\nc\n"},
	{"empty to content", "", "one\ntwo\n"},
	{"content to empty", "one\ntwo\n", ""},
	{"empty to no final newline", "", "x"},
	{"no final newline to empty", "x", ""},
	{"add final newline", "text", "text\n"},
	{"remove final newline", "text\n", "text"},
	{"change last line without newline", "a\nb\nlast", "a\nb\nLAST"},
	{"crlf", "one\r\ntwo\r\nthree\r\n", "one\r\nTWO\r\nthree\r\n"},
	{"crlf to lf", "one\r\ntwo\r\n", "one\ntwo\n"},
	{"lone cr stays inside a line", "a\rb\nc\n", "a\rB\nc\n"},
	{"unicode", "héllo\nwörld\n日本\n", "héllo\nwörld!\n日本語\n"},
	{"insert at top", "b\nc\nd\ne\n", "a\nb\nc\nd\ne\n"},
	{"append at end", "a\nb\n", "a\nb\nc\n"},
	{"append after no final newline", "a\nb", "a\nb\nc\n"},
	{"two hunks", numbered(1, 40), strings.Replace(strings.Replace(numbered(1, 40), "line 5\n", "five\n", 1), "line 35\n", "thirty-five\n", 1)},
	{"close changes merge", numbered(1, 40), strings.Replace(strings.Replace(numbered(1, 40), "line 10\n", "ten\n", 1), "line 15\n", "fifteen\n", 1)},
	{"repeated lines", "x\nx\nx\nx\nx\nx\nx\nx\n", "x\nx\nx\ny\nx\nx\nx\nx\nx\n"},
	{"blank lines", "\n\n\n\n", "\n\n\n\n\n"},
	{"middle deleted", numbered(1, 30), numbered(1, 10) + numbered(21, 30)},
	{"everything changed", numbered(1, 20), strings.ToUpper(numbered(1, 20))},
	{"lines starting with diff markers", "--- a\n+++ b\n@@ x\n", "--- a\n+++ c\n@@ x\n\\ No newline\n"},
}

func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "line %02d\n", i)
	}
	return b.String()
}

func TestUnified_AppliesWithPatch(t *testing.T) {
	requireTool(t, "patch")
	for _, tc := range applyCases {
		t.Run(tc.name, func(t *testing.T) {
			diff, truncated := Unified("f.txt", tc.old, tc.new)
			if truncated {
				t.Fatalf("Unified truncated a small diff:\n%s", diff)
			}
			if got := applyPatch(t, tc.old, diff); got != tc.new {
				t.Fatalf("patch result = %q; want %q\ndiff:\n%s", got, tc.new, diff)
			}
		})
	}
}

func TestUnified_AppliesWithGitApply(t *testing.T) {
	requireTool(t, "git")
	for _, tc := range applyCases {
		t.Run(tc.name, func(t *testing.T) {
			diff, _ := Unified("dir/f.txt", tc.old, tc.new)
			if got := applyGit(t, "dir/f.txt", tc.old, diff); got != tc.new {
				t.Fatalf("git apply result = %q; want %q\ndiff:\n%s", got, tc.new, diff)
			}
		})
	}
}

func TestUnified_Exact(t *testing.T) {
	tests := []struct {
		name, old, new, want string
	}{
		{"equal", "same\n", "same\n", ""},
		{"new file", "", "a\nb\n", "--- a/f\n+++ b/f\n@@ -0,0 +1,2 @@\n+a\n+b\n"},
		{"emptied", "a\n", "", "--- a/f\n+++ b/f\n@@ -1 +0,0 @@\n-a\n"},
		{"final newline only", "text\n", "text", "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-text\n+text\n\\ No newline at end of file\n"},
		{"context is three lines", numbered(1, 9), strings.Replace(numbered(1, 9), "line 05\n", "five\n", 1),
			"--- a/f\n+++ b/f\n@@ -2,7 +2,7 @@\n line 02\n line 03\n line 04\n-line 05\n+five\n line 06\n line 07\n line 08\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, truncated := Unified("f", tc.old, tc.new)
			if got != tc.want || truncated {
				t.Errorf("Unified = %q, %v; want %q, false", got, truncated, tc.want)
			}
		})
	}
}

func TestUnified_PrefixTrimKeepsLineNumbers(t *testing.T) {
	old := numbered(1, 99)
	new := strings.Replace(old, "line 50\n", "fifty\n", 1)
	diff, _ := Unified("f", old, new)
	if !strings.Contains(diff, "@@ -47,7 +47,7 @@\n line 47\n") {
		t.Errorf("hunk header not shifted back to file lines:\n%s", diff)
	}
}

func TestUnified_Bounds(t *testing.T) {
	t.Run("side of exactly MaxSourceChars is diffed", func(t *testing.T) {
		old := strings.Repeat(strings.Repeat("é", MaxSourceChars/8-1)+"\n", 8)
		if n := utf8.RuneCountInString(old); n != MaxSourceChars {
			t.Fatalf("fixture has %d code points", n)
		}
		if diff, _ := Unified("f", old, "x"+old[len("é"):]); diff == HeadersOnly("f") {
			t.Fatal("a side of exactly MaxSourceChars code points was not diffed")
		}
	})
	t.Run("side over MaxSourceChars is headers only", func(t *testing.T) {
		old := strings.Repeat("a", MaxSourceChars+1)
		diff, truncated := Unified("f", old, "x")
		if diff != "--- a/f\n+++ b/f\n" || !truncated {
			t.Fatalf("Unified = %q, %v; want headers only, truncated", diff, truncated)
		}
	})
	lines := func(s string, n int) string { return strings.Repeat(s+"\n", n) }
	for _, tc := range []struct {
		oldLines, newLines int
		headersOnly        bool
	}{
		{255, 254, false}, // 256 × 255
		{255, 255, false}, // 256 × 256 = 65536
		{255, 256, true},  // 256 × 257
	} {
		diff, truncated := Unified("f", lines("a", tc.oldLines), lines("b", tc.newLines))
		gotHeadersOnly := diff == HeadersOnly("f")
		if gotHeadersOnly != tc.headersOnly || truncated != tc.headersOnly {
			t.Errorf("%d vs %d lines: headers only %v, truncated %v; want %v", tc.oldLines, tc.newLines, gotHeadersOnly, truncated, tc.headersOnly)
		}
	}
}

func TestUnified_CutOnLineBoundary(t *testing.T) {
	old := ""
	new := strings.Repeat("0123456789abcdefghi\n", 1000) // 20 000 chars, 1000 lines
	diff, truncated := Unified("f", old, new)
	if !truncated {
		t.Fatal("a 20000-character diff was not truncated")
	}
	if n := utf8.RuneCountInString(diff); n > MaxDiffChars {
		t.Fatalf("diff has %d characters; want at most %d", n, MaxDiffChars)
	}
	if !strings.HasSuffix(diff, "\n") {
		t.Fatalf("a cut diff does not end with a newline")
	}
	body := strings.TrimSuffix(diff, "\n")
	last := body[strings.LastIndexByte(body, '\n')+1:]
	if last != "+0123456789abcdefghi" {
		t.Fatalf("diff does not end on a whole line: last line %q", last)
	}
}

func TestCut(t *testing.T) {
	exact := strings.Repeat("x", MaxDiffChars-1) + "\n"
	if got, tr := cut(exact[:MaxDiffChars]); tr || len(got) != MaxDiffChars {
		t.Errorf("a text of exactly MaxDiffChars was cut")
	}
	// Whole lines only, each with its newline: a line ending one past the bound is dropped.
	s := "ab\n" + strings.Repeat("x", MaxDiffChars-3) + "\nmore\n"
	if got, tr := cut(s); !tr || got != "ab\n" {
		t.Errorf("cut kept %q…, truncated %v; want the first line only", got[:min(len(got), 8)], tr)
	}
	// No newline at all: hard cut, counted in code points.
	s = strings.Repeat("é", MaxDiffChars+5)
	if got, tr := cut(s); !tr || utf8.RuneCountInString(got) != MaxDiffChars || !utf8.ValidString(got) {
		t.Errorf("hard cut kept %d code points, truncated %v", utf8.RuneCountInString(got), tr)
	}
}

func TestQuoteLabel(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a/plain.txt", "a/plain.txt"},
		{"a/with space.txt", "a/with space.txt"},
		{"a/日本.txt", "a/日本.txt"},
		{"a/we\nird.txt", `"a/we\nird.txt"`},
		{"a/tab\there", `"a/tab\there"`},
		{"a/q\"u\\o\x01te", `"a/q\"u\\o\001te"`},
		{"a/bad\xffutf8", `"a/bad\377utf8"`},
		{"a/line\u2028sep", `"a/line\342\200\250sep"`},
	}
	for _, tc := range tests {
		if got := quoteLabel(tc.in); got != tc.want {
			t.Errorf("quoteLabel(%q) = %s; want %s", tc.in, got, tc.want)
		}
	}
}

func TestUnified_QuotedNameAppliesWithGitApply(t *testing.T) {
	requireTool(t, "git")
	for _, name := range []string{"we\nird.txt", "tab\tname.txt", "sp ace.txt", "bs\\q\"uote.txt", "日本.txt"} {
		diff, _ := Unified(name, "a\n", "b\n")
		if strings.Count(diff, "\n") != 5 {
			t.Errorf("%q: a name broke the header lines:\n%s", name, diff)
		}
		if got := applyGit(t, name, "a\n", diff); got != "b\n" {
			t.Errorf("%q: git apply result %q\ndiff:\n%s", name, got, diff)
		}
	}
}

func FuzzUnified(f *testing.F) {
	for _, tc := range applyCases {
		f.Add(tc.old, tc.new)
	}
	f.Fuzz(func(t *testing.T, old, new string) {
		diff, truncated := Unified("f.txt", old, new)
		if old == new {
			if diff != "" || truncated {
				t.Fatalf("equal texts gave %q, %v", diff, truncated)
			}
			return
		}
		if utf8.RuneCountInString(diff) > MaxDiffChars {
			t.Fatalf("diff longer than MaxDiffChars")
		}
		if truncated {
			return
		}
		if got := applyInMemory(t, old, diff); got != new {
			t.Fatalf("applying the diff gave %q; want %q\ndiff:\n%s", got, new, diff)
		}
	})
}

// applyInMemory is a strict unified-diff applier: every context and deleted line must match, and
// hunk counts must agree with their bodies.
func applyInMemory(t *testing.T, old, diff string) string {
	t.Helper()
	if !strings.HasSuffix(diff, "\n") {
		t.Fatalf("diff does not end with a newline:\n%s", diff)
	}
	lines := strings.Split(strings.TrimSuffix(diff, "\n"), "\n")
	if len(lines) < 2 || lines[0] != "--- a/f.txt" || lines[1] != "+++ b/f.txt" {
		t.Fatalf("bad headers:\n%s", diff)
	}
	src := splitLines(old)
	var out []string
	pos := 0 // next source line (0-based)
	i := 2
	for i < len(lines) {
		var fs, fc, ts, tc int
		if !parseHunkHeader(lines[i], &fs, &fc, &ts, &tc) {
			t.Fatalf("bad hunk header %q:\n%s", lines[i], diff)
		}
		i++
		start := fs - 1
		if fc == 0 {
			start = fs
		}
		if start < pos {
			t.Fatalf("hunks overlap or go backwards:\n%s", diff)
		}
		out = append(out, src[pos:start]...)
		pos = start
		gotF, gotT := 0, 0
		for i < len(lines) && !strings.HasPrefix(lines[i], "@@ ") {
			l := lines[i]
			i++
			text := l[1:] + "\n"
			if i < len(lines) && lines[i] == `\ No newline at end of file` {
				text = l[1:]
				i++
			}
			switch l[0] {
			case ' ', '-':
				if pos >= len(src) || src[pos] != text {
					t.Fatalf("context/deleted line %q does not match source:\n%s", text, diff)
				}
				pos++
				gotF++
				if l[0] == ' ' {
					out = append(out, text)
					gotT++
				}
			case '+':
				out = append(out, text)
				gotT++
			default:
				t.Fatalf("bad diff line %q", l)
			}
		}
		if gotF != fc || gotT != tc {
			t.Fatalf("hunk counts -%d +%d, body -%d +%d:\n%s", fc, tc, gotF, gotT, diff)
		}
	}
	out = append(out, src[pos:]...)
	return strings.Join(out, "")
}

func parseHunkHeader(s string, fs, fc, ts, tc *int) bool {
	if !strings.HasPrefix(s, "@@ -") || !strings.HasSuffix(s, " @@") {
		return false
	}
	parts := strings.Fields(s[3 : len(s)-3])
	if len(parts) != 2 || parts[0][0] != '-' || parts[1][0] != '+' {
		return false
	}
	parse := func(r string, start, count *int) bool {
		a, b, ok := strings.Cut(r, ",")
		*count = 1
		if ok {
			if !atoi(b, count) {
				return false
			}
		}
		return atoi(a, start)
	}
	return parse(parts[0][1:], fs, fc) && parse(parts[1][1:], ts, tc)
}

func atoi(s string, n *int) bool {
	if s == "" {
		return false
	}
	*n = 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
		*n = *n*10 + int(c-'0')
	}
	return true
}

func requireTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s not installed: %v", name, err)
	}
}

func applyPatch(t *testing.T, old, diff string) string {
	t.Helper()
	return apply(t, "target", old, diff, "patch", "--quiet", "--force", "--no-backup-if-mismatch", "-r", "-", "target")
}

func applyGit(t *testing.T, name, old, diff string) string {
	t.Helper()
	return apply(t, name, old, diff, "git", "apply", "--whitespace=nowarn", "-")
}

// apply writes old to name in a fresh directory, feeds diff exactly as Unified returned it to the
// command run there, and returns the file's new content.
func apply(t *testing.T, name, old, diff string, command ...string) string {
	t.Helper()
	dir := t.TempDir()
	target := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CEILING_DIRECTORIES="+dir, "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	cmd.Stdin = strings.NewReader(diff)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s\ndiff:\n%s", command[0], err, out.String(), diff)
	}
	got, err := os.ReadFile(target)
	if err != nil {
		t.Fatal(err)
	}
	return string(got)
}
