package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// lineProc is a running fsbox speaking newline-delimited JSON on its stdin and stdout.
type lineProc struct {
	t     *testing.T
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan string
}

func startLineProc(t *testing.T, args ...string) *lineProc {
	t.Helper()
	cmd := exec.Command(fsboxBin, args...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &lineProc{t: t, cmd: cmd, in: in, lines: make(chan string, 64)}
	go func() {
		r := bufio.NewReaderSize(out, 1<<20)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				close(p.lines)
				return
			}
			p.lines <- strings.TrimSuffix(line, "\n")
		}
	}()
	t.Cleanup(func() {
		in.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	return p
}

func (p *lineProc) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatalf("writing %.60q: %v (the process is gone)", line, err)
	}
}

// next returns the next output line, failing the test if none comes within 10 s or output ended.
func (p *lineProc) next() string {
	p.t.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			p.t.Fatal("the process closed its stdout")
		}
		return line
	case <-time.After(10 * time.Second):
		p.t.Fatal("no output line within 10 s")
	}
	return ""
}

// badLines are hostile or broken inputs, each answered with one error line; the ten kinds
// of bad MCP input come first.
var badLines = []struct{ name, line string }{
	{"truncated object", `{`},
	{"null", `null`},
	{"empty batch", `[]`},
	{"junk", `junk`},
	{"batch", `[{"jsonrpc":"2.0","id":50,"method":"ping"}]`},
	{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`},
	{"deep JSON", strings.Repeat("[", 20000) + strings.Repeat("]", 20000)},
	{"deep JSON in params", `{"jsonrpc":"2.0","id":51,"method":"ping","params":` + strings.Repeat(`{"a":`, 11000) + `1` + strings.Repeat(`}`, 11000) + `}`},
	{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":52,\"method\":\"ping\",\"params\":{\"x\":\"\xff\xfe\"}}"},
	{"two values", `{"jsonrpc":"2.0","id":53,"method":"ping"}{"jsonrpc":"2.0","id":54,"method":"ping"}`},
	{"string", `"hello"`},
	{"number", `42`},
	{"empty object", `{}`},
	{"no method", `{"jsonrpc":"2.0","id":55}`},
	{"array id", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`},
	{"fraction id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`},
	{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`},
	{"method not a string", `{"jsonrpc":"2.0","id":56,"method":7}`},
	{"wrong version", `{"jsonrpc":"1.0","id":57,"method":"ping"}`},
	{"no version", `{"id":58,"method":"ping"}`},
	{"duplicate id member", `{"jsonrpc":"2.0","id":59,"id":60,"method":"ping"}`},
	{"request with result", `{"jsonrpc":"2.0","id":61,"method":"ping","result":1}`},
	{"params a number", `{"jsonrpc":"2.0","id":62,"method":"ping","params":5}`},
	{"stray reply", `{"jsonrpc":"2.0","id":"nobody-asked","result":{}}`},
	{"too long", `{"jsonrpc":"2.0","id":63,"method":"ping","params":{"pad":"` + strings.Repeat("x", 140000) + `"}}`},
}

const mcpInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"t","version":"1"}}}`

// Every bad line gets one JSON-RPC error reply and the session goes on, with a call in flight
// (a write waiting for the user's approval) answered afterwards: the ten kinds of bad MCP
// input used to end the process and lose that call.
func TestMCPStdioAnswersBadLinesAndGoesOn(t *testing.T) {
	root := tree(t, map[string]string{"a.txt": "old\n"})
	p := startLineProc(t, "mcp", "--max-message-bytes", "131072", root)
	p.send(mcpInit)
	if r := p.next(); !strings.Contains(r, `"id":1,"result"`) {
		t.Fatalf("initialize: %s", r)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"a.txt","content":"new\n"}}}`)
	var ask struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if r := p.next(); json.Unmarshal([]byte(r), &ask) != nil || ask.Method != "elicitation/create" {
		t.Fatalf("want the approval request, got %.200s", r)
	}
	for _, c := range badLines {
		p.send(c.line)
		p.send("") // a blank line is skipped, not answered
		r := p.next()
		var e struct {
			ID    json.RawMessage `json:"id"`
			Error *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(r), &e); err != nil || e.Error == nil {
			t.Errorf("%s: reply %.200s, want an error", c.name, r)
			continue
		}
		wantID, wantCode := "null", -32600
		switch c.name {
		case "truncated object", "junk", "deep JSON", "deep JSON in params", "invalid UTF-8", "two values":
			wantCode = -32700
		case "wrong version", "no version":
			wantID = map[string]string{"wrong version": "57", "no version": "58"}[c.name]
		case "params a number":
			wantID, wantCode = "62", -32602
		}
		if string(e.ID) != wantID || e.Error.Code != wantCode {
			t.Errorf("%s: reply %.200s, want code %d to id %s", c.name, r, wantCode, wantID)
		}
	}
	// A notification is never answered, even a broken one: the next reply is the ping's.
	p.send(`{"jsonrpc":"2.0","method":"notifications/progress","params":5}`)
	p.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if r := p.next(); r != `{"jsonrpc":"2.0","id":3,"result":{}}` {
		t.Errorf("ping after the bad lines: %s", r)
	}
	// The call in flight since before the bad lines completes once approved.
	p.send(`{"jsonrpc":"2.0","id":` + string(ask.ID) + `,"result":{"action":"accept","content":{"approve":true}}}`)
	if r := p.next(); !strings.Contains(r, `"id":2,"result"`) || strings.Contains(r, `"isError":true`) {
		t.Errorf("the write in flight: %.300s", r)
	}
	if data, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(data) != "new\n" {
		t.Errorf("a.txt is %q after the approved write", data)
	}
}

// fsbox mcp answers bad input exactly as fsbox serve does: the same lines, byte for byte.
func TestMCPStdioBadLinesMatchServe(t *testing.T) {
	root := tree(t, map[string]string{"a.txt": "x\n"})
	serve := startLineProc(t, "serve", "--max-message-bytes", "131072", "--root", root)
	serve.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocol_version":"1"}}`)
	serve.next()
	mcp := startLineProc(t, "mcp", "--max-message-bytes", "131072", root)
	mcp.send(mcpInit)
	mcp.next()
	for _, c := range badLines {
		serve.send(c.line)
		mcp.send(c.line)
		if s, m := serve.next(), mcp.next(); s != m {
			t.Errorf("%s:\nserve %.300s\nmcp   %.300s", c.name, s, m)
		}
	}
}

// At EOF the calls already read are still answered, as under fsbox serve; the session then ends
// with exit status 0.
func TestMCPStdioAnswersCallsReadBeforeEOF(t *testing.T) {
	root := tree(t, map[string]string{"a.txt": "x\n"})
	var in strings.Builder
	in.WriteString(mcpInit + "\n" + `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	for i := 10; i < 30; i++ {
		in.WriteString(`{"jsonrpc":"2.0","id":` + itoa(i) + `,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"}}}` + "\n")
		in.WriteString("junk\n")
	}
	r := fsbox(t, in.String(), "mcp", root)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for i := 10; i < 30; i++ {
		if !strings.Contains(r.stdout, `"id":`+itoa(i)+`,"result"`) {
			t.Errorf("call %d was not answered", i)
		}
	}
	if n := strings.Count(r.stdout, `"code":-32700`); n != 20 {
		t.Errorf("%d parse errors, want 20", n)
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// At EOF a call waiting for the client's approval cannot be answered any more: the process ends
// instead of waiting for ever, and nothing is written.
func TestMCPStdioEOFDuringAnApprovalEnds(t *testing.T) {
	root := tree(t, map[string]string{"a.txt": "old\n"})
	p := startLineProc(t, "mcp", root)
	p.send(mcpInit)
	p.next()
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"a.txt","content":"new\n"}}}`)
	if r := p.next(); !strings.Contains(r, `"method":"elicitation/create"`) {
		t.Fatalf("want the approval request, got %.200s", r)
	}
	p.in.Close()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("fsbox mcp still running 10 s after EOF with an approval pending")
	}
	if data, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(data) != "old\n" {
		t.Errorf("a.txt is %q", data)
	}
}
