package rpc

import (
	"bytes"
	"context"
	"encoding/json"
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

// TestLineReader_OversizeNotBuffered pins framing rule 2: a line far beyond the limit is skipped
// in buffer-sized pieces, never held whole, and the line after it is read normally.
func TestLineReader_OversizeNotBuffered(t *testing.T) {
	const huge, limit = 64 << 20, 1 << 20
	lr := newLineReader(&repeatReader{b: 'x', n: huge, tail: strings.NewReader("\n{\"ok\":1}\n")}, limit)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	line, tooLong, err := lr.next()
	runtime.ReadMemStats(&after)
	if !tooLong || err != nil || len(line) != 0 {
		t.Fatalf("next() = %d bytes, %v, %v; want tooLong", len(line), tooLong, err)
	}
	// Up to the limit the line is buffered (with append's growth, a few times the limit in
	// total); past it nothing more. Holding the whole line would be 64 MiB.
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 16*limit {
		t.Errorf("skipping a %d-byte line allocated %d bytes; want a few times the %d-byte limit", huge, grew, limit)
	}
	line, tooLong, err = lr.next()
	if string(line) != `{"ok":1}` || tooLong || err != nil {
		t.Errorf("next() after the oversize line = %q, %v, %v", line, tooLong, err)
	}
	if _, _, err := lr.next(); err != io.EOF {
		t.Errorf("next() at the end = %v; want io.EOF", err)
	}
}

// TestLineReader_Limits pins the exact boundary of framing rule 2 across buffer refills.
func TestLineReader_Limits(t *testing.T) {
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
			lr := newLineReader(strings.NewReader(input), limit)
			line, tooLong, err := lr.next()
			if err != nil || tooLong != tc.tooLong || (!tooLong && len(line) != tc.n) {
				t.Fatalf("next() = %d bytes, tooLong %v, %v; want tooLong %v", len(line), tooLong, err, tc.tooLong)
			}
			if tc.term == "" {
				if _, _, err := lr.next(); err != io.EOF {
					t.Errorf("after the last line: %v; want io.EOF", err)
				}
				return
			}
			if line, _, _ := lr.next(); string(line) != "next" {
				t.Errorf("following line = %q; want next", line)
			}
		})
	}
}

func TestAppendUnescapedHTML(t *testing.T) {
	for in, want := range map[string]string{
		`"\u003cb\u003e \u0026"`:   `"<b> &"`,
		`"\\u003c"`:                `"\\u003c"`,
		`"\\\u003c"`:               `"\\<"`,
		`"\u00e9\u2028\n\""`:       `"\u00e9\u2028\n\""`,
		`{"a\u0026":["\u003e",1]}`: `{"a&":[">",1]}`,
		`"\u003C"`:                 `"\u003C"`,
		`"trailing\\"`:             `"trailing\\"`,
		``:                         ``,
	} {
		got := string(appendUnescapedHTML(nil, []byte(in)))
		if got != want {
			t.Errorf("appendUnescapedHTML(%s) = %s; want %s", in, got, want)
		}
		var a, b any
		if in != "" && (json.Unmarshal([]byte(in), &a) != nil || json.Unmarshal([]byte(got), &b) != nil || !jsonEqual(a, b)) {
			t.Errorf("appendUnescapedHTML(%s) = %s: not the same JSON value", in, got)
		}
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// FuzzReadFrame feeds arbitrary input, then a sentinel request, through Serve with every method
// inline, and checks the replies against what classify alone says about each line: Serve never
// panics or stops early, every output line is well formed, every non-blank line that is
// oversize, not JSON, or not an object gets its error reply with "id": null, a request gets its id
// back byte for byte, and the sentinel is answered last.
func FuzzReadFrame(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"id"}`,
		`{"id":-123456789012345678901234567890,"method":"id"}`,
		`{"id":"a\u00e9\"","method":"id","params":{}}`,
		"{not json}\n[1,2]\n\n  \r\n\xEF\xBB\xBF{\"method\":\"n\"}",
		`{"jsonrpc":"2.0","id":null,"method":"x"}`,
		`{"jsonrpc":"2.0","id":"srv-1","result":1}`,
		`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"id":1}}`,
		strings.Repeat("y", 300),
		`{"id":1,"method":"id","id":2}`,
		`{"id":1,"method":"id","params":3}`,
	} {
		f.Add([]byte(seed))
	}
	const limit = 256
	const sentinel = `{"jsonrpc":"2.0","id":"sentinel","method":"id"}`
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		input := append(append(bytes.Clone(data), '\n'), sentinel+"\n"...)
		opts := Options{MaxMessageBytes: limit, Inline: func(string) bool { return true }, Logf: func(string, ...any) {}}
		handler := HandlerFunc(func(ctx context.Context, c *Conn, req *Request) (any, error) { return req.ID, nil })
		if err := Serve(context.Background(), bytes.NewReader(input), &out, handler, opts); err != nil {
			t.Fatalf("Serve = %v", err)
		}
		assertWellFormed(t, out.Bytes())
		replies := bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n"))
		if last := replies[len(replies)-1]; string(last) != `{"jsonrpc":"2.0","id":"sentinel","result":"sentinel"}` {
			t.Fatalf("last reply = %s; want the sentinel's", last)
		}
		replies = replies[:len(replies)-1]
		for _, line := range bytes.Split(data, []byte("\n")) {
			want := expectReply(line, limit)
			if want == "" {
				continue // no reply expected for certain; the line may or may not get one
			}
			if len(replies) == 0 {
				t.Fatalf("line %q: no reply; want %s", line, want)
			}
			// Lines without a certain expectation may have replied in between; skip to ours.
			for len(replies) > 0 && !bytes.HasPrefix(replies[0], []byte(want)) {
				replies = replies[1:]
			}
			if len(replies) == 0 {
				t.Fatalf("line %q: no reply starting %s in %s", line, want, out.Bytes())
			}
			replies = replies[1:]
		}
	})
}

// expectReply returns the start of the reply a line must get, from classify's and the frame
// rules' point of view, or "" when that is not certain without running the handler.
func expectReply(line []byte, limit int) string {
	line = bytes.TrimSuffix(line, []byte("\r"))
	if len(line) > limit {
		return `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`
	}
	line, ok := trimLine(line)
	if !ok {
		return ""
	}
	msg, rej := classify(line)
	switch {
	case rej != nil && rej.silent:
		return ""
	case rej != nil && rej.id == nil:
		if !json.Valid(line) && rej.err.Code != CodeParseError {
			return "classify answered invalid JSON with a code other than -32700"
		}
		return `{"jsonrpc":"2.0","id":null,"error":{"code":` + jsonInt(rej.err.Code) + `,`
	case rej != nil:
		return `{"jsonrpc":"2.0","id":` + string(rej.id) + `,"error":`
	case msg.kind == kindRequest && msg.method != CancelMethod:
		return `{"jsonrpc":"2.0","id":` + string(msg.id) + `,"result":`
	}
	return ""
}

func jsonInt(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestOptions_Defaults pins the zero Options: the 16 MiB line limit, the default bounds of
// backpressure (none of them unbounded), and no inline method.
func TestOptions_Defaults(t *testing.T) {
	c := newConn(context.Background(), strings.NewReader(""), io.Discard, HandlerFunc(testHandler), Options{})
	defer c.Close()
	if c.lines.max != DefaultMaxMessageBytes || DefaultMaxMessageBytes != 16<<20 {
		t.Errorf("line limit = %d; want 16 MiB", c.lines.max)
	}
	if n := cap(c.slots); n != DefaultMaxConcurrent() || n < 8 || n > 64 {
		t.Errorf("concurrency bound = %d; want DefaultMaxConcurrent() = %d, in [8, 64]", n, DefaultMaxConcurrent())
	}
	if c.queue.maxN != DefaultMaxQueued || c.queue.maxBytes != DefaultMaxMessageBytes {
		t.Errorf("request queue bound = %d requests, %d bytes; want %d, %d", c.queue.maxN, c.queue.maxBytes, DefaultMaxQueued, DefaultMaxMessageBytes)
	}
	if c.out.max != DefaultMaxOutputBytes || DefaultMaxOutputBytes != 4<<20 {
		t.Errorf("output bound = %d; want 4 MiB", c.out.max)
	}
	if c.inline("initialize") {
		t.Error("zero Options inline a method")
	}
}

// TestTopMembers_MatchesDecoder pins the hand-written member scan to encoding/json's reading of
// the same objects: nested values, strings holding brackets, quotes and escapes, escaped member
// names, numbers, literals, whitespace everywhere, and duplicates.
func TestTopMembers_MatchesDecoder(t *testing.T) {
	for _, obj := range []string{
		`{}`, ` { } `,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":[1,{"b":"}]"}]}}`,
		"{ \"id\" :\t-12.5e3 ,\r\n\"method\": \"x\\\"}\" , \"params\" : [ ] }",
		`{"params":{"s":"\\","t":"\"{["},"id":"a\"b","method":"m"}`,
		`{"\u0069d":7,"method":"m"}`, `{"i\\d":7}`,
		`{"id":true,"result":null,"error":false,"x":{"id":2}}`,
		`{"id":1,"id":2}`, `{"method":"a","x":1,"method":"b"}`,
		`{"params":"{\"id\":1}","id":[1,[2,[3]]],"error":{"code":-1,"message":"]}"}}`,
	} {
		got, gotDup := topMembers([]byte(obj))
		want, wantDup := decoderMembers(t, []byte(obj))
		if gotDup != wantDup {
			t.Errorf("%s: duplicate %q; want %q", obj, gotDup, wantDup)
			continue
		}
		if wantDup != "" {
			continue
		}
		if len(got) != len(want) {
			t.Errorf("%s: members %v; want %v", obj, got, want)
		}
		for k, v := range want {
			if string(got[k]) != string(v) {
				t.Errorf("%s: member %s = %s; want %s", obj, k, got[k], v)
			}
		}
	}
}

// decoderMembers is the reference: the known members as encoding/json's Decoder reads them.
func decoderMembers(t *testing.T, obj []byte) (map[string]json.RawMessage, string) {
	m := map[string]json.RawMessage{}
	dec := json.NewDecoder(bytes.NewReader(obj))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		name := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		for _, known := range members {
			if name == known {
				if _, seen := m[name]; seen {
					return m, name
				}
				m[name] = v
			}
		}
	}
	return m, ""
}

// Only json.Marshal's HTML escapes send a line through the unescape pass; the \u00XX escapes of
// control characters (ESC, NUL), which are everywhere in terminal output, do not.
func TestHasHTMLEscape(t *testing.T) {
	for in, want := range map[string]bool{
		`"a\u003cb"`: true, `"\u0026"`: true, `"x\u003e"`: true,
		`"\u001b[31mred\u001b[0m"`: false, `"\u0000"`: false, `"plain"`: false, `"\u00"`: false,
		`"\u001b then \u003c"`: true,
	} {
		if got := hasHTMLEscape([]byte(in)); got != want {
			t.Errorf("hasHTMLEscape(%s) = %v; want %v", in, got, want)
		}
	}
}
