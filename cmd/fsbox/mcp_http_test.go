package main

import (
	"bufio"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpProc is a running fsbox mcp --http.
type httpProc struct {
	cmd   *exec.Cmd
	url   string
	token string // the token printed on stderr ("" when the host gave it, and "<token>" was printed)
}

var servingLine = regexp.MustCompile(`serving MCP over streamable HTTP on (http://127\.0\.0\.1:\d+/) ; clients send the header "Authorization: Bearer ([^"]*)"`)

// startHTTP starts fsbox mcp --http 127.0.0.1:0 with more args and env, and reads its URL and
// token from the first stderr line.
func startHTTP(t *testing.T, env []string, args ...string) *httpProc {
	t.Helper()
	cmd := exec.Command(fsboxBin, append([]string{"mcp", "--http", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	r := bufio.NewReader(stderr)
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("no serving line: %v", err)
	}
	go func() { // keep draining, so a log line can never block the server
		for {
			if _, err := r.ReadString('\n'); err != nil {
				return
			}
		}
	}()
	m := servingLine.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("serving line %q", line)
	}
	p := &httpProc{cmd: cmd, url: m[1]}
	if m[2] != "<token>" {
		p.token = m[2]
	}
	return p
}

func (p *httpProc) initialize(t *testing.T, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", p.url, strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id")
}

type bearerRT string

func (b bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

func (p *httpProc) client(t *testing.T, token string) (*mcp.ClientSession, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "cli-http-test", Version: "1"}, nil)
	return client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: p.url, HTTPClient: &http.Client{Transport: bearerRT(token)}},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
}

func TestMCPHTTPNeedsThePrintedToken(t *testing.T) {
	root := tree(t, map[string]string{"a.txt": "hello\n"})
	p := startHTTP(t, nil, root)
	if len(p.token) < 40 {
		t.Fatalf("printed token %q", p.token)
	}
	if code, sid := p.initialize(t, ""); code != http.StatusUnauthorized || sid != "" {
		t.Errorf("without the token: %d %q", code, sid)
	}
	if code, _ := p.initialize(t, p.token+"x"); code != http.StatusUnauthorized {
		t.Errorf("with a wrong token: %d", code)
	}
	if cs, err := p.client(t, "wrong-token-0123456789"); err == nil {
		cs.Close()
		t.Error("the SDK client connected with a wrong token")
	}
	cs, err := p.client(t, p.token)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "a.txt"}})
	if err != nil || res.IsError {
		t.Fatalf("read_file: %v %+v", err, res)
	}
	// A fresh process, a fresh token.
	if q := startHTTP(t, nil, root); q.token == p.token {
		t.Error("two processes printed the same token")
	}
}

func TestMCPHTTPTokenFromTheHost(t *testing.T) {
	root := tree(t, map[string]string{"a.txt": "hello\n"})
	tok := "host-chosen-token-0123456789"
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte(tok+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]*httpProc{
		"file": startHTTP(t, nil, "--http-token-file", file, root),
		"env":  startHTTP(t, []string{"FSBOX_TEST_TOKEN=" + tok}, "--http-token-env", "FSBOX_TEST_TOKEN", root),
	} {
		if p.token != "" {
			t.Errorf("%s: the host's token was printed", name)
		}
		if code, _ := p.initialize(t, ""); code != http.StatusUnauthorized {
			t.Errorf("%s: without the token: %d", name, code)
		}
		if code, sid := p.initialize(t, tok); code != http.StatusOK || sid == "" {
			t.Errorf("%s: with the host's token: %d", name, code)
		}
	}
	loose := filepath.Join(t.TempDir(), "loose")
	os.WriteFile(loose, []byte(tok), 0o644)
	os.Chmod(loose, 0o644)
	short := filepath.Join(t.TempDir(), "short")
	os.WriteFile(short, []byte("abc"), 0o600)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--http-token-file", loose}, "chmod 600"},
		{[]string{"--http-token-file", short}, "fewer than 16"},
		{[]string{"--http-token-file", filepath.Join(root, "missing")}, "--http-token-file"},
		{[]string{"--http-token-env", "FSBOX_TEST_NO_SUCH_VAR"}, "no FSBOX_TEST_NO_SUCH_VAR"},
		{[]string{"--http-token-env", "X", "--http-token-file", file}, "not both"},
		{[]string{"--http-allow-origin", "evil.example"}, "not an origin"},
		{[]string{"--http-max-sessions", "0"}, "positive"},
		{[]string{"--http-idle-timeout", "-1s"}, "positive"},
	} {
		r := fsbox(t, "", append(append([]string{"mcp", "--http", "127.0.0.1:0"}, c.args...), root)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q", c.args, r.code, r.stderr)
		}
	}
	// The guard's flags without --http are a mistake, not ignored.
	if r := fsbox(t, "", "mcp", "--http-token-file", file, root); r.code != 2 || !strings.Contains(r.stderr, "only apply with --http") {
		t.Errorf("a guard flag without --http: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestMCPHTTPOriginAndSessionFlags(t *testing.T) {
	root := tree(t, map[string]string{"a.txt": "hello\n"})
	p := startHTTP(t, nil, "--http-allow-origin", "https://ok.example", "--http-max-sessions", "2", "--http-idle-timeout", "500ms", root)
	send := func(origin string) int {
		req, _ := http.NewRequest("POST", p.url, strings.NewReader(
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+p.token)
		req.Header.Set("Origin", origin)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := send("https://evil.example"); code != http.StatusForbidden {
		t.Errorf("a foreign Origin: %d", code)
	}
	if code := send("https://ok.example"); code != http.StatusOK {
		t.Errorf("the allowed Origin: %d", code)
	}
	p.initialize(t, p.token)
	if code, _ := p.initialize(t, p.token); code != http.StatusServiceUnavailable {
		t.Errorf("a third session with --http-max-sessions 2: %d", code)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, _ := p.initialize(t, p.token)
		if code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("idle sessions not reaped 10 s after a 500 ms --http-idle-timeout (%d)", code)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// rss returns the resident set and its peak of process pid, in bytes (Linux).
func rss(t *testing.T, pid int) (cur, peak int64) {
	t.Helper()
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 && (f[0] == "VmRSS:" || f[0] == "VmHWM:") {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			if f[0] == "VmRSS:" {
				cur = n << 10
			} else {
				peak = n << 10
			}
		}
	}
	return cur, peak
}

// A flood of 15,000 initializes (as the attack sent) keeps the server's memory bounded:
// unauthenticated ones stop at 401; in the first half every session opened is ended with DELETE
// (thousands of sessions come and go), in the second half none is, so the cap fills and the rest
// get 503. The bound is the issue's: peak RSS at most 64 MB above idle.
func TestMCPHTTPFloodKeepsMemoryBounded(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	n := 15000
	if testing.Short() {
		n = 3000
	}
	root := tree(t, map[string]string{"a.txt": "hello\n"})
	p := startHTTP(t, nil, root)
	pid := p.cmd.Process.Pid
	idle, _ := rss(t, pid)
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"flood","version":"1"}}}`
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	var next atomic.Int64
	counts := make([]atomic.Int64, 600)
	var kept sync.Map
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1); i <= int64(n); i = next.Add(1) {
				req, _ := http.NewRequest("POST", p.url, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				if i%3 != 0 { // two in three carry the token
					req.Header.Set("Authorization", "Bearer "+p.token)
				}
				resp, err := client.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				resp.Body.Close()
				counts[resp.StatusCode].Add(1)
				sid := resp.Header.Get("Mcp-Session-Id")
				if sid != "" && i > int64(n/2) {
					kept.Store(sid, true)
				}
				if sid != "" && i <= int64(n/2) {
					del, _ := http.NewRequest("DELETE", p.url, nil)
					del.Header.Set("Authorization", "Bearer "+p.token)
					del.Header.Set("Mcp-Session-Id", sid)
					if resp, err := client.Do(del); err == nil {
						resp.Body.Close()
					}
				}
			}
		}()
	}
	wg.Wait()
	after, peak := rss(t, pid)
	t.Logf("%d initializes: 200 %d, 401 %d, 503 %d; RSS idle %d MB, after %d MB, peak %d MB",
		n, counts[200].Load(), counts[401].Load(), counts[503].Load(), idle>>20, after>>20, peak>>20)
	if counts[401].Load() != int64(n/3) || counts[503].Load() == 0 || counts[200].Load() < int64(n/4) {
		t.Errorf("want every request without the token refused, sessions opened in the first half and the cap reached in the second")
	}
	if peak-idle > 64<<20 {
		t.Errorf("peak RSS grew by %d MB under the flood, more than 64 MB", (peak-idle)>>20)
	}
	// Ending one of the sessions that fill the cap makes room for a client.
	kept.Range(func(sid, _ any) bool {
		del, _ := http.NewRequest("DELETE", p.url, nil)
		del.Header.Set("Authorization", "Bearer "+p.token)
		del.Header.Set("Mcp-Session-Id", sid.(string))
		if resp, err := client.Do(del); err == nil {
			resp.Body.Close()
		}
		return false
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		cs, err := p.client(t, p.token)
		if err == nil {
			cs.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no session after the flood: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
