package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// archive is a txtar archive: a free-text comment, then "-- name --" sections.
// (golang.org/x/tools/txtar is not a dependency of this module; this is all of it we need.)
type archive struct {
	comment  string
	sections map[string]string
}

func parseArchive(data string) archive {
	a := archive{sections: map[string]string{}}
	name, body := "", &strings.Builder{}
	flush := func() {
		if name == "" {
			a.comment = body.String()
		} else {
			a.sections[name] = body.String()
		}
		body.Reset()
	}
	for _, line := range strings.SplitAfter(data, "\n") {
		trimmed := strings.TrimSuffix(line, "\n")
		if strings.HasPrefix(trimmed, "-- ") && strings.HasSuffix(trimmed, " --") && len(trimmed) >= 6 {
			flush()
			name = strings.TrimSpace(trimmed[3 : len(trimmed)-3])
			continue
		}
		body.WriteString(line)
	}
	flush()
	return a
}

// clientBytes turns a client section into the bytes sent: {{CR}}, {{BOM}} and {{xHH}} stand
// for a carriage return, a UTF-8 byte order mark and the byte 0xHH, which a text file cannot show.
func clientBytes(section string) []byte {
	section = strings.ReplaceAll(section, "{{CR}}", "\r")
	section = strings.ReplaceAll(section, "{{BOM}}", "\xEF\xBB\xBF")
	return []byte(hexByte.ReplaceAllStringFunc(section, func(m string) string {
		b, _ := strconv.ParseUint(m[3:5], 16, 8)
		return string([]byte{byte(b)})
	}))
}

var hexByte = regexp.MustCompile(`\{\{x[0-9A-Fa-f]{2}\}\}`)

// option returns the value of a "name: value" line of the comment, or "".
func (a archive) option(name string) string {
	for _, line := range strings.Split(a.comment, "\n") {
		if v, ok := strings.CutPrefix(line, name+": "); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// testHandler serves the methods the transcripts use.
func testHandler(ctx context.Context, c *Conn, req *Request) (any, error) {
	switch req.Method {
	case "echo":
		if req.Params == nil {
			return nil, nil
		}
		return req.Params, nil
	case "id":
		return req.ID, nil
	case "error":
		return nil, fmt.Errorf("wrapped: %w", &Error{Code: -32001, Message: "retry <this> & that", Data: map[string]any{"kind": "not_found", "retry": true}})
	case "fail":
		return nil, errors.New("open /secret/host/path: permission denied")
	case "zero":
		return nil, &Error{Message: "no code"}
	case "panic":
		panic("boom")
	case "unencodable":
		return func() {}, nil
	case "notify":
		for i := range 2 {
			if err := c.Notify(ctx, "event", map[string]any{"n": i, "params": req.Params}); err != nil {
				return nil, err
			}
		}
		return "done", nil
	}
	return nil, ErrMethodNotFound(req.Method)
}

// logBuffer collects Logf output.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(&l.b, format+"\n", args...)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestTranscripts runs each testdata/*.txtar: the client section is sent as is, every method is
// inline (so replies come in input order), and the output must equal the server section byte
// for byte. A "log-contains: <text>" comment line asserts on the log, "output-lacks: <text>" on the output.
func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			a := parseArchive(string(data))
			opts := Options{Inline: func(string) bool { return true }}
			if v := a.option("max-message-bytes"); v != "" {
				if opts.MaxMessageBytes, err = strconv.Atoi(v); err != nil {
					t.Fatal(err)
				}
			}
			var logs logBuffer
			opts.Logf = logs.logf
			var out bytes.Buffer
			in := bytes.NewReader(clientBytes(a.sections["client"]))
			if err := Serve(context.Background(), in, &out, HandlerFunc(testHandler), opts); err != nil {
				t.Fatalf("Serve = %v; want nil", err)
			}
			if got, want := out.String(), a.sections["server"]; got != want {
				t.Errorf("output differs (-want +got):\n%s", lineDiff(want, got))
			}
			for _, line := range strings.Split(a.comment, "\n") {
				if v, ok := strings.CutPrefix(line, "log-contains: "); ok && !strings.Contains(logs.String(), v) {
					t.Errorf("log lacks %q; log:\n%s", v, logs.String())
				}
				if v, ok := strings.CutPrefix(line, "output-lacks: "); ok && strings.Contains(out.String(), v) {
					t.Errorf("output contains %q", v)
				}
			}
			assertWellFormed(t, out.Bytes())
		})
	}
}

// assertWellFormed checks every output line is one JSON-RPC 2.0 object with no raw newline inside.
func assertWellFormed(t *testing.T, out []byte) {
	t.Helper()
	if len(out) == 0 {
		return
	}
	if out[len(out)-1] != '\n' {
		t.Errorf("output does not end in a newline: %q", out)
	}
	for _, line := range bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n")) {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(line, &m); err != nil {
			t.Errorf("output line is not a JSON object: %q: %v", line, err)
			continue
		}
		if string(m["jsonrpc"]) != `"2.0"` || !bytes.HasPrefix(line, []byte(`{"jsonrpc":"2.0",`)) {
			t.Errorf(`output line does not start with "jsonrpc":"2.0": %q`, line)
		}
	}
}

// lineDiff is a minimal line diff for failure messages.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < len(w) || i < len(g); i++ {
		switch {
		case i >= len(w):
			fmt.Fprintf(&b, "+%s\n", g[i])
		case i >= len(g):
			fmt.Fprintf(&b, "-%s\n", w[i])
		case w[i] != g[i]:
			fmt.Fprintf(&b, "-%s\n+%s\n", w[i], g[i])
		default:
			fmt.Fprintf(&b, " %s\n", w[i])
		}
	}
	return b.String()
}
