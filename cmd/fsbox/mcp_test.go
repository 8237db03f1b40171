package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpSession spawns fsbox mcp with args and connects the go-sdk client to it over stdio.
func mcpSession(tb testing.TB, args ...string) *mcp.ClientSession {
	tb.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "fsbox-cli-test", Version: "1"}, nil)
	cmd := exec.Command(fsboxBin, append([]string{"mcp"}, args...)...)
	cmd.Stderr = os.Stderr
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cs.Close() })
	return cs
}

func TestMCPServesTheConfiguredToolsOverStdio(t *testing.T) {
	root := tree(t, map[string]string{"a.txt": "one\ntwo\nthree\n"})
	cfg := filepath.Join(t.TempDir(), "fsbox.yaml")
	if err := os.WriteFile(cfg, []byte("max_read_lines: 1\ntools: [read_file, write_file, file_info]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := mcpSession(t, "--config", cfg, "--read-only", root)
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	if got := strings.Join(names, ","); got != "file_info,read_file" {
		t.Errorf("tools %s; want the config's readers only", got)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "a.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(res.StructuredContent)
	var r struct {
		LinesShown int `json:"lines_shown"`
	}
	if json.Unmarshal(data, &r); res.IsError || r.LinesShown != 1 {
		t.Errorf("max_read_lines did not reach the tool: %s", data)
	}
}

func TestMCPCommandLineErrors(t *testing.T) {
	root := tree(t, map[string]string{"a.txt": "x\n"})
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"mcp", root, root}, "one root"},
		{[]string{"mcp", "--root", root, root}, "not both"},
		{[]string{"mcp", "--changes", "maybe", root}, "ask, allow or refuse"},
		{[]string{"mcp", "--compat", "other", root}, "compat"},
		{[]string{"mcp", "--http", "0.0.0.0:0", root}, "loopback"},
		{[]string{"mcp", filepath.Join(root, "missing")}, "root_dir"},
	} {
		r := fsbox(t, "", c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || r.stdout != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q", c.args, r.code, r.stderr, r.stdout)
		}
	}
}

// The benchmarks compare fsbox mcp with fsbox serve on one machine: spawning the process and
// opening a session, and one read_file call on an open session. Run them with
//
//	go test ./cmd/fsbox -run '^$' -bench 'Spawn|ReadFile' -benchtime 50x
func BenchmarkSpawnInitializeMCP(b *testing.B) {
	root := tree(b, map[string]string{"a.txt": "hello\n"})
	for b.Loop() {
		client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
		cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: exec.Command(fsboxBin, "mcp", root)}, nil)
		if err != nil {
			b.Fatal(err)
		}
		cs.Close()
	}
}

func BenchmarkSpawnInitializeServe(b *testing.B) {
	root := tree(b, map[string]string{"a.txt": "hello\n"})
	for b.Loop() {
		s := startServeBench(b, root)
		s.close(b)
	}
}

func BenchmarkReadFileMCP(b *testing.B) {
	root := tree(b, map[string]string{"a.txt": strings.Repeat("a line of text\n", 100)})
	cs := mcpSession(b, root)
	params := &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "a.txt"}}
	for b.Loop() {
		if res, err := cs.CallTool(context.Background(), params); err != nil || res.IsError {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadFileServe(b *testing.B) {
	root := tree(b, map[string]string{"a.txt": strings.Repeat("a line of text\n", 100)})
	s := startServeBench(b, root)
	defer s.close(b)
	for i := 0; b.Loop(); i++ {
		s.roundTrip(b, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"}}}`, i+2))
	}
}

// serveProc is a running fsbox serve with an initialized session.
type serveProc struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startServeBench(b *testing.B, root string) *serveProc {
	return startServeWith(b, root, `{"protocol_version":"1"}`)
}

// startServeWith starts fsbox serve on root (with more flags) and initializes it with params.
func startServeWith(b *testing.B, root, params string, flags ...string) *serveProc {
	cmd := exec.Command(fsboxBin, append([]string{"serve", "--root", root}, flags...)...)
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	s := &serveProc{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	s.roundTrip(b, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":`+params+`}`)
	return s
}

// roundTrip sends one request line and reads the one reply line (no events are asked for).
func (s *serveProc) roundTrip(b *testing.B, line string) {
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		b.Fatal(err)
	}
	reply, err := s.out.ReadString('\n')
	if err != nil || isErrorReply(reply) {
		b.Fatalf("reply %q: %v", reply, err)
	}
}

// isErrorReply reports a JSON-RPC error reply (not a result that mentions "error" somewhere).
func isErrorReply(reply string) bool {
	head, _, _ := strings.Cut(reply, `,"result":`)
	return strings.Contains(head, `"error":`)
}

func (s *serveProc) close(b *testing.B) {
	s.in.Close()
	if err := s.cmd.Wait(); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkReadFileMCPLegacy(b *testing.B) {
	root := tree(b, map[string]string{"a.txt": strings.Repeat("a line of text\n", 100)})
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: exec.Command(fsboxBin, "mcp", root)},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	params := &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "a.txt"}}
	for b.Loop() {
		if res, err := cs.CallTool(context.Background(), params); err != nil || res.IsError {
			b.Fatal(err)
		}
	}
}

// A line longer than --max-message-bytes is refused with -32600, unexecuted, and the session goes
// on (as under fsbox serve): the next call is answered and EOF ends the process cleanly.
func TestMCPMaxMessageBytesRefusesALongLineAndGoesOn(t *testing.T) {
	root := tree(t, map[string]string{"a.txt": "x\n"})
	big, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call",
		"params": map[string]any{"name": "write_file", "arguments": map[string]any{"path": "big.txt", "content": strings.Repeat("x", 5000)}}})
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" + string(big) + "\n" + `{"jsonrpc":"2.0","id":3,"method":"ping"}` + "\n"
	r := fsbox(t, in, "mcp", "--max-message-bytes", "2000", root)
	if r.code != 0 {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	want := []string{`"id":1,"result"`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: message exceeds the size limit"}}`,
		`{"jsonrpc":"2.0","id":3,"result":{}}`}
	// The transport answers the long line as it reads it, while initialize is answered by the SDK's
	// own goroutine: the two may come in either order, so each reply is looked for on its own.
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != len(want) {
		t.Fatalf("stdout %q", r.stdout)
	}
	for _, w := range want {
		n := 0
		for _, line := range lines {
			if strings.Contains(line, w) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d replies contain %s; want 1 (stdout %q)", n, w, r.stdout)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "big.txt")); err == nil {
		t.Error("the oversized request was executed")
	}
}
