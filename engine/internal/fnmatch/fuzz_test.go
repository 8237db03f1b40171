package fnmatch

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// fnmatchRef is a reference matcher for patterns of literals, "*" and "?" only (both cross "/").
func fnmatchRef(pat, name []rune) bool {
	if len(pat) == 0 {
		return len(name) == 0
	}
	switch pat[0] {
	case '*':
		for i := 0; i <= len(name); i++ {
			if fnmatchRef(pat[1:], name[i:]) {
				return true
			}
		}
		return false
	case '?':
		return len(name) > 0 && fnmatchRef(pat[1:], name[1:])
	}
	return len(name) > 0 && pat[0] == name[0] && fnmatchRef(pat[1:], name[1:])
}

// FuzzFnmatch checks the translator never fails or panics, and agrees with fnmatchRef on
// patterns without classes.
func FuzzFnmatch(f *testing.F) {
	for _, s := range [][2]string{{"*.py", "a/b.py"}, {"a?c", "abc"}, {"**/x", "x"}, {"[a-", "[a-"}, {"[!]x]", "a"}, {"*a*a*a", "aaaa"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pat, name string) {
		if len(pat) > 64 {
			return
		}
		p, err := New(pat, false)
		if err != nil {
			t.Fatalf("New(%q): %v (regexp %s)", pat, err, translateFnmatch(pat))
		}
		d, err := New(pat, true)
		if err != nil {
			t.Fatalf("New(%q, depth): %v", pat, err)
		}
		got := p.Match(name)
		// A folding pattern matches exactly what the lowered pattern matches in the lowered name,
		// through its string shape as through its regexp.
		fp, err := NewCase(pat, false, true)
		if err != nil {
			t.Fatalf("NewCase(%q, fold): %v", pat, err)
		}
		lp, err := New(strings.ToLower(pat), false)
		if err != nil {
			t.Fatalf("New(%q): %v", strings.ToLower(pat), err)
		}
		if fold, want := fp.Match(name), lp.Match(strings.ToLower(name)); fold != want {
			t.Fatalf("fold match(%q, %q) = %v, want %v", pat, name, fold, want)
		}
		// A pattern matched by its string shape is not compiled to a regexp (NewPatternCase): its
		// translation must compile and agree with the shape.
		if fp.shape != shapeRegexp {
			body, _ := strings.CutPrefix(pat, "!")
			re, err := compileFnmatch(FoldCase(body), false)
			if err != nil {
				t.Fatalf("pattern %q of shape %d: its regexp does not compile: %v", pat, fp.shape, err)
			}
			if fold := fp.Match(name); fold != re.MatchString(strings.ToLower(name)) {
				t.Fatalf("fold match(%q, %q) = %v: shape %d disagrees with its regexp", pat, name, fold, fp.shape)
			}
		}
		// A depth pattern matches exactly when the plain one matches the name or what follows one
		// of its slashes.
		wantDepth := got
		for i := 0; i < len(name) && !wantDepth; i++ {
			wantDepth = name[i] == '/' && p.Match(name[i+1:])
		}
		if d.Match(name) != wantDepth {
			t.Fatalf("depth match(%q, %q) = %v, want %v", pat, name, !wantDepth, wantDepth)
		}
		if strings.HasPrefix(pat, "!") || strings.ContainsRune(pat, '[') || strings.HasPrefix(pat, "**/") || !utf8.ValidString(pat) || !utf8.ValidString(name) {
			return
		}
		if want := fnmatchRef([]rune(pat), []rune(name)); got != want {
			t.Fatalf("match(%q, %q) = %v; reference says %v", pat, name, got, want)
		}
	})
}
