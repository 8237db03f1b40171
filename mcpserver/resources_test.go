package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsbox/fsbox/schema"
)

// pngBytes is a 1x1 PNG: read_file tells it by content and returns it as data.
var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89" +
	"\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa7\x35\x81\x84\x00\x00\x00\x00IEND\xaeB`\x82")

func fileURI(p string) string { return "file://" + filepath.ToSlash(p) }

func readResource(cs *mcp.ClientSession, uri string) (*mcp.ReadResourceResult, error) {
	return cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
}

// resourceErr fails the test unless err is a JSON-RPC error with code, and returns it.
func resourceErr(t *testing.T, uri string, err error, code int64) *jsonrpc.Error {
	t.Helper()
	var je *jsonrpc.Error
	if !errors.As(err, &je) {
		t.Fatalf("%s: want a JSON-RPC error %d, got %v", uri, code, err)
	}
	if je.Code != code {
		t.Errorf("%s: code %d, want %d (%s)", uri, je.Code, code, je.Message)
	}
	return je
}

func TestFileResourcesAreATemplateNeverEnumerated(t *testing.T) {
	f := newFixture(t)
	for _, version := range []string{modern, legacy} {
		cs := f.connect(t, Options{}, nil, version)
		caps := cs.InitializeResult().Capabilities
		if caps.Resources == nil || caps.Resources.Subscribe || caps.Resources.ListChanged {
			t.Errorf("%s: resources capability %+v, want present without subscribe or listChanged", version, caps.Resources)
		}
		list, err := cs.ListResources(context.Background(), nil)
		if err != nil || len(list.Resources) != 0 {
			t.Errorf("%s: resources/list = %v, %v; want nothing enumerated", version, list, err)
		}
		tmpls, err := cs.ListResourceTemplates(context.Background(), nil)
		if err != nil || len(tmpls.ResourceTemplates) != 1 || tmpls.ResourceTemplates[0].URITemplate != "file://{+path}" {
			t.Fatalf("%s: resources/templates/list = %+v, %v", version, tmpls, err)
		}
		if d, _ := json.Marshal(tmpls); strings.Contains(string(d), f.root) {
			t.Errorf("%s: the template names the host's root: %s", version, d)
		}
	}
	// A host that turned reading off offers no resources.
	cs := f.connect(t, Options{Config: schema.Config{Tools: []string{"list_directory"}}}, nil, modern)
	if caps := cs.InitializeResult().Capabilities; caps.Resources != nil {
		t.Errorf("read_file disabled, yet resources are offered: %+v", caps.Resources)
	}
}

func TestFileResourceReadsTextAndMedia(t *testing.T) {
	f := newFixture(t)
	if err := os.WriteFile(filepath.Join(f.root, "img.png"), pngBytes, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.root, "empty.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.root, "with space#1.md"), []byte("# hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, version := range []string{modern, legacy} {
		cs := f.connect(t, Options{}, nil, version)
		uri := fileURI(filepath.Join(f.root, "a.txt"))
		res, err := readResource(cs, uri)
		if err != nil {
			t.Fatalf("%s: %v", version, err)
		}
		if len(res.Contents) != 1 || res.Contents[0].Text != f.read(t, "a.txt") || res.Contents[0].URI != uri ||
			res.Contents[0].MIMEType != "text/plain" || res.Contents[0].Blob != nil {
			t.Errorf("%s: text resource %+v", version, res.Contents)
		}
		if res.CacheScope != "private" {
			t.Errorf("%s: cacheScope %q; a file's bytes must not sit in a shared cache", version, res.CacheScope)
		}
		res, err = readResource(cs, fileURI(filepath.Join(f.root, "img.png")))
		if err != nil {
			t.Fatalf("%s: png: %v", version, err)
		}
		if c := res.Contents[0]; !bytes.Equal(c.Blob, pngBytes) || c.MIMEType != "image/png" || c.Text != "" {
			t.Errorf("%s: png resource %q %q", version, c.MIMEType, c.Blob)
		}
		res, err = readResource(cs, fileURI(filepath.Join(f.root, "empty.txt")))
		if err != nil || len(res.Contents) != 1 || res.Contents[0].Text != "" || len(res.Contents[0].Blob) != 0 {
			t.Errorf("%s: empty file: %+v, %v", version, res, err)
		}
		// Percent-encoding in a name is decoded (space, '#').
		res, err = readResource(cs, fileURI(f.root)+"/with%20space%231.md")
		if err != nil || res.Contents[0].Text != "# hi\n" || res.Contents[0].MIMEType != "text/markdown" {
			t.Errorf("%s: encoded name: %+v, %v", version, res, err)
		}
	}
}

func TestFileResourceMissingIsResourceNotFound(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t, Options{}, nil, modern)
	uri := fileURI(filepath.Join(f.root, "nope.txt"))
	_, err := readResource(cs, uri)
	je := resourceErr(t, uri, err, -32602)
	var data map[string]any
	if json.Unmarshal(je.Data, &data); je.Message != "Resource not found" || data["uri"] != uri {
		t.Errorf("not found: %q %s", je.Message, je.Data)
	}
}

// Traversal through resource URIs: every spelling is refused with -32602, nothing outside is
// read, and no host path the client did not send appears in the answer.
func TestFileResourceTraversalIsRefused(t *testing.T) {
	f := newFixture(t)
	dir := filepath.Dir(f.root)
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(filepath.Join(dir, "secret.txt"), filepath.Join(f.root, "link-out.txt")))
	must(os.Symlink(dir, filepath.Join(f.root, "parent")))
	must(os.WriteFile(filepath.Join(f.root, ".env"), []byte("TOKEN=canary\n"), 0o644))
	root := fileURI(f.root)
	uris := map[string]struct{ uri, kind string }{
		"dot-dot":                   {root + "/../secret.txt", "invalid_path"},
		"dot-dot inside":            {root + "/src/../a.txt", "invalid_path"},
		"encoded dot-dot":           {root + "/%2e%2e/secret.txt", "invalid_path"},
		"encoded dot-dot, upper":    {root + "/%2E%2E/secret.txt", "invalid_path"},
		"half-encoded dot-dot":      {root + "/.%2e/secret.txt", "invalid_path"},
		"dot segment":               {root + "/./a.txt", "invalid_path"},
		"encoded slash":             {root + "/src%2F..%2F..%2Fsecret.txt", "invalid_path"},
		"encoded dot-dot and slash": {root + "/..%2fsecret.txt", "invalid_path"},
		"encoded NUL":               {root + "/a.txt%00.png", "invalid_path"},
		"bad escape":                {root + "/a%zz.txt", ""},
		"doubled slash":             {root + "//a.txt", "invalid_path"},
		"absolute outside":          {fileURI(filepath.Join(dir, "secret.txt")), "outside_root"},
		"etc/passwd":                {"file:///etc/passwd", "outside_root"},
		"prefix sibling":            {fileURI(f.root + "_sibling/s.txt"), "outside_root"},
		"symlink to a file outside": {root + "/link-out.txt", "outside_root"},
		"symlink to the parent":     {root + "/parent/secret.txt", "outside_root"},
		"host":                      {"file://evil.example" + filepath.ToSlash(f.root) + "/a.txt", "invalid_path"},
		"localhost":                 {"file://localhost" + filepath.ToSlash(f.root) + "/a.txt", "invalid_path"},
		"user info":                 {"file://u@" + filepath.ToSlash(f.root) + "/a.txt", "invalid_path"},
		"query":                     {root + "/a.txt?x=1", "invalid_path"},
		"empty query":               {root + "/a.txt?", "invalid_path"},
		"fragment":                  {root + "/a.txt#top", "invalid_path"},
		"relative":                  {"file:a.txt", ""},
		"one slash":                 {"file:" + filepath.ToSlash(f.root) + "/a.txt", ""},
		"the root itself":           {root, "not_a_file"},
		"a directory":               {root + "/src", "not_a_file"},
		"denied credentials":        {root + "/.env", "denied"},
	}
	for _, version := range []string{modern, legacy} {
		cs := f.connect(t, Options{}, nil, version)
		for name, c := range uris {
			uri := c.uri
			res, err := readResource(cs, uri)
			if err == nil {
				t.Errorf("%s %s: %s was read: %+v", version, name, uri, res.Contents)
				continue
			}
			var je *jsonrpc.Error
			if !errors.As(err, &je) || je.Code != -32602 {
				t.Errorf("%s %s: %s: want -32602, got %v", version, name, uri, err)
				continue
			}
			var data map[string]any
			// kind "": the SDK's own template match refuses the URI ("Resource not found").
			if json.Unmarshal(je.Data, &data); data["kind"] != c.kind && (c.kind != "" || data["kind"] != nil || je.Message != "Resource not found") {
				t.Errorf("%s %s: %s: kind %v, want %s (%s)", version, name, uri, data["kind"], c.kind, je.Message)
			}
			body := je.Message + string(je.Data)
			if strings.Contains(body, "canary") || strings.Contains(body, "root:") {
				t.Errorf("%s %s: outside bytes in the error: %s", version, name, body)
			}
			// The only host path allowed in the answer is the one the client sent (as the URI, or
			// its path in the engine's message).
			sent := strings.ReplaceAll(body, uri, "")
			if p, err := resourcePath(uri); err == nil {
				sent = strings.ReplaceAll(sent, p, "")
			}
			if strings.Contains(sent, dir) {
				t.Errorf("%s %s: host path in the error: %s", version, name, body)
			}
		}
	}
}

// A file longer than one read window is refused with a hint naming the call that reads it, in
// this presentation's tool; a binary file that is not media is refused as binary.
func TestFileResourceKeepsTheReadBudget(t *testing.T) {
	f := newFixture(t)
	lines := 5
	if err := os.WriteFile(filepath.Join(f.root, "bin.dat"), []byte("\x00\x01\x02binary"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		compat Compat
		tool   string
	}{{CompatNone, "read_file"}, {CompatReference, "read_text_file"}} {
		cfg := schema.Config{MaxReadLines: &lines}
		cs := f.connect(t, Options{Config: cfg, Compat: c.compat}, nil, modern)
		long := filepath.Join(f.root, "long.txt")
		if err := os.WriteFile(long, []byte(strings.Repeat("line\n", 12)), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := readResource(cs, fileURI(long))
		je := resourceErr(t, "long.txt", err, -32602)
		if want := c.tool + " with path='" + long + "' and offset=5"; !strings.Contains(je.Message, want) {
			t.Errorf("%s: %q does not say %q", c.tool, je.Message, want)
		}
		wide := filepath.Join(f.root, "wide.txt")
		if err := os.WriteFile(wide, []byte(strings.Repeat("x", 300000)+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err = readResource(cs, fileURI(wide))
		je = resourceErr(t, "wide.txt", err, -32602)
		if want := c.tool + " with path='" + wide + "', offset=0 and column=0"; !strings.Contains(je.Message, want) {
			t.Errorf("%s: %q does not say %q", c.tool, je.Message, want)
		}
		// Every hint is callable: the named tool takes exactly these arguments in this mode.
		for _, args := range []map[string]any{{"path": wide, "offset": 0, "column": 0}, {"path": long, "offset": 5}} {
			if res := callTool(t, cs, c.tool, args); res.IsError {
				t.Errorf("%s %v, as the hint says: %s", c.tool, args, text(t, res))
			}
		}
		_, err = readResource(cs, fileURI(filepath.Join(f.root, "bin.dat")))
		je = resourceErr(t, "bin.dat", err, -32602)
		var data map[string]any
		if json.Unmarshal(je.Data, &data); data["kind"] != "binary_file" {
			t.Errorf("binary: %q %s", je.Message, je.Data)
		}
	}
}

func TestResourcePathRules(t *testing.T) {
	for uri, want := range map[string]string{
		"file:///a/b.txt":        "/a/b.txt",
		"FILE:///a/b.txt":        "/a/b.txt",
		"file:///a/b%20c.txt":    "/a/b c.txt",
		"file:///a/%C3%A9.txt":   "/a/é.txt",
		"file:///a/100%25.txt":   "/a/100%.txt",
		"file:///a/x%3Fy%23z.md": "/a/x?y#z.md",
	} {
		if got, err := resourcePath(uri); err != nil || got != want {
			t.Errorf("resourcePath(%q) = %q, %v; want %q", uri, got, err, want)
		}
	}
}

// A resource read is a file read like the tool's: it sends the same event once the client asked
// for logs, without the root.
func TestFileResourceReadSendsTheReadEvent(t *testing.T) {
	f := newFixture(t)
	got := make(chan *mcp.LoggingMessageParams, 16)
	copts := &mcp.ClientOptions{LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
		got <- req.Params
	}}
	cs := f.connect(t, Options{}, copts, legacy)
	if err := cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	if _, err := readResource(cs, fileURI(filepath.Join(f.root, "a.txt"))); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-got:
		data, _ := json.Marshal(ev)
		if !strings.Contains(string(data), schema.KindFileRead) || strings.Contains(string(data), f.root) {
			t.Errorf("event of a resource read: %s", data)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no event arrived")
	}
}
