package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Protocol versions the tests speak: the SDK's newest (multi-round-trip elicitation, per-request
// capabilities) and the handshake era (initialize, server-initiated requests).
const (
	modern = "2026-07-28"
	legacy = "2025-11-25"
)

// fixture is a root with a few files and the host path a leak would show.
type fixture struct {
	root string
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	for name, content := range map[string]string{
		"root/a.txt":          "one\ntwo\nthree\nfour\nfive\n",
		"root/src/main.go":    "package main\n",
		"root/src/util.go":    "package main\n// util\n",
		"root/src/gen/x.go":   "package gen\n",
		"root/docs/readme.md": "# docs\n",
		"secret.txt":          "outside canary\n",
		"root_sibling/s.txt":  "sibling canary\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{root: real}
}

func (f *fixture) read(t testing.TB, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(f.root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// connect starts a Server over f's root with opts and connects a go-sdk client to it in memory,
// speaking version.
func (f *fixture) connect(t testing.TB, opts Options, copts *mcp.ClientOptions, version string, roots ...*mcp.Root) *mcp.ClientSession {
	t.Helper()
	opts.DefaultRoot = f.root
	if opts.Logf == nil {
		opts.Logf = t.Logf
	}
	srv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "fsbox-test", Version: "1"}, copts)
	client.AddRoots(roots...)
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// text returns the one TextContent block of res.
func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("want one content block, got %d", len(res.Content))
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content is %T, not text", res.Content[0])
	}
	return tc.Text
}

// structured decodes res's structuredContent into a map.
func structured(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil || m == nil {
		t.Fatalf("structuredContent %s is not an object", data)
	}
	return m
}

// errorKind returns the kind under _meta[ErrorMetaKey] of an isError result.
func errorKind(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if !res.IsError {
		t.Fatalf("want an isError result, got %q", text(t, res))
	}
	m, _ := res.Meta[ErrorMetaKey].(map[string]any)
	kind, _ := m["kind"].(string)
	if kind == "" {
		t.Fatalf("isError result without %s kind: %v", ErrorMetaKey, res.Meta)
	}
	return kind
}

// noHostPath fails when any part of res names the fixture's host directory, other than by echoing
// the model's own spellings.
func (f *fixture) noHostPath(t *testing.T, res *mcp.CallToolResult, spellings ...string) {
	t.Helper()
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	for _, sp := range spellings {
		s = strings.ReplaceAll(s, sp, "<spelling>")
	}
	for _, p := range []string{f.root, filepath.Dir(f.root)} {
		if strings.Contains(s, p) {
			t.Errorf("result names the host path %s: %s", p, data)
		}
	}
}

func readFileErr(root, rel string) ([]byte, error) {
	return os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
}
