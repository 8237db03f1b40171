package engine

import (
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/fsbox/fsbox/schema"
)

// TestGlobExpansions pins the count of doublestar's brace expansion: the product over a
// sequence, the sum over alternatives, braces in classes and escaped ones literal.
func TestGlobExpansions(t *testing.T) {
	for _, tc := range []struct {
		glob     string
		n, bytes uint64
		depth    int
	}{
		{"*.go", 1, 4, 0},
		{"{a,b}", 2, 2, 1},
		{"x{a,bb}y", 2, 7, 1},      // xay, xbby
		{"a{b,c{d,e}}f", 3, 11, 2}, // abf, acdf, acef
		{"{a,b}{c,d,e}", 6, 12, 1},
		{`\{a,b}`, 1, 6, 0},
		{"[{]{a,b}", 2, 8, 1},
		{"{a,b", 2, 2, 1}, // unmatched: read to the end
		{strings.Repeat("{a,b}", 40), 1 << 40, 40 << 40, 1},
		{strings.Repeat("{a,b}", 70), saturated, saturated, 1},
	} {
		x := globExpansions(tc.glob)
		if x.n != tc.n || x.bytes != tc.bytes || x.depth != tc.depth {
			t.Errorf("globExpansions(%q) = %+v; want n %d bytes %d depth %d", tc.glob, x, tc.n, tc.bytes, tc.depth)
		}
	}
	// The count agrees with doublestar: every expansion of a small glob matches, and only those.
	glob := "{a,b{c,d}}{e,f}"
	if x := globExpansions(glob); x.n != 6 {
		t.Fatalf("%q: %d expansions", glob, x.n)
	}
	n := 0
	for _, name := range []string{"ae", "af", "bce", "bcf", "bde", "bdf"} {
		if ok, _ := doublestar.Match(glob, name); ok {
			n++
		}
	}
	if n != 6 {
		t.Errorf("doublestar matched %d of the 6 expansions of %q", n, glob)
	}
}

// TestPatternBounds_Refused: every pattern argument of every tool that takes one is refused past
// its bound, before any work, as pattern_too_complex naming the argument; a pattern within the
// bounds still works.
func TestPatternBounds_Refused(t *testing.T) {
	fx := makeFixture(t, "a.txt: hello", "ab/b.txt: x")
	e := fx.engine(schema.Config{Tools: allTools})
	bomb := strings.Repeat("{a,b}", 40)
	deep := strings.Repeat("{a,", 9) + "b" + strings.Repeat("}", 9)
	heavy := strings.Repeat("{*a,*b}", 8) + strings.Repeat("*c", 200) // 256 expansions, over 64 KiB of them
	insts := strings.Repeat("x{1000}", 60)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string // in the message
	}{
		{schema.ToolFindFiles, map[string]any{"pattern": bomb}, "pattern expands to 1099511627776 \"{...}\" alternatives; at most 256"},
		{schema.ToolFindFiles, map[string]any{"pattern": deep}, "pattern nests \"{...}\" alternatives 9 deep"},
		{schema.ToolFindFiles, map[string]any{"pattern": heavy}, "bytes of patterns"},
		{schema.ToolFindFiles, map[string]any{"pattern": strings.Repeat("a", maxGlobBytes+1)}, "pattern is 4097 bytes long"},
		{schema.ToolListFiles, map[string]any{"glob": bomb}, "glob expands to"},
		{schema.ToolGrep, map[string]any{"pattern": "x", "glob": bomb}, "glob expands to"},
		{schema.ToolSearchFiles, map[string]any{"pattern": "x", "include_glob": strings.Repeat("*", maxGlobBytes+1)}, "include_glob is 4097 bytes long"},
		{schema.ToolSearchFiles, map[string]any{"pattern": strings.Repeat("w", maxRegexBytes+1)}, "pattern is 65537 bytes long"},
		{schema.ToolSearchFiles, map[string]any{"pattern": insts}, "compiles to 60"},
		{schema.ToolGrep, map[string]any{"pattern": insts}, "regex instructions"},
		{schema.ToolGrep, map[string]any{"pattern": strings.Repeat("(", maxPatternArgsBytes)}, "The arguments are"},
	} {
		_, err := tryCall(t, e, tc.tool, tc.args, Hooks{})
		wantKind(t, tc.tool+" "+tc.want, err, schema.KindPatternTooComplex)
		if err != nil && !strings.Contains(err.Msg, tc.want) {
			t.Errorf("%s: %q; want it to contain %q", tc.tool, err.Msg, tc.want)
		}
	}
	// Every hint names arguments the tool takes.
	for tool, hint := range map[string]string{
		schema.ToolFindFiles:   "find_files",
		schema.ToolListFiles:   "glob",
		schema.ToolSearchFiles: "search_files",
	} {
		args := map[string]any{"pattern": bomb}
		if tool == schema.ToolListFiles {
			args = map[string]any{"glob": bomb}
		}
		if tool == schema.ToolSearchFiles {
			args = map[string]any{"pattern": strings.Repeat("w", maxRegexBytes+1)}
		}
		_, err := tryCall(t, e, tool, args, Hooks{})
		if err == nil || !strings.Contains(err.Msg, hint) {
			t.Errorf("%s: %v; want a hint naming %s", tool, err, hint)
		}
	}
	// Within the bounds: alternatives and long alternations still work.
	res := mustCall(t, e, schema.ToolFindFiles, map[string]any{"pattern": "{a,ab}/{b,c}.txt"}, Hooks{}).(*schema.FindFilesResult)
	if len(res.Paths) != 1 || res.Paths[0] != "ab/b.txt" {
		t.Errorf("find_files within the bounds: %q", res.Paths)
	}
	words := make([]string, 3000)
	for i := range words {
		words[i] = "word" + strings.Repeat("x", i%7)
	}
	words[2999] = "hello"
	sr := mustCall(t, e, schema.ToolSearchFiles, map[string]any{"pattern": strings.Join(words, "|")}, Hooks{}).(*schema.SearchFilesResult)
	if len(sr.Matches) != 1 {
		t.Errorf("a 3000-word alternation: %q", sr.Text)
	}
}

// TestPatternBounds_RegexInstsCounted: the instruction bound is the compiled program's, so a
// short pattern with counted repeats is refused and a long literal alternation within it is not.
func TestPatternBounds_RegexInstsCounted(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		refused bool
	}{
		{strings.Repeat("x{1000}", 49), false},
		{strings.Repeat("x{1000}", 51), true},
		{strings.Repeat("[a-z]{1000}", 60), true},
	} {
		_, _, err := compileRegex("grep", "pattern", tc.pattern, "narrow")
		if (err != nil) != tc.refused {
			tree, _ := syntax.Parse(tc.pattern, syntax.Perl)
			prog, _ := syntax.Compile(tree.Simplify())
			t.Errorf("%d-byte pattern of %d instructions: refused %v; want %v", len(tc.pattern), len(prog.Inst), err != nil, tc.refused)
		}
	}
}
