package mcpserver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestStreamableHTTPServesTheTools(t *testing.T) {
	f := newFixture(t)
	srv, err := New(Options{DefaultRoot: f.root, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ts := httptest.NewServer(srv.HTTPHandler())
	defer ts.Close()
	for _, version := range []string{modern, legacy} {
		client := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "1"}, nil)
		cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL}, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatal(err)
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

func TestStreamableHTTPRefusesAForeignHostOnLoopback(t *testing.T) {
	f := newFixture(t)
	srv, err := New(Options{DefaultRoot: f.root, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ts := httptest.NewServer(srv.HTTPHandler())
	defer ts.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	req, err := http.NewRequest("POST", ts.URL, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = "attacker.example"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("a rebinding Host got %d, want 403", resp.StatusCode)
	}
}
