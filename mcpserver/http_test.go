package mcpserver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const testToken = "test-token-0123456789abcdef"

// bearer adds the token to every request a client sends.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// httpServer serves f's root over streamable HTTP with opts (the test token unless opts has one).
func httpServer(t *testing.T, f *fixture, opts HTTPOptions) (*Server, *httptest.Server) {
	t.Helper()
	srv, err := New(Options{DefaultRoot: f.root, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	if opts.Token == "" {
		opts.Token = testToken
	}
	h, err := srv.HTTPHandler(opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return srv, ts
}

func httpClient(t *testing.T, ts *httptest.Server, token, version string) (*mcp.ClientSession, error) {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "1"}, nil)
	return client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: &http.Client{Transport: bearer{token}}},
		&mcp.ClientSessionOptions{ProtocolVersion: version})
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`

// post sends body with the given headers (a "" value leaves a header out) and returns the status
// and the session the server opened, if any.
func post(t *testing.T, ts *httptest.Server, body string, headers map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("POST", ts.URL, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
		} else if v != "" {
			req.Header.Add(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id")
}

func liveSessions(srv *Server) int {
	n := 0
	for range srv.MCP().Sessions() {
		n++
	}
	return n
}

func TestStreamableHTTPServesTheTools(t *testing.T) {
	f := newFixture(t)
	_, ts := httpServer(t, f, HTTPOptions{})
	for _, version := range []string{modern, legacy} {
		cs, err := httpClient(t, ts, testToken, version)
		if err != nil {
			t.Fatal(err)
		}
		// Each generation is spoken as asked: the client falls back to 2025-11-25 silently when
		// the server does not offer 2026-07-28, so the negotiated version is the evidence.
		if got := cs.InitializeResult().ProtocolVersion; got != version {
			t.Errorf("asked for %s over HTTP, negotiated %s", version, got)
		}
		res := callTool(t, cs, "read_file", map[string]any{"path": "a.txt"})
		if res.IsError || !strings.Contains(text(t, res), "five") {
			t.Errorf("%s: read_file over HTTP: %q", version, text(t, res))
		}
		res = callTool(t, cs, "read_file", map[string]any{"path": "../secret.txt"})
		if kind := errorKind(t, res); kind != "outside_root" {
			t.Errorf("%s: kind %s", version, kind)
		}
		f.noHostPath(t, res)
		cs.Close()
	}
}

func TestStreamableHTTPNeedsTheToken(t *testing.T) {
	f := newFixture(t)
	srv, ts := httpServer(t, f, HTTPOptions{})
	for name, auth := range map[string][]string{
		"none":             nil,
		"wrong token":      {"Bearer " + testToken + "x"},
		"prefix of it":     {"Bearer " + testToken[:len(testToken)-1]},
		"empty bearer":     {"Bearer "},
		"basic scheme":     {"Basic " + testToken},
		"token alone":      {testToken},
		"twice, one right": {"Bearer nope", "Bearer " + testToken},
	} {
		req, _ := http.NewRequest("POST", ts.URL, strings.NewReader(initBody))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for _, a := range auth {
			req.Header.Add("Authorization", a)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%s: %d %q, want 401 with WWW-Authenticate: Bearer", name, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
		}
	}
	if cs, err := httpClient(t, ts, "not-the-token-at-all", legacy); err == nil {
		cs.Close()
		t.Error("the SDK client connected with a wrong token")
	}
	if n := liveSessions(srv); n != 0 {
		t.Errorf("%d sessions opened by unauthenticated requests", n)
	}
	// The scheme is case-insensitive (RFC 9110 §11.1); the right token opens a session.
	if code, sid := post(t, ts, initBody, map[string]string{"Authorization": "bearer " + testToken}); code != http.StatusOK || sid == "" {
		t.Errorf("the right token: %d, session %q", code, sid)
	}
}

func TestStreamableHTTPChecksTheOrigin(t *testing.T) {
	f := newFixture(t)
	_, ts := httpServer(t, f, HTTPOptions{AllowedOrigins: []string{"https://App.example:8443"}})
	auth := "Bearer " + testToken
	for _, c := range []struct {
		origin string
		want   int
	}{
		{"", http.StatusOK},
		{"https://app.example:8443", http.StatusOK},
		{"HTTPS://APP.EXAMPLE:8443", http.StatusOK},
		{"https://evil.example", http.StatusForbidden},
		{"https://app.example", http.StatusForbidden},
		{"http://app.example:8443", http.StatusForbidden},
		{"http://localhost:1234", http.StatusForbidden},
		{"null", http.StatusForbidden},
	} {
		if code, _ := post(t, ts, initBody, map[string]string{"Authorization": auth, "Origin": c.origin}); code != c.want {
			t.Errorf("Origin %q: %d, want %d", c.origin, code, c.want)
		}
	}
	// Without the token the Origin check still comes first: a browser learns nothing more.
	if code, _ := post(t, ts, initBody, map[string]string{"Origin": "https://evil.example"}); code != http.StatusForbidden {
		t.Errorf("a foreign Origin without a token: %d, want 403", code)
	}
	req, _ := http.NewRequest("POST", ts.URL, strings.NewReader(initBody))
	req.Header.Set("Authorization", auth)
	req.Header.Add("Origin", "https://app.example:8443")
	req.Header.Add("Origin", "https://evil.example")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("two Origin headers: %d, want 403", resp.StatusCode)
	}
}

func TestStreamableHTTPRefusesAForeignHostOnLoopback(t *testing.T) {
	f := newFixture(t)
	_, ts := httpServer(t, f, HTTPOptions{})
	if code, _ := post(t, ts, initBody, map[string]string{"Authorization": "Bearer " + testToken, "Host": "attacker.example"}); code != http.StatusForbidden {
		t.Errorf("a rebinding Host got %d, want 403", code)
	}
	// The stateless handler of the 2026-07-28 generation checks the Host too.
	discover := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	modernHeaders := map[string]string{"Authorization": "Bearer " + testToken, "MCP-Protocol-Version": modern, "Mcp-Method": "server/discover"}
	if code, _ := post(t, ts, discover, modernHeaders); code != http.StatusOK {
		t.Fatalf("server/discover got %d, want 200", code)
	}
	modernHeaders["Host"] = "attacker.example"
	if code, _ := post(t, ts, discover, modernHeaders); code != http.StatusForbidden {
		t.Errorf("a rebinding Host on a 2026-07-28 request got %d, want 403", code)
	}
}

func TestStreamableHTTPCapsLiveSessions(t *testing.T) {
	f := newFixture(t)
	srv, ts := httpServer(t, f, HTTPOptions{MaxSessions: 3})
	auth := map[string]string{"Authorization": "Bearer " + testToken}
	var sids []string
	for i := 0; i < 3; i++ {
		code, sid := post(t, ts, initBody, auth)
		if code != http.StatusOK || sid == "" {
			t.Fatalf("session %d: %d %q", i, code, sid)
		}
		sids = append(sids, sid)
	}
	for i := 0; i < 20; i++ {
		if code, sid := post(t, ts, initBody, auth); code != http.StatusServiceUnavailable || sid != "" {
			t.Fatalf("initialize beyond the cap: %d, session %q; want 503", code, sid)
		}
	}
	if n := liveSessions(srv); n != 3 {
		t.Errorf("%d live sessions, want 3", n)
	}
	// A live session still works at the cap, and ending one makes room.
	cs, err := httpClient(t, ts, testToken, legacy)
	if err == nil {
		cs.Close()
		t.Error("the SDK client opened a session beyond the cap")
	}
	req, _ := http.NewRequest("DELETE", ts.URL, nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Mcp-Session-Id", sids[0])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %d", resp.StatusCode)
	}
	cs, err = httpClient(t, ts, testToken, legacy)
	if err != nil {
		t.Fatalf("after a DELETE, a new session: %v", err)
	}
	if res := callTool(t, cs, "read_file", map[string]any{"path": "a.txt"}); res.IsError {
		t.Errorf("read_file: %s", text(t, res))
	}
	cs.Close()
}

func TestStreamableHTTPReapsIdleSessions(t *testing.T) {
	f := newFixture(t)
	srv, ts := httpServer(t, f, HTTPOptions{MaxSessions: 2, IdleTimeout: 300 * time.Millisecond})
	auth := map[string]string{"Authorization": "Bearer " + testToken}
	var sids []string
	for i := 0; i < 2; i++ {
		_, sid := post(t, ts, initBody, auth)
		sids = append(sids, sid)
	}
	if code, _ := post(t, ts, initBody, auth); code != http.StatusServiceUnavailable {
		t.Fatalf("at the cap: %d", code)
	}
	deadline := time.Now().Add(10 * time.Second)
	for liveSessions(srv) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := liveSessions(srv); n != 0 {
		t.Fatalf("%d sessions still live 10 s after a 300 ms idle timeout", n)
	}
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	if code, _ := post(t, ts, ping, map[string]string{"Authorization": "Bearer " + testToken, "Mcp-Session-Id": sids[0],
		"Mcp-Protocol-Version": "2025-11-25"}); code != http.StatusNotFound {
		t.Errorf("a request on a reaped session: %d, want 404", code)
	}
	if code, sid := post(t, ts, initBody, auth); code != http.StatusOK || sid == "" {
		t.Errorf("after the reaping, a new session: %d", code)
	}
}

func TestHTTPHandlerRefusesAnOpenGuard(t *testing.T) {
	f := newFixture(t)
	srv, err := New(Options{DefaultRoot: f.root, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for name, opts := range map[string]HTTPOptions{
		"no token":       {},
		"short token":    {Token: "short"},
		"space in token": {Token: "0123456789 abcdef0123"},
		"bad origin":     {Token: testToken, AllowedOrigins: []string{"app.example"}},
		"origin w/ path": {Token: testToken, AllowedOrigins: []string{"https://app.example/x"}},
		"negative cap":   {Token: testToken, MaxSessions: -1},
	} {
		if _, err := srv.HTTPHandler(opts); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if tok := NewToken(); CheckToken(tok) != nil || tok == NewToken() {
		t.Errorf("NewToken %q", tok)
	}
}

// The 2026-07-28 generation over HTTP is stateless: no Mcp-Session-Id is minted, nothing stays
// open after a call, and a change is still approved, through a multi-round-trip request (the
// legacy generation's elicitation/create needs a session, which that generation has not).
func TestStreamableHTTPModernIsStatelessAndStillAsks(t *testing.T) {
	f := newFixture(t)
	srv, ts := httpServer(t, f, HTTPOptions{})
	e := &elicitor{action: "accept", approve: true}
	client := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: e.handle})
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: &http.Client{Transport: bearer{testToken}}},
		&mcp.ClientSessionOptions{ProtocolVersion: modern})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got := cs.InitializeResult().ProtocolVersion; got != modern {
		t.Fatalf("negotiated %s", got)
	}
	if id := cs.ID(); id != "" {
		t.Errorf("a 2026-07-28 client got session id %q", id)
	}
	res := callTool(t, cs, "write_file", map[string]any{"path": "new.txt", "content": "hi\n"})
	if res.IsError || f.read(t, "new.txt") != "hi\n" || len(e.messages) != 1 {
		t.Fatalf("approved write over modern HTTP: %q, asked %d times", text(t, res), len(e.messages))
	}
	deadline := time.Now().Add(5 * time.Second)
	for liveSessions(srv) != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := liveSessions(srv); n != 0 {
		t.Errorf("%d sessions left open by stateless requests", n)
	}
	// Stateless requests take no session-cap slot: with a cap of one held by a legacy session,
	// modern calls still run, back to back.
	_, capped := httpServer(t, f, HTTPOptions{MaxSessions: 1})
	lc, err := httpClient(t, capped, testToken, legacy)
	if err != nil {
		t.Fatal(err)
	}
	defer lc.Close()
	mc, err := httpClient(t, capped, testToken, modern)
	if err != nil {
		t.Fatalf("a modern client beside a legacy session under a cap of one: %v", err)
	}
	for i := 0; i < 5; i++ {
		callTool(t, mc, "read_file", map[string]any{"path": "a.txt"})
	}
	mc.Close()
	// A request of the new generation without its _meta is refused by the SDK's checks, not
	// served as a legacy request.
	status, sid := post(t, ts, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`,
		map[string]string{"Authorization": "Bearer " + testToken, "MCP-Protocol-Version": modern, "Mcp-Method": "tools/list"})
	if status != http.StatusBadRequest || sid != "" {
		t.Errorf("modern tools/list without _meta: status %d, session %q", status, sid)
	}
}
