package engine

import (
	"encoding/json"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
)

// Pattern bounds: every glob and regex the model sends has a bounded cost before any work starts.
//
//  1. A glob (find_files' pattern, list_files' and grep's glob, search_files' include_glob) is at
//     most maxGlobBytes long. doublestar expands "{a,b}" alternatives one by one, walking and
//     matching once per expansion: "{a,b}" repeated 40 times is 2^40 walks. So a glob whose
//     alternatives expand to more than maxGlobAlternatives patterns, or nest deeper than
//     maxGlobNesting, is refused (pattern_too_complex) before it is expanded.
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
	maxGlobBytes        = 4096
	maxGlobAlternatives = 256
	maxGlobNesting      = 8
	maxRegexBytes       = 64 << 10
	maxRegexInsts       = 50_000
	maxPatternArgsBytes = 6*(maxRegexBytes+maxGlobBytes+maxPathArgBytes) + 4096
	maxPathArgBytes     = 4096
)

// boundedArgs refuses the arguments of a pattern tool longer than maxPatternArgsBytes (rule 3)
// before fn decodes them; pattern names the tool's pattern argument and most its bound, for the
// message.
func boundedArgs(pattern string, most int, fn toolFunc) toolFunc {
	return func(e *Engine, c *call, raw json.RawMessage) (any, error) {
		if len(raw) > maxPatternArgsBytes {
			return nil, errorf(c.tool, "", kindPatternTooComplex, "The arguments are %d bytes of JSON; %s accepts at most %d (%s of at most %d bytes): use a shorter %s.",
				len(raw), c.tool, maxPatternArgsBytes, pattern, most, pattern)
		}
		return fn(e, c, raw)
	}
}

// checkGlob applies rule 1 to glob, the value of the argument arg of the tool op; narrow says
// how to ask for less with that tool's arguments.
func checkGlob(op, arg, glob, narrow string) *Error {
	if len(glob) > maxGlobBytes {
		return errorf(op, "", kindPatternTooComplex, "%s is %d bytes long; at most %d are accepted: %s.", arg, len(glob), maxGlobBytes, narrow)
	}
	n, depth := globExpansions(glob)
	if depth > maxGlobNesting {
		return errorf(op, "", kindPatternTooComplex, "%s nests \"{...}\" alternatives %d deep; at most %d are accepted: %s.", arg, depth, maxGlobNesting, narrow)
	}
	if n > maxGlobAlternatives {
		count := strconv.FormatUint(n, 10)
		if n == saturated {
			count = "more than 2^60"
		}
		return errorf(op, "", kindPatternTooComplex, "%s expands to %s \"{...}\" alternatives; at most %d are accepted: %s.", arg, count, maxGlobAlternatives, narrow)
	}
	return nil
}

// saturated is where globExpansions stops counting.
const saturated = uint64(1) << 60

// globExpansions counts the patterns doublestar's brace expansion makes of glob (the product,
// over the braces in sequence, of the sum over each one's alternatives), saturating at
// saturated, and the deepest nesting of braces. It reads the glob as doublestar does: "\"
// escapes the next byte and "[...]" is a class, in which braces are literal; an unmatched "{"
// counts as one pattern (doublestar refuses it anyway).
func globExpansions(glob string) (n uint64, depth int) {
	p := globCounter{s: glob}
	n = p.seq(0)
	return n, p.depth
}

type globCounter struct {
	s     string
	i     int
	depth int
}

// seq counts the expansions of a sequence up to an unnested "," or "}" (or the end).
func (p *globCounter) seq(level int) uint64 {
	total := uint64(1)
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case '\\':
			p.i += 2
		case '[':
			p.skipClass()
		case ',', '}':
			if level > 0 {
				return total
			}
			p.i++
		case '{':
			p.i++
			p.depth = max(p.depth, level+1)
			total = mulSat(total, p.alts(level+1))
		default:
			p.i++
		}
	}
	return total
}

// alts counts the expansions of the alternatives after a "{", consuming the closing "}".
func (p *globCounter) alts(level int) uint64 {
	sum := uint64(0)
	for {
		sum = min(sum+p.seq(level), saturated)
		if p.i >= len(p.s) {
			return sum // unmatched
		}
		c := p.s[p.i]
		p.i++
		if c == '}' {
			return sum
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
		return nil, nil, errorf(op, "", kindPatternTooComplex, "%s is %d bytes long; at most %d are accepted: %s.", arg, len(pattern), maxRegexBytes, narrow)
	}
	tree, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, nil, errorf(op, "", kindInvalidPattern, "Invalid regex pattern: %s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	tree = tree.Simplify()
	prog, err := syntax.Compile(tree)
	if err != nil {
		return nil, nil, errorf(op, "", kindInvalidPattern, "Invalid regex pattern: %s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	if len(prog.Inst) > maxRegexInsts {
		return nil, nil, errorf(op, "", kindPatternTooComplex, "%s compiles to %d regex instructions; at most %d are accepted (large alternations and counted repeats like x{1000} cost the most): %s.",
			arg, len(prog.Inst), maxRegexInsts, narrow)
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, nil, errorf(op, "", kindInvalidPattern, "Invalid regex pattern: %s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	return re, tree, nil
}
