package jsonl

import (
	"io"
	"runtime"
	"strings"
	"testing"
)

// repeatReader yields n copies of b, then the bytes of tail, without holding them in memory.
type repeatReader struct {
	b    byte
	n    int
	tail *strings.Reader
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return r.tail.Read(p)
	}
	k := min(len(p), r.n)
	for i := range k {
		p[i] = r.b
	}
	r.n -= k
	return k, nil
}

// TestReader_OversizeNotBuffered pins framing rule 2 (rpc/doc.go): a line far beyond the limit is
// skipped in buffer-sized pieces, never held whole, and the line after it is read normally.
func TestReader_OversizeNotBuffered(t *testing.T) {
	const huge, limit = 64 << 20, 1 << 20
	lr := NewReader(&repeatReader{b: 'x', n: huge, tail: strings.NewReader("\n{\"ok\":1}\n")}, limit)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	line, tooLong, err := lr.Next()
	runtime.ReadMemStats(&after)
	if !tooLong || err != nil || len(line) != 0 {
		t.Fatalf("Next() = %d bytes, %v, %v; want tooLong", len(line), tooLong, err)
	}
	// Up to the limit the line is buffered (with append's growth, a few times the limit in
	// total); past it nothing more. Holding the whole line would be 64 MiB.
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 16*limit {
		t.Errorf("skipping a %d-byte line allocated %d bytes; want a few times the %d-byte limit", huge, grew, limit)
	}
	line, tooLong, err = lr.Next()
	if string(line) != `{"ok":1}` || tooLong || err != nil {
		t.Errorf("Next() after the oversize line = %q, %v, %v", line, tooLong, err)
	}
	if _, _, err := lr.Next(); err != io.EOF {
		t.Errorf("Next() at the end = %v; want io.EOF", err)
	}
}

// TestReader_Limits pins the exact boundary of framing rule 2 (rpc/doc.go) across buffer refills.
func TestReader_Limits(t *testing.T) {
	const limit = 3*readBufferBytes + 17 // spans several ReadSlice calls
	for _, tc := range []struct {
		name    string
		n       int
		term    string
		tooLong bool
	}{
		{"at the limit", limit, "\n", false},
		{"at the limit, CRLF", limit, "\r\n", false},
		{"one over", limit + 1, "\n", true},
		{"one over, CRLF", limit + 1, "\r\n", true},
		{"at the limit, no terminator", limit, "", false},
		{"one over, no terminator", limit + 1, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			input := strings.Repeat("a", tc.n) + tc.term
			if tc.term != "" {
				input += "next\n"
			}
			lr := NewReader(strings.NewReader(input), limit)
			line, tooLong, err := lr.Next()
			if err != nil || tooLong != tc.tooLong || (!tooLong && len(line) != tc.n) {
				t.Fatalf("Next() = %d bytes, tooLong %v, %v; want tooLong %v", len(line), tooLong, err, tc.tooLong)
			}
			if tc.term == "" {
				if _, _, err := lr.Next(); err != io.EOF {
					t.Errorf("after the last line: %v; want io.EOF", err)
				}
				return
			}
			if line, _, _ := lr.Next(); string(line) != "next" {
				t.Errorf("following line = %q; want next", line)
			}
		})
	}
}
