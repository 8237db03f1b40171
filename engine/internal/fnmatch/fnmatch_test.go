package fnmatch

import (
	"io/fs"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// TestFnmatch pins the fnmatch dialect of allowed/denied/protected patterns (Python's
// fnmatch.fnmatchcase plus the leading "**/" retry).
func TestFnmatch(t *testing.T) {
	cases := []struct {
		pat, name string
		want      bool
	}{
		{"*.py", "a.py", true},
		{"*.py", "dir/sub/a.py", true}, // * crosses /
		{"*.py", "a.pyc", false},
		{"?", "/", true}, // ? crosses / too
		{"a?c", "abc", true},
		{"a?c", "ac", false},
		{"src/*", "src/a/b.go", true},
		{"src/*", "src", false},
		{"**/*.go", "a.go", true}, // leading **/ also matches at the top
		{"**/*.go", "x/y/a.go", true},
		{"**/secrets*", "secrets.yaml", true},
		{"**/secrets*", "config/secrets.yaml", true},
		{"a/**/b", "a/b", false}, // ** is only special as a leading **/
		{"a/**/b", "a/x/b", true},
		{"[abc].txt", "b.txt", true},
		{"[abc].txt", "d.txt", false},
		{"[!abc].txt", "d.txt", true},
		{"[!abc].txt", "a.txt", false},
		{"[^a].txt", "^.txt", true}, // ^ is a literal member
		{"[^a].txt", "b.txt", false},
		{"[a-c]x", "bx", true},
		{"[z-a]x", "zx", false}, // a reversed range matches nothing
		{"[]]", "]", true},      // ] first is a member
		{"[!]]", "a", true},
		{"a[", "a[", true}, // an unclosed [ is literal
		{"a[b", "a[b", true},
		{"{a,b}", "a", false}, // no braces
		{"{a,b}", "{a,b}", true},
		{`a\*`, `a\x`, true}, // no escapes: \ is literal, * a wildcard
		{"a.b", "axb", false},
		{"(x)+", "(x)+", true},
		{"*", ".", true},
		{".env", ".env", true},
		{".env", "apps/.env", false},
		{"*", "a\nb", true},
		{"[.]env", ".env", true},
		{"[\\]", "\\", true},
		{"é*", "été", true},
	}
	for _, c := range cases {
		p, err := New(c.pat, false)
		if err != nil {
			t.Errorf("New(%q): %v", c.pat, err)
			continue
		}
		if got := p.Match(c.name); got != c.want {
			t.Errorf("match(%q, %q) = %v; want %v (regexp %s)", c.pat, c.name, got, c.want, translateFnmatch(c.pat))
		}
	}
}

// The index gives the answer List.First gives, pattern for pattern, on the default lists,
// depth and anchored lists with exceptions, duplicates and every shape, for names from a real
// tree and crafted ones (nested, upper case, dots in directories, exceptions, ancestors).
func TestPatternIndex_MatchesFirst(t *testing.T) {
	lists := [][]string{
		schema.DefaultDeniedPatterns,
		schema.DefaultProtectedPatterns,
		{"*.pem", ".env", "!.env.local", "*.pem", "sub/*.key", "**/secrets*", ".env*", "*.tar.gz", "x?y", "[ab].txt", "a/b", "!a/b/c", "*.", "*"},
		{".git", "!.git/HEAD", "*.Key", "ID_RSA"},
	}
	names := []string{".", ".env", ".env.local", ".env.example", "a/.env", "a/b/.ENV", "id_rsa", "x/id_rsa", "x/id_rsa.pub",
		"k.pem", "dir.pem/file", "a/b.PEM", ".pem", "x/.pem", "a.tar.gz", "b.gz", "sub/a.key", "sub/x/a.key", "secrets.yaml",
		"a/secrets/x", "xzy", "a.txt", "c.txt", "a/b", "a/b/c", "a/b/c/d", "name.", ".ssh", ".ssh/known_hosts", "h/.ssh/id",
		".git/config", ".git/HEAD", ".git/hooks/pre-commit", ".docker/config.json", "u/.docker/config.json", "x.Key", "z/ID_RSA",
		".husky/pre-commit", ".envrc", "src/.envrc", "noext", "a.b.c/d.e"}
	filepath.WalkDir(filepath.Join(runtime.GOROOT(), "src", "crypto"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && len(names) < 3000 {
			rel, _ := filepath.Rel(runtime.GOROOT(), p)
			names = append(names, filepath.ToSlash(rel))
		}
		return nil
	})
	for li, srcs := range lists {
		for _, depth := range []bool{true, false} {
			var l List
			for _, s := range srcs {
				p, err := NewCase(s, depth, true)
				if err != nil {
					t.Fatal(err)
				}
				l = append(l, p)
			}
			ix := NewIndex(l)
			for i, n := range names {
				group := []string{n}
				if i > 0 {
					group = append(group, names[i-1]) // two names, as resolved and spelled paths come
				}
				want, wok := l.First(group)
				got, gok := ix.First(group)
				if want != got || wok != gok {
					t.Fatalf("list %d depth=%v names %q: index = %q %v; first = %q %v", li, depth, group, got, gok, want, wok)
				}
			}
		}
	}
}
