package engine

import "testing"

// TestFirstAncestorsMatchesPerAncestor checks that the one-pass ancestor match gives the same
// answer as matching the name and each ancestor (and, for depth patterns, each trailing sub-path)
// one by one, for patterns of every shape.
func TestFirstAncestorsMatchesPerAncestor(t *testing.T) {
	patterns := []string{"secret", "secret/**", "*.key", ".git/*", "**/secrets*", "a?c", "[!x]*/b", "a/*/c", "*", "x*y/z", ".env.*"}
	names := []string{".", "secret", "secret/a", "src/secret", "a/b/c", "abc/d", "k.key/x", "dir/.git/HEAD",
		".git/hooks/pre-commit", "deep/secrets.yaml", "secrets/x", "xay/z/w", "b/a/b", "y/.env.local", "a/secretx/b"}
	for _, depth := range []bool{false, true} {
		for _, src := range patterns {
			p, err := newFnPattern(src, depth)
			if err != nil {
				t.Fatal(err)
			}
			l := patternList{p}
			for _, n := range names {
				r := &resolved{rel: n}
				_, want := l.first(r.names(true))
				_, got := l.firstAncestors([]string{n})
				if got != want {
					t.Errorf("pattern %q depth=%v name %q: one pass %v, per ancestor %v", src, depth, n, got, want)
				}
			}
		}
	}
}
