package scan

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/fsbox/fsbox/engine/internal/text"
)

// TestLineMatcher_Chunks drives the scanner with one-byte reads and with lines longer than a
// chunk, so lines straddle every buffer boundary.
func TestLineMatcher_Chunks(t *testing.T) {
	long := strings.Repeat("y", 3*SearchChunk+17)
	content := "a needle\n" + long + "needle\n" + long + "\nneedle" + long + "\r\nlast needle"
	want := []int{1, 2, 4, 5}
	for _, pattern := range []string{"needle", `need(le)`, `n.edle`} {
		m, err := NewMatcher(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for name, r := range map[string]func() *strings.Reader{"whole": func() *strings.Reader { return strings.NewReader(content) }} {
			for _, mode := range []string{"plain", "one byte"} {
				var got []int
				var st State
				var src = iotestReader(r(), mode == "one byte")
				if _, err := m.Scan(&st, src, int64(len(content)), func(line int, text []byte) bool {
					got = append(got, line)
					return true
				}); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s %s %q: lines %v; want %v", name, mode, pattern, got, want)
				}
			}
		}
	}
}

func iotestReader(r *strings.Reader, oneByte bool) interface{ Read([]byte) (int, error) } {
	if oneByte {
		return iotest.OneByteReader(r)
	}
	return r
}

func TestRequiredLiteral(t *testing.T) {
	for _, tc := range []struct{ pattern, want string }{
		{`func \(\w+ \*Reader\)`, " *Reader)"},
		{`hello`, "hello"},
		{`(?i)hello`, "hello"},
		{`(?i)123`, "123"},
		{`(?i)token`, "to"},
		{`(?i)Tokens!`, "to"},
		{`(?i)caféx`, "caf"},
		{`(?i)séance`, "ance"},
		{`a|b`, ""},
		{`(foo)+bar`, "foo"},
		{`x*`, ""},
		{`\d{2,}abc`, "abc"},
		{`^$`, ""},
	} {
		m, err := NewMatcher(tc.pattern)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(m.lit); !strings.EqualFold(got, tc.want) {
			t.Errorf("requiredLiteral(%q) = %q; want %q", tc.pattern, got, tc.want)
		}
	}
}

// TestLineMatcher_Index checks the rare-byte literal search against bytes.Index.
func TestLineMatcher_Index(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, lit := range []string{"func (*Reader)", "Reader", "aaR", "RR", "x", "é*", "ab", "Ab"} {
		for _, fold := range []bool{false, true} {
			m := &Matcher{lit: []byte(lit), fold: fold, rare: rarestByte([]byte(lit), fold)}
			for range 2000 {
				b := make([]byte, rng.IntN(40))
				for i := range b {
					b[i] = "RabefuncAB (*eaderRDx)é"[rng.IntN(24)]
				}
				want := bytes.Index(b, m.lit)
				if fold {
					want = bytes.Index(asciiLower(b), asciiLower(m.lit))
				}
				if got := m.index(b); got != want {
					t.Fatalf("index(%q, %q, fold %v) = %d; want %d (rare %d)", b, lit, fold, got, want, m.rare)
				}
			}
		}
	}
	if r := rarestByte([]byte("func (*Reader)"), false); r != 7 {
		t.Errorf("rarestByte(func (*Reader)) = %d; want 7 (R)", r)
	}
}

func asciiLower(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}

// FuzzLineMatcher checks the scanner (chunking, literal prefilter, CRLF handling) against the
// plain per-line regexp on arbitrary content, for a set of patterns with and without literals.
func FuzzLineMatcher(f *testing.F) {
	patterns := []string{"needle", `(?i)NeEdLe`, `ne+dle$`, `^\s*x`, `a.c`, `(?i)kelvin`, `é`, `\bfoo\b`, `^$`}
	f.Add([]byte("a needle\r\nNEEDLE\nx\n\nabc\nfoo bar\n"), uint8(0))
	f.Add([]byte("\u212Aelvin KELVIN\n"), uint8(5))
	f.Fuzz(func(t *testing.T, content []byte, which uint8) {
		pattern := patterns[int(which)%len(patterns)]
		m, err := NewMatcher(pattern)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		var st State
		binary, err := m.Scan(&st, bytes.NewReader(content), int64(len(content)), func(line int, text []byte) bool {
			got = append(got, line)
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		if bytes.IndexByte(content[:min(len(content), text.SniffBytes)], 0) >= 0 {
			if !binary {
				t.Fatal("a NUL in the first 8192 bytes was not reported as binary")
			}
			return
		}
		var want []int
		lines := bytes.Split(content, []byte("\n"))
		if len(lines[len(lines)-1]) == 0 {
			lines = lines[:len(lines)-1]
		}
		for i, l := range lines {
			if m.Re.Match(bytes.TrimSuffix(l, []byte("\r"))) {
				want = append(want, i+1)
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("pattern %q: lines %v; want %v", pattern, got, want)
		}
	})
}
