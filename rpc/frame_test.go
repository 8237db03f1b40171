package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/rpc/jsonl"
)

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
// inline, and checks the replies against what jsonl.Classify alone says about each line: Serve never
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

// expectReply returns the start of the reply a line must get, from jsonl.Classify's and the frame
// rules' point of view, or "" when that is not certain without running the handler.
func expectReply(line []byte, limit int) string {
	line = bytes.TrimSuffix(line, []byte("\r"))
	if len(line) > limit {
		return `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`
	}
	line, ok := jsonl.Trim(line)
	if !ok {
		return ""
	}
	msg, rej := jsonl.Classify(line)
	switch {
	case rej != nil && rej.Silent:
		return ""
	case rej != nil && rej.ID == nil:
		if !json.Valid(line) && rej.Code != CodeParseError {
			return "classify answered invalid JSON with a code other than -32700"
		}
		return `{"jsonrpc":"2.0","id":null,"error":{"code":` + jsonInt(rej.Code) + `,`
	case rej != nil:
		return `{"jsonrpc":"2.0","id":` + string(rej.ID) + `,"error":`
	case msg.Kind == jsonl.Request && msg.Method != CancelMethod:
		return `{"jsonrpc":"2.0","id":` + string(msg.ID) + `,"result":`
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
	if c.lines.Max() != DefaultMaxMessageBytes || DefaultMaxMessageBytes != 16<<20 {
		t.Errorf("line limit = %d; want 16 MiB", c.lines.Max())
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

// TestEncodedResult: an Encoded result goes into the reply byte for byte (no validation, no
// compaction: the spaces and the escape stay), while the same bytes as a json.RawMessage are
// compacted by encoding/json as before.
func TestEncodedResult(t *testing.T) {
	raw := `{"a": [1, 2], "b":"\u003c"}`
	got, err := appendResponse(nil, json.RawMessage(`7`), Encoded(raw), nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"jsonrpc":"2.0","id":7,"result":` + raw + "}\n"; string(got) != want {
		t.Errorf("Encoded result: got %s want %s", got, want)
	}
	got, err = appendResponse(nil, json.RawMessage(`7`), json.RawMessage(raw), nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"jsonrpc":"2.0","id":7,"result":{"a":[1,2],"b":"<"}}` + "\n"; string(got) != want {
		t.Errorf("RawMessage result: got %s want %s", got, want)
	}
}
