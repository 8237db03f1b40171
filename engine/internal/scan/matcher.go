package scan

import (
	"bytes"
	"io"
	"regexp"
	"regexp/syntax"
	"unicode"
	"unicode/utf8"

	"github.com/fsbox/fsbox/engine/internal/relpath"
	"github.com/fsbox/fsbox/engine/internal/text"
)

// SearchChunk is the read size and the starting buffer size of each search worker's [State]. A
// buffer grows only to hold one line longer than a chunk, up to the size the caller passes to
// [Matcher.Scan]; the caller bounds that size (search_files skips files over 10 MiB).
const SearchChunk = 64 << 10

// Matcher matches a search pattern against lines (split on \n; a \r before the \n is part of
// the terminator, so "$" works on CRLF files). When the pattern has a literal every match must
// contain, lines are found by searching the buffer for that literal (bytes.Index, vectorised)
// and only those lines are given to the regexp.
type Matcher struct {
	Re   *regexp.Regexp
	lit  []byte // required literal, nil when there is none worth using
	fold bool   // lit is matched ASCII case-insensitively ((?i) patterns)
	rare int    // index in lit of its least common byte, or -1 to use bytes.Index
}

// NewMatcher compiles pattern (RE2 syntax, as regexp.Compile), without the pattern bounds:
// for tests. Tools compile within the pattern bounds and use [MatcherOf].
func NewMatcher(pattern string) (*Matcher, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, err
	}
	tree, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, err
	}
	return MatcherOf(re, tree.Simplify()), nil
}

// MatcherOf is the matcher of re, whose simplified syntax tree is tree.
func MatcherOf(re *regexp.Regexp, tree *syntax.Regexp) *Matcher {
	m := &Matcher{Re: re, rare: -1}
	if lit := requiredLiteral(tree); lit.s != "" {
		m.lit, m.fold = []byte(lit.s), lit.fold
		m.rare = rarestByte(m.lit, m.fold)
	}
	return m
}

// rarestByte returns the index of the byte of lit that is least common in source code and prose,
// when it is rare enough that scanning for it (bytes.IndexByte, vectorised) and verifying the
// literal around each hit beats bytes.Index, which scans for the literal's first byte; -1
// otherwise. "func (*Reader)" is found by its "R", not by every "f" of a Go file. With fold a
// letter counts as common as its commoner case (both are scanned for), and there is no -1.
func rarestByte(lit []byte, fold bool) int {
	best, bestRank := -1, 256
	for i, c := range lit {
		r := byteRank(c)
		if fold && relpath.IsASCIILetter(c) {
			r = max(byteRank(c|0x20), byteRank(c&^0x20))
		}
		if r < bestRank {
			best, bestRank = i, r
		}
	}
	if !fold && bestRank >= byteRank('a') {
		return -1
	}
	return best
}

// commonBytes lists bytes from most to least frequent in typical source files (whitespace,
// lower-case letters in English order, the punctuation of C-like languages).
const commonBytes = " \te\ntaoinsrlhdcu.(),_pmf\"=g;:b/y{}w*vk0-1x&[]<>2#!'3+|q4j5z6789%"

// byteRank orders bytes by how common they are: the position in commonBytes, then upper-case
// letters, then everything else (rarest).
func byteRank(c byte) int {
	if i := bytes.IndexByte([]byte(commonBytes), c); i >= 0 {
		return 255 - len(commonBytes) + i
	}
	if 'A' <= c && c <= 'Z' {
		return 100 + int(c-'A')
	}
	return 0
}

// index returns the offset of the first occurrence of m.lit in s (ASCII case-insensitively with
// m.fold), or -1.
func (m *Matcher) index(s []byte) int {
	if m.rare < 0 {
		return bytes.Index(s, m.lit)
	}
	k, n := m.rare, len(m.lit)
	c1, c2 := m.lit[k], m.lit[k]
	if m.fold && relpath.IsASCIILetter(c1) {
		c1, c2 = c1|0x20, c1&^0x20
	}
	// next1 and next2 are the next positions of c1 and c2 at or after pos (-1: none left), kept
	// across hits so that a frequent case never makes the scan for the other one quadratic.
	next1, next2 := -2, -2
	find := func(c byte, from int) int {
		if j := bytes.IndexByte(s[from:], c); j >= 0 {
			return from + j
		}
		return -1
	}
	for pos := k; pos < len(s); {
		if next1 != -1 && next1 < pos {
			next1 = find(c1, pos)
		}
		j := next1
		if c2 != c1 {
			if next2 != -1 && next2 < pos {
				next2 = find(c2, pos)
			}
			if j < 0 || next2 >= 0 && next2 < j {
				j = next2
			}
		}
		if j < 0 {
			return -1
		}
		start := j - k
		if start+n <= len(s) {
			w := s[start : start+n]
			if m.fold && bytes.EqualFold(w, m.lit) || !m.fold && bytes.Equal(w, m.lit) {
				return start
			}
		}
		pos = j + 1
	}
	return -1
}

// literal is a string every match contains; fold: up to ASCII case.
type literal struct {
	s    string
	fold bool
}

// requiredLiteral returns the longest literal that every match of re contains (s is "" when
// there is none). A case-folded literal ((?i)) is cut at the characters whose case variants are
// not all ASCII ("k" also matches the Kelvin sign, "s" the long s, "é" is two bytes in either
// case), since the buffer search compares bytes; the pieces between are still required.
func requiredLiteral(re *syntax.Regexp) literal {
	switch re.Op {
	case syntax.OpLiteral:
		fold := re.Flags&syntax.FoldCase != 0
		var best, run []rune
		runFolds, bestFolds := false, false
		flush := func() {
			if len(run) > len(best) {
				best, bestFolds = run, runFolds
			}
			run, runFolds = nil, false
		}
		for _, r := range re.Rune {
			switch {
			case r == utf8.RuneError:
				flush() // the regexp matches invalid bytes as U+FFFD; a byte search would not
			case !fold || unicode.SimpleFold(r) == r:
				run = append(run, r)
			case asciiFoldOrbit(r):
				run = append(run, r)
				runFolds = true
			default:
				flush()
			}
		}
		flush()
		return literal{s: string(best), fold: bestFolds}
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		var best literal
		for _, sub := range re.Sub {
			l := requiredLiteral(sub)
			if len(l.s) > len(best.s) || len(l.s) == len(best.s) && best.fold && !l.fold {
				best = l
			}
		}
		return best
	}
	return literal{}
}

// asciiFoldOrbit reports whether r and every character it case-folds to are ASCII.
func asciiFoldOrbit(r rune) bool {
	if r >= utf8.RuneSelf {
		return false
	}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// State is one worker's reusable buffer.
type State struct {
	Buf   []byte
	Whole []byte // grep with context: the whole file (grep.go)
}

// Scan reads size bytes of r (the size fstat reported; a file that grows meanwhile is read as it
// was) and calls emit with the 1-based number and the text (terminator removed) of each matching
// line, until emit returns false. It reports binary files (a NUL byte in the first
// text.SniffBytes) without scanning them.
func (m *Matcher) Scan(st *State, r io.Reader, size int64, emit func(line int, text []byte) bool) (binary bool, err error) {
	if st.Buf == nil {
		st.Buf = make([]byte, SearchChunk)
	}
	buf := st.Buf
	n := 0           // bytes held in buf
	var read int64   // bytes read from r
	lines := 0       // newlines before buf[0]
	sniffed := false // binary check done (the first fill holds at least text.SniffBytes or all)
	for {
		eof := read >= size
		for !eof && n < len(buf) {
			want := min(int64(len(buf)-n), size-read)
			k, rerr := r.Read(buf[n : n+int(want)])
			n += k
			read += int64(k)
			switch {
			case rerr == io.EOF || read >= size:
				eof = true
			case rerr != nil:
				return false, rerr
			}
		}
		if !sniffed {
			sniffed = true
			if text.HasNUL(buf[:min(n, text.SniffBytes)]) {
				return true, nil
			}
		}
		end := n
		if !eof {
			end = bytes.LastIndexByte(buf[:n], '\n') + 1
			if end == 0 {
				// One line longer than the buffer: grow it, doubling, or to what is left of the
				// file once that is near (so a 9.5 MB line costs one 9.5 MB buffer, not a 16 MB
				// one), bounded by the file-size cap.
				grown := 2 * len(buf)
				if rest := n + int(size-read) + 1; grown > rest/2 {
					grown = rest // within a factor of two of the whole: take it at once
				}
				bigger := make([]byte, grown)
				copy(bigger, buf[:n])
				buf = bigger
				st.Buf = buf
				continue
			}
		}
		if !m.scanLines(buf[:end], &lines, emit) {
			return false, nil
		}
		if eof {
			return false, nil
		}
		n = copy(buf, buf[end:n])
	}
}

// scanLines matches the whole lines in region (each ends in \n except, at the end of the file,
// the last); lines counts the newlines seen so far and is advanced past region.
func (m *Matcher) scanLines(region []byte, lines *int, emit func(int, []byte) bool) bool {
	off := 0
	for off < len(region) {
		start := off
		if m.lit != nil {
			i := m.index(region[off:])
			if i < 0 {
				*lines += bytes.Count(region[off:], newline)
				return true
			}
			start = off + bytes.LastIndexByte(region[off:off+i], '\n') + 1
			*lines += bytes.Count(region[off:start], newline)
		}
		end, next := len(region), len(region)
		if j := bytes.IndexByte(region[start:], '\n'); j >= 0 {
			end, next = start+j, start+j+1
		}
		line := region[start:end]
		if k := len(line) - 1; k >= 0 && line[k] == '\r' {
			line = line[:k]
		}
		if m.Re.Match(line) && !emit(*lines+1, line) {
			return false
		}
		if next > end {
			*lines++
		}
		off = next
	}
	return true
}

var newline = []byte{'\n'}
