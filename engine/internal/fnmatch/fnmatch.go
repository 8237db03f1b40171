package fnmatch

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Pattern is one allowed/denied/protected pattern in Python fnmatch's dialect:
//   - "*" matches any run of characters, "/" included; "?" matches one character, "/" included;
//   - "[abc]", "[a-z]" and "[!abc]" are classes ("^" first is a literal member, "]" first is a
//     member, an unclosed "[" is a literal, a reversed range like "[z-a]" matches nothing);
//   - everything else is literal (no "\" escapes, no "{a,b}");
//   - a pattern starting with "**/" is also tried without that prefix, so "**/secrets*" matches a
//     top-level "secrets.yaml";
//   - a pattern starting with "!" is an exception (see List.First), not a match;
//   - matching is against the whole name; it is case-sensitive unless the pattern folds case
//     (the engine's denied and protected patterns do): then the pattern and the name are
//     both lowered with FoldCase before matching, so ".ENV" matches ".env" and "[A-Z]"
//     matches what "[a-z]" matches (a class range that spans letters and non-letters, like
//     "[Z-a]", is lowered too and may match differently).
//
// doublestar has a different dialect ("*" stops at "/"), which is why this is translated by hand.
type Pattern struct {
	src    string
	re     *regexp.Regexp
	top    *regexp.Regexp // the pattern without its leading "**/", or nil
	except bool           // an exception ("!…"): names it matches are not matched by the list
	// Most patterns (every default one but **/secrets*) are a literal, "*literal" or
	// "literal*"; those are matched with string operations, equivalent to re (FuzzFnmatch), since
	// walkers match every entry against every pattern.
	shape    shape
	lit      string
	slashLit string // "/" + lit
	depth    bool
	fold     bool // case-insensitive: lit and re are lowered, and names are lowered before matching
}

// shape is the form of a pattern that string operations can match.
type shape int

const (
	shapeRegexp shape = iota // anything else: use re (and top)
	shapeExact               // "lit"
	shapeSuffix              // "*lit"
	shapePrefix              // "lit*"
)

// shapeOf classifies a pattern body; lit is its literal part.
func shapeOf(body string) (shape, string) {
	if strings.HasPrefix(body, "**/") {
		return shapeRegexp, ""
	}
	meta := func(s string) bool { return strings.ContainsAny(s, "*?[") }
	switch {
	case !meta(body):
		return shapeExact, body
	case strings.HasPrefix(body, "*") && !meta(strings.TrimLeft(body, "*")):
		return shapeSuffix, strings.TrimLeft(body, "*")
	case strings.HasSuffix(body, "*") && !meta(strings.TrimRight(body, "*")):
		return shapePrefix, strings.TrimRight(body, "*")
	}
	return shapeRegexp, ""
}

// compileFnmatch translates an fnmatch pattern to an anchored regexp; with depth it also matches
// every trailing sub-path of a name (what follows any "/").
func compileFnmatch(pat string, depth bool) (*regexp.Regexp, error) {
	src := translateFnmatch(pat)
	if depth {
		src = `(?s)^(?:.*/)?` + strings.TrimPrefix(src, `(?s)^`)
	}
	return regexp.Compile(src)
}

// translateFnmatch returns the RE2 source matching what fnmatch.fnmatchcase(name, pat) matches.
func translateFnmatch(pat string) string {
	var b strings.Builder
	b.WriteString(`(?s)^`)
	rs := []rune(pat)
	for i := 0; i < len(rs); i++ {
		switch c := rs[i]; c {
		case '*':
			for i+1 < len(rs) && rs[i+1] == '*' {
				i++
			}
			b.WriteString(`.*`)
		case '?':
			b.WriteString(`.`)
		case '[':
			j := i + 1
			if j < len(rs) && rs[j] == '!' {
				j++
			}
			if j < len(rs) && rs[j] == ']' {
				j++
			}
			for j < len(rs) && rs[j] != ']' {
				j++
			}
			if j >= len(rs) {
				b.WriteString(`\[`)
				continue
			}
			b.WriteString(translateClass(rs[i+1 : j]))
			i = j
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(`$`)
	return b.String()
}

// translateClass translates the inside of an fnmatch class ("!a-z" of "[!a-z]").
func translateClass(body []rune) string {
	negate := len(body) > 0 && body[0] == '!'
	if negate {
		body = body[1:]
	}
	var items strings.Builder
	for k := 0; k < len(body); k++ {
		lo := body[k]
		if k+2 < len(body) && body[k+1] == '-' {
			hi := body[k+2]
			k += 2
			if lo > hi {
				continue // Python drops empty ranges
			}
			items.WriteString(classRune(lo) + "-" + classRune(hi))
			continue
		}
		items.WriteString(classRune(lo))
	}
	switch {
	case items.Len() == 0 && negate:
		return `.`
	case items.Len() == 0:
		return `[^\x00-\x{10FFFF}]`
	case negate:
		return "[^" + items.String() + "]"
	default:
		return "[" + items.String() + "]"
	}
}

// classRune escapes r for use inside an RE2 character class.
func classRune(r rune) string {
	if r < 0x80 && !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
		return fmt.Sprintf(`\x{%x}`, r)
	}
	return string(r)
}

// New compiles src, matching case exactly; depth makes it bite at any depth (the engine's
// access policy says which lists are depth lists). A leading "!" makes it an exception.
func New(src string, depth bool) (Pattern, error) {
	return NewCase(src, depth, false)
}

// NewCase is newFnPattern that, with fold, matches regardless of letter case.
func NewCase(src string, depth, fold bool) (Pattern, error) {
	body, except := strings.CutPrefix(src, "!")
	if fold {
		body = FoldCase(body)
	}
	p := Pattern{src: src, except: except, depth: depth, fold: fold}
	p.shape, p.lit = shapeOf(body)
	p.slashLit = "/" + p.lit
	// Only the regexp shape matches by regexp. The others are literals with at most a leading or
	// trailing "*", whose translation always compiles, so leaving it out refuses no pattern; it
	// saves most of engine.New's time (a regexp compile is ~10 µs, over 70 default patterns).
	if p.shape != shapeRegexp {
		return p, nil
	}
	var err error
	if p.re, err = compileFnmatch(body, depth); err != nil {
		return Pattern{}, err
	}
	if rest, ok := strings.CutPrefix(body, "**/"); ok {
		if p.top, err = compileFnmatch(rest, depth); err != nil {
			return Pattern{}, err
		}
	}
	return p, nil
}

// Match reports whether name (root-relative, no trailing "/") matches the pattern, also at any
// depth when the pattern is a depth pattern.
func (p *Pattern) Match(name string) bool {
	if p.fold {
		name = FoldCase(name)
	}
	return p.MatchFolded(name)
}

// MatchFolded is match for a name already lowered when the pattern folds case.
func (p *Pattern) MatchFolded(name string) bool {
	switch p.shape {
	case shapeExact:
		return name == p.lit || p.depth && strings.HasSuffix(name, p.slashLit)
	case shapeSuffix:
		return strings.HasSuffix(name, p.lit)
	case shapePrefix:
		return strings.HasPrefix(name, p.lit) || p.depth && strings.Contains(name, p.slashLit)
	}
	return p.re.MatchString(name) || p.top != nil && p.top.MatchString(name)
}

// List is an ordered list of patterns; the first match is the one messages name.
type List []Pattern

// First returns the First pattern matching one of names that no exception of the list matches.
// An exception thus clears a name, not a path: with ".ssh" and "!.ssh/known_hosts" listed,
// ".ssh/known_hosts" is still matched through its ancestor ".ssh".
//
// The patterns of a list all fold case or none does (the engine's access policy builds them so), so names are lowered
// once here, not once per pattern.
func (l List) First(names []string) (string, bool) {
	if len(l) > 0 && l[0].fold {
		names = LowerAll(names)
	}
	for i := range l {
		if l[i].except {
			continue
		}
		for _, n := range names {
			if l[i].MatchFolded(n) && !l.Excepted(n) {
				return l[i].src, true
			}
		}
	}
	return "", false
}

// Index answers first for a list without trying every pattern on every name, as walkers
// ask it for every entry: a literal depth pattern without "/" (".env", "id_rsa") can only match
// a name whose last component is that literal, and "*.ext" only a name whose last "." starts
// that suffix, so those are looked up by the name's base and extension; the rest are tried in
// order. The answer is the one List.First gives (TestPatternIndex_MatchesFirst).
type Index struct {
	l    List
	base map[string]int // literal depth patterns without "/": literal → first index
	ext  map[string]int // "*.x" patterns whose suffix has one "." (at its start) and no "/": suffix → first index
	rest []int          // every other pattern that is not an exception, in order
}

func NewIndex(l List) *Index {
	ix := &Index{l: l, base: map[string]int{}, ext: map[string]int{}}
	for i := range l {
		p := &l[i]
		switch {
		case p.except:
		case p.shape == shapeExact && p.depth && !strings.Contains(p.lit, "/"):
			if _, dup := ix.base[p.lit]; !dup {
				ix.base[p.lit] = i
			}
		case p.shape == shapeSuffix && strings.LastIndexByte(p.lit, '.') == 0 && !strings.Contains(p.lit, "/"):
			if _, dup := ix.ext[p.lit]; !dup {
				ix.ext[p.lit] = i
			}
		default:
			ix.rest = append(ix.rest, i)
		}
	}
	return ix
}

// First is List.First.
func (ix *Index) First(names []string) (string, bool) {
	l := ix.l
	if len(l) == 0 {
		return "", false
	}
	if l[0].fold {
		names = LowerAll(names)
	}
	best := -1
	try := func(i int, n string) {
		if (best < 0 || i < best) && l[i].MatchFolded(n) && !l.Excepted(n) {
			best = i
		}
	}
	for _, n := range names {
		base := n[strings.LastIndexByte(n, '/')+1:]
		if i, ok := ix.base[base]; ok {
			try(i, n)
		}
		if dot := strings.LastIndexByte(n, '.'); dot >= 0 {
			if i, ok := ix.ext[n[dot:]]; ok {
				try(i, n)
			}
		}
		for _, i := range ix.rest {
			if best >= 0 && i >= best {
				break
			}
			if l[i].MatchFolded(n) && !l.Excepted(n) {
				best = i
				break
			}
		}
	}
	if best < 0 {
		return "", false
	}
	return l[best].src, true
}

// Excepted reports whether an exception of the list matches name (lowered if the list folds).
func (l List) Excepted(name string) bool {
	for i := range l {
		if l[i].except && l[i].MatchFolded(name) {
			return true
		}
	}
	return false
}

// FoldCase lowers s for case-insensitive matching: strings.ToLower for ASCII, and for other
// text each rune upper-cased first, so that runes whose capital is an ASCII letter fold with it
// as case-insensitive file systems fold them (the long s "ſ" is "s", the dotless "ı" is "i",
// the Kelvin sign "k", the final sigma "σ"). Patterns and names go through the same function.
func FoldCase(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return strings.Map(func(r rune) rune { return unicode.ToLower(unicode.ToUpper(r)) }, s)
		}
	}
	return strings.ToLower(s)
}

// LowerAll returns names lowered, names itself when none has an upper-case letter.
func LowerAll(names []string) []string {
	for i, n := range names {
		if lo := FoldCase(n); lo != n {
			out := append([]string(nil), names...)
			out[i] = lo
			for j := i + 1; j < len(out); j++ {
				out[j] = FoldCase(out[j])
			}
			return out
		}
	}
	return names
}

// Matchers reports whether the list has a pattern that can match (an exception alone cannot).
func (l List) Matchers() bool {
	for i := range l {
		if !l[i].except {
			return true
		}
	}
	return false
}
