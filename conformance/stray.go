package conformance

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"sync"
)

// strayLines counts the lines a target wrote on stdout that are not JSON: a banner, a log line,
// a progress message. Such a line is skipped and grading goes on (the official MCP clients
// tolerate them too); the count and the first line, bounded, go into the summary once, so one
// chatty server is not graded as 600 crashes.
//
// What this does not excuse: a line that is JSON but not a protocol message (wire violations),
// and a server that answers nothing but stray lines still fails each call as a hang.
type strayLines struct {
	mu    sync.Mutex
	n     int
	first string
}

// maxStrayExcerpt bounds the excerpt of the first stray line.
const maxStrayExcerpt = 200

func (s *strayLines) add(line []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	if s.n == 1 {
		s.first = excerpt(string(bytes.TrimRight(line, "\r\n")), maxStrayExcerpt)
	}
}

func (s *strayLines) get() (int, string) {
	if s == nil {
		return 0, ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n, s.first
}

// isJSONLine reports whether a stdout line is one JSON object or array (a message or a batch).
func isJSONLine(line []byte) bool {
	t := bytes.TrimSpace(line)
	return len(t) > 0 && (t[0] == '{' || t[0] == '[') && json.Valid(t)
}

// strayFilter passes a target's stdout on line by line, dropping the lines that are not JSON
// into stray.
type strayFilter struct {
	src   *bufio.Reader
	rc    io.Closer
	stray *strayLines
	buf   []byte
	err   error
}

func newStrayFilter(r io.ReadCloser, stray *strayLines) *strayFilter {
	return &strayFilter{src: bufio.NewReaderSize(r, 1<<16), rc: r, stray: stray}
}

func (f *strayFilter) Read(p []byte) (int, error) {
	for len(f.buf) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		line, err := f.src.ReadBytes('\n')
		f.err = err
		switch {
		case isJSONLine(line):
			f.buf = line
		case len(bytes.TrimSpace(line)) > 0:
			f.stray.add(line)
		}
	}
	n := copy(p, f.buf)
	f.buf = f.buf[n:]
	return n, nil
}

func (f *strayFilter) Close() error { return f.rc.Close() }

// excerpt bounds s to about n bytes (on a rune boundary), saying how long it was when cut.
func excerpt(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && cut < len(s) && !utf8RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "… (truncated: " + strconv.Itoa(len(s)) + " bytes)"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// strayCounter is a session that counts its target's stray stdout lines.
type strayCounter interface{ strayLines() *strayLines }
