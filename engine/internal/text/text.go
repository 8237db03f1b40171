package text

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// DecodeLenient decodes b as UTF-8 the way Python's bytes.decode("utf-8", "replace") does: every
// maximal invalid subpart (a truncated sequence, or a single stray byte) becomes one U+FFFD.
// Read and search show text this way; hashes and edits use the raw bytes.
func DecodeLenient(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b) + 8)
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			sb.WriteByte(b[i])
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			sb.WriteRune(utf8.RuneError)
			i += invalidSubpart(b[i:])
			continue
		}
		sb.Write(b[i : i+n])
		i += n
	}
	return sb.String()
}

// RuneCountLenient counts the code points DecodeLenient(b) would have.
func RuneCountLenient(b []byte) int {
	if utf8.Valid(b) {
		return utf8.RuneCount(b)
	}
	n := 0
	for i := 0; i < len(b); n++ {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, w := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && w == 1 {
			w = invalidSubpart(b[i:])
		}
		i += w
	}
	return n
}

// invalidSubpart returns the length (at least 1) of the maximal subpart of an ill-formed UTF-8
// sequence at the start of b: the lead byte plus the continuation bytes that are still valid for
// it (Unicode §3.9, "U+FFFD substitution of maximal subparts", which Python follows).
func invalidSubpart(b []byte) int {
	c := b[0]
	var need int
	lo, hi := byte(0x80), byte(0xBF)
	switch {
	case c >= 0xC2 && c <= 0xDF:
		need = 2
	case c == 0xE0:
		need, lo = 3, 0xA0
	case c >= 0xE1 && c <= 0xEC, c == 0xEE, c == 0xEF:
		need = 3
	case c == 0xED:
		need, hi = 3, 0x9F
	case c == 0xF0:
		need, lo = 4, 0x90
	case c >= 0xF1 && c <= 0xF3:
		need = 4
	case c == 0xF4:
		need, hi = 4, 0x8F
	default:
		return 1
	}
	k := 1
	if k < len(b) && b[k] >= lo && b[k] <= hi {
		k++
		for k < need && k < len(b) && b[k] >= 0x80 && b[k] <= 0xBF {
			k++
		}
	}
	if k >= need { // cannot happen for an invalid sequence, but never return a valid one as invalid
		return 1
	}
	return k
}

// RuneCounter counts code points of a stream fed in chunks. An incomplete sequence at a chunk's
// end (at most 3 bytes) is carried over and completed from the next chunk's first bytes, so no
// chunk is ever copied.
type RuneCounter struct {
	n     int
	carry []byte
}

func (rc *RuneCounter) Write(b []byte) {
	if len(rc.carry) > 0 {
		joined := append(rc.carry, b[:min(len(b), utf8.UTFMax)]...)
		if !utf8.FullRune(joined) {
			rc.carry = joined // still incomplete: b was shorter than the sequence
			return
		}
		// The carry is a valid prefix, so the unit starting there spans at least all of it.
		r, w := utf8.DecodeRune(joined)
		if r == utf8.RuneError && w == 1 {
			w = invalidSubpart(joined)
		}
		w = max(w, len(rc.carry))
		rc.n++
		b = b[w-len(rc.carry):]
		rc.carry = rc.carry[:0]
	}
	// Keep back a trailing sequence that may still be completed by the next chunk.
	cut := len(b)
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if b[i] >= 0xC0 { // a lead byte
			if !utf8.FullRune(b[i:]) {
				cut = i
			}
			break
		}
		if b[i] < 0x80 {
			break
		}
	}
	rc.n += RuneCountLenient(b[:cut])
	rc.carry = append(rc.carry, b[cut:]...)
}

// Total returns the count, counting any carried bytes as what they decode to.
func (rc *RuneCounter) Total() int { return rc.n + RuneCountLenient(rc.carry) }

// Thousands formats n with "," separators, as Python's "{:,}".
func Thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// CountLines returns the number of lines of s split on "\n" only: a final line without "\n"
// counts, a trailing "\n" does not start another ("" is 0 lines, "a\nb" 2).
func CountLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}
