package engine

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/engine/internal/relpath"
	"github.com/fsbox/fsbox/engine/internal/text"
	"github.com/fsbox/fsbox/schema"
)

func TestSearchFiles_Cap(t *testing.T) {
	fx := makeFixture(t,
		"one.txt: capmarker\n",
		"two.txt: capmarker\n",
		"many.txt: "+strings.Repeat(`hit\n`, 100),
	)
	cases := []struct {
		cap     int
		pattern string
		want    string
	}{
		{2, "capmarker", "one.txt:1:capmarker\ntwo.txt:1:capmarker"},
		{1, "capmarker", "one.txt:1:capmarker\n[... truncated at 1 matches]"},
		{5, "hit", "many.txt:1:hit\nmany.txt:2:hit\nmany.txt:3:hit\nmany.txt:4:hit\nmany.txt:5:hit\n[... truncated at 5 matches]"},
	}
	for _, tc := range cases {
		e := fx.engine(schema.Config{MaxSearchResults: intp(tc.cap)})
		var rec recorder
		res := mustCall(t, e, "search_files", map[string]any{"pattern": tc.pattern}, rec.hooks(false)).(*schema.SearchFilesResult)
		if res.Text != tc.want {
			t.Errorf("cap %d %q = %q; want %q", tc.cap, tc.pattern, res.Text, tc.want)
		}
		truncated := strings.Contains(tc.want, "truncated")
		ev := rec.events[0].(*schema.FilesSearchedEvent)
		if res.Truncated != truncated || ev.Truncated != truncated || ev.MatchCount != len(res.Matches) || ev.Search != "grep" || ev.Pattern != tc.pattern {
			t.Errorf("cap %d: truncated=%v event=%+v", tc.cap, res.Truncated, ev)
		}
	}
	// Exactly filling the cap within one file has no marker.
	e := fx.engine(schema.Config{MaxSearchResults: intp(100)})
	got := callText(t, e, "search_files", map[string]any{"pattern": "hit"})
	if strings.Count(got, "\n") != 99 || strings.Contains(got, "truncated") {
		t.Errorf("exactly 100 of 100 matches: %d lines, %q...", strings.Count(got, "\n")+1, got[:40])
	}
}

func TestSearchFiles_Errors(t *testing.T) {
	fx := makeFixture(t, seedTree...)
	e := fx.engine(schema.Config{DeniedPatterns: &[]string{"src"}})
	for _, tc := range []struct {
		args map[string]any
		kind schema.ErrorKind
	}{
		{map[string]any{"pattern": "[invalid"}, schema.KindInvalidPattern},
		{map[string]any{"pattern": `(?<=x)y`}, schema.KindInvalidPattern},
		{map[string]any{"pattern": "x", "path": "missing"}, schema.KindNotFound},
		{map[string]any{"pattern": "x", "path": ".."}, schema.KindOutsideRoot},
		{map[string]any{"pattern": "x", "path": "src"}, schema.KindDenied},
		{map[string]any{"pattern": "x", "bogus": 1}, schema.KindInvalidArguments},
	} {
		_, err := tryCall(t, e, "search_files", tc.args, Hooks{})
		wantKind(t, fmt.Sprintf("search_files(%v)", tc.args), err, tc.kind)
	}
	_, err := tryCall(t, e, "search_files", map[string]any{"pattern": "[invalid"}, Hooks{})
	if !strings.HasPrefix(err.Msg, "Invalid regex pattern: ") {
		t.Errorf("message %q", err.Msg)
	}
}

func TestSearchFiles_Content(t *testing.T) {
	fx := makeFixture(t,
		"bin.dat: needle\\0",
		"late_nul.dat: "+strings.Repeat("x", text.SniffBytes)+"\\0needle\n",
		"latin1.txt: caf\xe9 needle\n",
		"crlf.txt: a needle\r\nb\r\n",
		"nonl.txt: first\nlast needle",
		"twice.txt: needle needle\nneedle\n",
		"pipe |",
	)
	e := fx.engine(schema.Config{})
	got := callText(t, e, "search_files", map[string]any{"pattern": "needle$"})
	// late_nul.dat's line is 8199 characters: it is cut to the 250 that end with the match.
	want := "crlf.txt:1:a needle\nlate_nul.dat:1:" + strings.Repeat("x", 243) + "\x00needle [... line cut: showing chars 7950-8199 of 8199]\nlatin1.txt:1:caf\ufffd needle\nnonl.txt:2:last needle\ntwice.txt:1:needle needle\ntwice.txt:2:needle"
	// bin.dat is binary and skipped; a NUL after the first 8192 bytes (late_nul.dat) does not make
	// a file binary.
	if got != want {
		t.Errorf("got\n%.300q\nwant\n%.300q", got, want)
	}
	// A search rooted at a FIFO finds nothing and does not block.
	if got := callText(t, e, "search_files", map[string]any{"pattern": "x", "path": "pipe"}); got != "No matches found." {
		t.Errorf("search in a FIFO = %q", got)
	}
}

func TestSearchFiles_SkippedFiles(t *testing.T) {
	fx := makeFixture(t, "good.txt: needle\n", "large.txt: ")
	if err := os.Truncate(fx.abs("large.txt"), maxSearchFileBytes+1); err != nil {
		t.Fatal(err)
	}
	e := fx.engine(schema.Config{})
	want := "good.txt:1:needle\n[1 files skipped (too large or unreadable): large.txt]"
	if got := callText(t, e, "search_files", map[string]any{"pattern": "needle"}); got != want {
		t.Errorf("got %q; want %q", got, want)
	}
	want = "No matches found.\n[1 files skipped (too large or unreadable): large.txt]"
	if got := callText(t, e, "search_files", map[string]any{"pattern": "needle", "path": "large.txt"}); got != want {
		t.Errorf("rooted at the large file: %q; want %q", got, want)
	}
}

func TestSearchFiles_Symlinks(t *testing.T) {
	fx := makeFixture(t, seedTree...)
	fx.add(
		"$OUTSIDE/secret.txt: escaped!\n",
		"alias.txt => hello.txt",
		"escape_link.txt => $OUTSIDE/secret.txt",
		"escape_dir => $OUTSIDE",
		"loop => .",
		"creds.secret: hunter2\n",
		"secret_alias.txt => creds.secret",
		"private/secret.txt: hunter2\n",
	)
	e := fx.engine(schema.Config{DeniedPatterns: &[]string{"*.secret", "private"}})
	if got := withoutHidden(callText(t, e, "search_files", map[string]any{"pattern": "Hello"})); got != "hello.txt:1:Hello, world!" {
		// alias.txt reaches hello.txt, which the walk searches under its own name (each file once).
		t.Errorf("alias search = %q", got)
	}
	for _, p := range []string{"escaped", "hunter2"} {
		if got := withoutHidden(callText(t, e, "search_files", map[string]any{"pattern": p})); got != "No matches found." {
			t.Errorf("search %q = %q", p, got)
		}
	}
}

func TestSearchFiles_IncludeGlob(t *testing.T) {
	fx := makeFixture(t, seedTree...)
	e := fx.engine(schema.Config{})
	for _, tc := range []struct{ glob, want string }{
		{"*.py", `subdir/nested.py:1:print("nested")`},
		{"src/*", "src/a/deep.go:1:package a\nsrc/b.go:1:package src"},
		{"**/deep.go", "src/a/deep.go:1:package a"},
		{"*.txt", "No matches found."},
	} {
		if got := withoutHidden(callText(t, e, "search_files", map[string]any{"pattern": "package|print", "include_glob": tc.glob})); got != tc.want {
			t.Errorf("include_glob %q = %q; want %q", tc.glob, got, tc.want)
		}
	}
}

// TestSearchFiles_MatchesReference compares the parallel search with a plain sequential one on
// random trees, patterns and caps: same lines, same order, same truncation.
func TestSearchFiles_MatchesReference(t *testing.T) {
	words := []string{"alpha", "beta", "func", "Reader", "x", "", "  ", "a\tb", "ünï", "é"}
	patterns := []string{"alpha", `func \w+`, `^beta`, `a$`, `(?i)READER`, `[0-9]+`, `x|y`, `^$`, `ü`, `alpha.*beta`, `\bx\b`, `Reader\)?`}
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 12 {
		fx := makeFixture(t)
		for i := range 40 {
			dir := []string{"", "a/", "a/b/", "c/", "a/b/d/", ".h/"}[rng.IntN(6)]
			var b strings.Builder
			for range rng.IntN(30) {
				for range rng.IntN(4) {
					b.WriteString(words[rng.IntN(len(words))])
					b.WriteByte(' ')
				}
				b.WriteString([]string{"\n", "\r\n", "\n", "1\n"}[rng.IntN(4)])
			}
			if rng.IntN(5) == 0 {
				b.WriteString("tail without newline alpha")
			}
			name := fmt.Sprintf("%sf%02d.txt", dir, i)
			os.MkdirAll(filepath.Dir(fx.abs(name)), 0o755)
			if err := os.WriteFile(fx.abs(name), []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, pat := range patterns {
			capN := []int{1, 3, 10, 1000}[rng.IntN(4)]
			e := fx.engine(schema.Config{MaxSearchResults: intp(capN)})
			got := withoutHidden(callText(t, e, "search_files", map[string]any{"pattern": pat})) // reference has no hidden counts
			if want := referenceSearch(t, fx.root, pat, capN); got != want {
				t.Fatalf("round %d pattern %q cap %d:\ngot\n%s\nwant\n%s", round, pat, capN, got, want)
			}
		}
	}
}

// referenceSearch is search_files done the obvious way, sequentially.
func referenceSearch(t *testing.T, root, pattern string, capN int) string {
	re := regexp.MustCompile(pattern)
	var out []string
	truncated := false
	var walk func(dir, rel string)
	walk = func(dir, rel string) {
		ents, _ := os.ReadDir(dir)
		for _, de := range ents {
			if strings.HasPrefix(de.Name(), ".") || truncated {
				continue
			}
			r := relpath.Child(rel, de.Name())
			if de.IsDir() {
				walk(filepath.Join(dir, de.Name()), r)
				continue
			}
			data, _ := os.ReadFile(filepath.Join(dir, de.Name()))
			if bytes.IndexByte(data[:min(len(data), text.SniffBytes)], 0) >= 0 {
				continue
			}
			lines := strings.Split(string(data), "\n")
			if lines[len(lines)-1] == "" {
				lines = lines[:len(lines)-1]
			}
			for i, l := range lines {
				l = strings.TrimSuffix(l, "\r")
				if !re.MatchString(l) {
					continue
				}
				if len(out) == capN {
					truncated = true
					return
				}
				out = append(out, fmt.Sprintf("%s:%d:%s", r, i+1, l))
			}
		}
	}
	walk(root, ".")
	if truncated {
		out = append(out, fmt.Sprintf("[... truncated at %d matches]", capN))
	}
	if len(out) == 0 {
		return "No matches found."
	}
	return strings.Join(out, "\n")
}
