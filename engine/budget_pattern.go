package engine

import (
	"encoding/json"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"

	"github.com/fsbox/fsbox/engine/internal/fserr"
	"github.com/fsbox/fsbox/engine/internal/scan"
	"github.com/fsbox/fsbox/schema"
)

// Pattern bounds: every glob and regex the model sends has a bounded cost before any work starts.
//
//  1. A glob (find_files' pattern, list_files' and grep's glob, search_files' include_glob) is at
//     most maxGlobBytes long. doublestar expands "{a,b}" alternatives one by one, walking and
//     matching once per expansion: "{a,b}" repeated 40 times is 2^40 walks. So a glob whose
//     alternatives expand to more than maxGlobAlternatives patterns, or to more than
//     maxGlobExpandedBytes of them in all, or nest deeper than maxGlobNesting, is refused
//     (pattern_too_complex) before it is expanded. What is left costs at most a few milliseconds
//     a match, and each match spends matchUnits of the work budget.
//
//  2. A regex (search_files' and grep's pattern) is at most maxRegexBytes long, and its compiled
//     program (regexp/syntax) at most maxRegexInsts instructions. Go's regexp is RE2, linear in
//     the text, but compiling and matching cost memory and time in proportion to the program:
//     a 13 MB alternation took 50 s and 855 MB. Larger ones are refused (pattern_too_complex).
//
//  3. The arguments of the tools that take patterns (find_files, list_files, search_files, grep)
//     are at most maxPatternArgsBytes of JSON, checked before they are decoded: decoding a 13 MB
//     pattern alone took 0.8 s and 57 MB. The bound leaves room for every argument at its
//     largest, each byte escaped ("\u0000" is six).
//
// Each refusal names the argument and says how to narrow it with arguments the same tool takes.
// These bounds do not limit the work of a walk: the work budget (budget_work.go) does that.
const (
	maxGlobBytes         = 4096
	maxGlobAlternatives  = 256
	maxGlobNesting       = 8
	maxGlobExpandedBytes = 64 << 10
	maxRegexBytes        = 64 << 10
	maxRegexInsts        = 50_000
	maxPatternArgsBytes  = 6*(maxRegexBytes+maxGlobBytes+maxPathArgBytes) + 4096
	maxPathArgBytes      = 4096
)

// boundedArgs refuses the arguments of a pattern tool longer than maxPatternArgsBytes (rule 3)
// before fn decodes them; pattern names the tool's pattern argument and most its bound, for the
// message.
func boundedArgs(pattern string, most int, fn toolFunc) toolFunc {
	return func(e *Engine, c *call, raw json.RawMessage) (any, error) {
		if len(raw) > maxPatternArgsBytes {
			return nil, fserr.Errorf(c.tool, "", schema.KindPatternTooComplex, "The arguments are %d bytes of JSON; %s accepts at most %d (%s of at most %d bytes): use a shorter %s.",
				len(raw), c.tool, maxPatternArgsBytes, pattern, most, pattern)
		}
		return fn(e, c, raw)
	}
}

// checkGlob applies rule 1 to glob, the value of the argument arg of the tool op; narrow says
// how to ask for less with that tool's arguments.
func checkGlob(op, arg, glob, narrow string) *Error {
	if len(glob) > maxGlobBytes {
		return fserr.Errorf(op, "", schema.KindPatternTooComplex, "%s is %d bytes long; at most %d are accepted: %s.", arg, len(glob), maxGlobBytes, narrow)
	}
	x := globExpansions(glob)
	if x.depth > maxGlobNesting {
		return fserr.Errorf(op, "", schema.KindPatternTooComplex, "%s nests \"{...}\" alternatives %d deep; at most %d are accepted: %s.", arg, x.depth, maxGlobNesting, narrow)
	}
	if x.n > maxGlobAlternatives {
		return fserr.Errorf(op, "", schema.KindPatternTooComplex, "%s expands to %s \"{...}\" alternatives; at most %d are accepted: %s.", arg, countText(x.n), maxGlobAlternatives, narrow)
	}
	if x.bytes > maxGlobExpandedBytes {
		return fserr.Errorf(op, "", schema.KindPatternTooComplex, "%s expands to %s bytes of patterns over its \"{...}\" alternatives; at most %d are accepted: %s.", arg, countText(x.bytes), maxGlobExpandedBytes, narrow)
	}
	return nil
}

func countText(n uint64) string {
	if n >= saturated {
		return "more than 2^60"
	}
	return strconv.FormatUint(n, 10)
}

// globCost is the cost of one match of glob, within the bounds, for matchUnits: the bytes of its
// expansion, since doublestar tries the alternatives one by one.
func globCost(glob string) uint64 {
	return min(globExpansions(glob).bytes, maxGlobExpandedBytes)
}

// matchUnits is the units of work (budget_work.go) one match of a glob of cost against a name
// of nameLen bytes counts: doublestar's matching is linear in each, and their product, in the
// worst case ("*a" repeated against "aaa…"), costs about 0.2 ns a byte pair, so a unit stands for
// 1500 of them. "**/*.go" against any path counts 1; the heaviest glob accepted against a
// 250-byte name, about 11,000.
func matchUnits(cost uint64, nameLen int) int {
	return 1 + int(cost*uint64(nameLen)/1500)
}

// saturated is where globExpansions stops counting.
const saturated = uint64(1) << 60

// expansion is what doublestar's brace expansion makes of a glob: n patterns of bytes bytes in
// all, from braces nested depth deep.
type expansion struct {
	n, bytes uint64
	depth    int
}

// globExpansions reads glob as doublestar does: "\" escapes the next byte and "[...]" is a
// class, in which braces are literal; a sequence's expansions are the product of its parts',
// an alternation's the sum of its alternatives'. Counts saturate at saturated; an unmatched "{"
// is read to the end (doublestar refuses it anyway).
func globExpansions(glob string) expansion {
	p := globCounter{s: glob}
	n, b := p.seq(0)
	return expansion{n: n, bytes: b, depth: p.depth}
}

type globCounter struct {
	s     string
	i     int
	depth int
}

// seq counts the expansions of a sequence up to an unnested "," or "}" (or the end), and their
// bytes.
func (p *globCounter) seq(level int) (n, bytes uint64) {
	n, bytes = 1, 0
	lit := func(k int) { // k literal bytes in each of the n expansions so far
		bytes = min(bytes+mulSat(n, uint64(k)), saturated)
	}
	for p.i < len(p.s) {
		start := p.i
		switch p.s[p.i] {
		case '\\':
			p.i = min(p.i+2, len(p.s))
		case '[':
			p.skipClass()
		case ',', '}':
			if level > 0 {
				return n, bytes
			}
			p.i++
		case '{':
			p.i++
			p.depth = max(p.depth, level+1)
			an, ab := p.alts(level + 1)
			// Each of the n expansions so far is followed by each of the an alternatives.
			bytes = min(mulSat(bytes, an)+mulSat(ab, n), saturated)
			n = mulSat(n, an)
			continue
		default:
			p.i++
		}
		lit(p.i - start)
	}
	return n, bytes
}

// alts counts the expansions of the alternatives after a "{", consuming the closing "}".
func (p *globCounter) alts(level int) (n, bytes uint64) {
	for {
		sn, sb := p.seq(level)
		n, bytes = min(n+sn, saturated), min(bytes+sb, saturated)
		if p.i >= len(p.s) {
			return n, bytes // unmatched
		}
		c := p.s[p.i]
		p.i++
		if c == '}' {
			return n, bytes
		}
	}
}

// skipClass moves past a "[...]" class as doublestar reads it ("]" right after "[" or "[!"/"[^"
// is a member); an unclosed "[" is skipped alone.
func (p *globCounter) skipClass() {
	j := p.i + 1
	if j < len(p.s) && (p.s[j] == '!' || p.s[j] == '^') {
		j++
	}
	if j < len(p.s) && p.s[j] == ']' {
		j++
	}
	for j < len(p.s) && p.s[j] != ']' {
		if p.s[j] == '\\' {
			j++
		}
		j++
	}
	if j >= len(p.s) {
		p.i++
		return
	}
	p.i = j + 1
}

func mulSat(a, b uint64) uint64 {
	if a == 0 || b == 0 {
		return 0
	}
	if a > saturated/b {
		return saturated
	}
	return a * b
}

// compileRegex applies rule 2 and compiles pattern, the value of the argument arg of the tool
// op. A pattern that does not parse is invalid_pattern, with regexp's reason.
func compileRegex(op, arg, pattern, narrow string) (*regexp.Regexp, *syntax.Regexp, *Error) {
	if len(pattern) > maxRegexBytes {
		return nil, nil, fserr.Errorf(op, "", schema.KindPatternTooComplex, "%s is %d bytes long; at most %d are accepted: %s.", arg, len(pattern), maxRegexBytes, narrow)
	}
	tree, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, nil, fserr.Errorf(op, "", schema.KindInvalidPattern, "Invalid regex pattern: %s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	tree = tree.Simplify()
	prog, err := syntax.Compile(tree)
	if err != nil {
		return nil, nil, fserr.Errorf(op, "", schema.KindInvalidPattern, "Invalid regex pattern: %s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	if len(prog.Inst) > maxRegexInsts {
		return nil, nil, fserr.Errorf(op, "", schema.KindPatternTooComplex, "%s compiles to %d regex instructions; at most %d are accepted (large alternations and counted repeats like x{1000} cost the most): %s.",
			arg, len(prog.Inst), maxRegexInsts, narrow)
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, nil, fserr.Errorf(op, "", schema.KindInvalidPattern, "Invalid regex pattern: %s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	return re, tree, nil
}

// boundedLineMatcher compiles the pattern of search_files or grep (the argument arg of the tool
// op) within the pattern bounds (budget_pattern.go rule 2); narrow says how to ask for less.
func boundedLineMatcher(op, arg, pattern, narrow string) (*scan.Matcher, *Error) {
	re, tree, err := compileRegex(op, arg, pattern, narrow)
	if err != nil {
		return nil, err
	}
	return scan.MatcherOf(re, tree), nil
}
