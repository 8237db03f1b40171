package ignore

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// TestIgnore_IndexAgreesWithGoGit: the indexed match of a level (index) gives what trying
// every pattern, highest first, with go-git's Match gives, for random patterns (literal,
// wildcard, class, escaped, negated, anchored, "**", directory-only) and random paths.
func TestIgnore_IndexAgreesWithGoGit(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 4))
	parts := []string{"a", "b", "ab", "log", ".log", "x.log", "node_modules", "*", "?", "[ab]", "[!a]b", "a*", "*b", "*.log", `\*`, "**", "b?", "[a-c]*", "build", "a\\ "}
	names := []string{"a", "b", "ab", "ba", "x.log", "a.log", "node_modules", "build", "*", "abc", "b a", "a ", "bb", "c"}
	for round := range 300 {
		domain := []string(nil)
		if round%2 == 1 {
			domain = []string{"a", "b"}
		}
		var lines []string
		for range 1 + rng.IntN(40) {
			var p strings.Builder
			if rng.IntN(4) == 0 {
				p.WriteString("!")
			}
			if rng.IntN(4) == 0 {
				p.WriteString("/")
			}
			for k := range 1 + rng.IntN(3) {
				if k > 0 {
					p.WriteString("/")
				}
				p.WriteString(parts[rng.IntN(len(parts))])
			}
			if rng.IntN(4) == 0 {
				p.WriteString("/")
			}
			lines = append(lines, p.String())
		}
		lvl := (&Level{rules: Parse([]byte(strings.Join(lines, "\n")), domain, nil), domain: domain}).Finish()
		for range 60 {
			path := append([]string(nil), domain...)
			for range 1 + rng.IntN(3) {
				path = append(path, names[rng.IntN(len(names))])
			}
			isDir := rng.IntN(2) == 0
			want := gitignore.NoMatch
			for i := len(lvl.rules) - 1; i >= 0; i-- {
				if m := lvl.rules[i].pat.Match(path, isDir); m != gitignore.NoMatch {
					want = m
					break
				}
			}
			if got := lvl.match(path, isDir); got != want {
				t.Fatalf("patterns %q, path %q (dir %v): indexed %v, go-git %v", lines, path, isDir, got, want)
			}
		}
	}
}
