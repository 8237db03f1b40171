package mcpserver

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func compatSession(t *testing.T, f *fixture) *mcp.ClientSession {
	return f.connect(t, Options{Compat: CompatReference}, nil, modern)
}

func TestCompatListsTheReferenceTools(t *testing.T) {
	f := newFixture(t)
	res, err := compatSession(t, f).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.InputSchema == nil || tool.OutputSchema == nil || tool.Annotations == nil {
			t.Errorf("%s: missing schema or annotations", tool.Name)
		}
	}
	want := "create_directory directory_tree edit_file get_file_info list_allowed_directories list_directory " +
		"list_directory_with_sizes move_file read_media_file read_multiple_files read_text_file search_files write_file"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("tools %s\nwant  %s", got, want)
	}
}

func TestCompatReadTextFileHeadAndTail(t *testing.T) {
	f := newFixture(t)
	cs := compatSession(t, f)
	for _, c := range []struct {
		args      map[string]any
		want, not string
	}{
		{map[string]any{"path": "a.txt", "head": 2}, "two", "three"},
		{map[string]any{"path": "a.txt", "tail": 2}, "five", "three"},
		{map[string]any{"path": "a.txt", "tail": 50}, "one", "nothing"},
	} {
		res := callTool(t, cs, "read_text_file", c.args)
		if res.IsError || !strings.Contains(text(t, res), c.want) || strings.Contains(text(t, res), c.not) {
			t.Errorf("%v: %q", c.args, text(t, res))
		}
	}
	if kind := errorKind(t, callTool(t, cs, "read_text_file", map[string]any{"path": "a.txt", "head": 1, "tail": 1})); kind != "invalid_arguments" {
		t.Errorf("head and tail: kind %s", kind)
	}
	res := callTool(t, cs, "read_text_file", map[string]any{"path": "../../etc/passwd"})
	if kind := errorKind(t, res); kind != "outside_root" {
		t.Errorf("traversal: kind %s", kind)
	}
	f.noHostPath(t, res)
}

func TestCompatEditFileEditsAndDryRun(t *testing.T) {
	f := newFixture(t)
	cs := compatSession(t, f)
	edits := []any{map[string]any{"oldText": "two", "newText": "TWO"}, map[string]any{"oldText": "four", "newText": "FOUR"}}
	res := callTool(t, cs, "edit_file", map[string]any{"path": "a.txt", "edits": edits, "dryRun": true})
	if res.IsError || !strings.Contains(text(t, res), "+TWO") || !strings.Contains(text(t, res), "+FOUR") {
		t.Fatalf("dry run: %q", text(t, res))
	}
	if got := f.read(t, "a.txt"); strings.Contains(got, "TWO") {
		t.Fatalf("dry run wrote: %q", got)
	}
	res = callTool(t, cs, "edit_file", map[string]any{"path": "a.txt", "edits": edits})
	if res.IsError || f.read(t, "a.txt") != "one\nTWO\nthree\nFOUR\nfive\n" {
		t.Errorf("edit: %q, file %q", text(t, res), f.read(t, "a.txt"))
	}
	if kind := errorKind(t, callTool(t, cs, "edit_file", map[string]any{"path": "a.txt", "edits": []any{map[string]any{"oldText": "absent", "newText": "x"}}})); kind != "no_match" {
		t.Errorf("no match: kind %s", kind)
	}
	if kind := errorKind(t, callTool(t, cs, "edit_file", map[string]any{"path": "a.txt", "edits": edits, "bogus": 1})); kind != "invalid_arguments" {
		t.Errorf("unknown argument: kind %s", kind)
	}
}

func TestCompatSearchFilesGlobAndExcludes(t *testing.T) {
	f := newFixture(t)
	cs := compatSession(t, f)
	res := callTool(t, cs, "search_files", map[string]any{"path": ".", "pattern": "*.go", "excludePatterns": []any{"gen"}})
	got := text(t, res)
	if res.IsError || !strings.Contains(got, "src/main.go") || !strings.Contains(got, "src/util.go") || strings.Contains(got, "x.go") {
		t.Errorf("search_files: %q", got)
	}
	if paths := structured(t, res)["paths"].([]any); len(paths) != 2 {
		t.Errorf("paths %v", paths)
	}
}

func TestCompatListAllowedDirectoriesShowsNoHostPath(t *testing.T) {
	f := newFixture(t)
	res := callTool(t, compatSession(t, f), "list_allowed_directories", map[string]any{})
	if res.IsError || !strings.Contains(text(t, res), ".") {
		t.Errorf("%q", text(t, res))
	}
	f.noHostPath(t, res)
}

// TestMediaReadsAsContent: an image read comes back as MCP image content (and a PDF as an
// embedded resource) besides the text block, through read_file and compat read_media_file; a
// text file is refused by read_media_file.
func TestMediaReadsAsContent(t *testing.T) {
	f := newFixture(t)
	png := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{1}, 20)...)
	pdf := []byte("%PDF-1.4\n%%EOF\n")
	for name, data := range map[string][]byte{"pic.png": png, "doc.pdf": pdf} {
		if err := os.WriteFile(filepath.Join(f.root, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check := func(res *mcp.CallToolResult, what string) {
		t.Helper()
		if res.IsError || len(res.Content) != 2 {
			t.Fatalf("%s: isError %v, %d content blocks", what, res.IsError, len(res.Content))
		}
		img, ok := res.Content[1].(*mcp.ImageContent)
		if !ok || img.MIMEType != "image/png" || !bytes.Equal(img.Data, png) {
			t.Errorf("%s: second block %#v; want the PNG as image content", what, res.Content[1])
		}
	}
	check(callTool(t, f.connect(t, Options{}, nil, modern), "read_file", map[string]any{"path": "pic.png"}), "read_file")
	cs := compatSession(t, f)
	check(callTool(t, cs, "read_media_file", map[string]any{"path": "pic.png"}), "read_media_file")
	res := callTool(t, cs, "read_media_file", map[string]any{"path": "doc.pdf"})
	if r, ok := res.Content[len(res.Content)-1].(*mcp.EmbeddedResource); !ok || r.Resource.MIMEType != "application/pdf" || !bytes.Equal(r.Resource.Blob, pdf) {
		t.Errorf("pdf: %#v", res.Content)
	}
	if kind := errorKind(t, callTool(t, cs, "read_media_file", map[string]any{"path": "a.txt"})); kind != "binary_file" {
		t.Errorf("text through read_media_file: kind %s", kind)
	}
}

// TestCompatMoveFile: the reference's move_file maps onto fsbox's, which never overwrites here and
// refuses a destination outside the root.
func TestCompatMoveFile(t *testing.T) {
	f := newFixture(t)
	cs := compatSession(t, f)
	if res := callTool(t, cs, "move_file", map[string]any{"source": "a.txt", "destination": "b.txt"}); res.IsError {
		t.Fatalf("move: %q", text(t, res))
	}
	if _, err := os.Stat(filepath.Join(f.root, "b.txt")); err != nil {
		t.Errorf("b.txt after the move: %v", err)
	}
	if kind := errorKind(t, callTool(t, cs, "move_file", map[string]any{"source": "b.txt", "destination": "src/main.go"})); kind != "already_exists" {
		t.Errorf("onto an existing file: kind %s", kind)
	}
	res := callTool(t, cs, "move_file", map[string]any{"source": "b.txt", "destination": "../stolen.txt"})
	if kind := errorKind(t, res); kind != "outside_root" {
		t.Errorf("out of the root: kind %s", kind)
	}
	f.noHostPath(t, res, "../stolen.txt")
}

// TestArgumentsAreDecodedStrictly: both presentations decode arguments with schema.Decode. The
// reference tools used encoding/json, which matched names case-insensitively: {"path", "Head": 1}
// read one line as if head had been given, and {"PATH": …} named the file.
func TestArgumentsAreDecodedStrictly(t *testing.T) {
	f := newFixture(t)
	for _, c := range []struct {
		compat bool
		tool   string
		args   map[string]any
		want   string
	}{
		{true, "read_text_file", map[string]any{"path": "a.txt", "Head": 1}, "Unknown argument 'Head'. Did you mean 'head'?"},
		{true, "read_text_file", map[string]any{"PATH": "a.txt"}, "Unknown argument 'PATH'. Did you mean 'path'?"},
		{true, "read_text_file", map[string]any{"path": "a.txt", "head": "1"}, "Argument 'head' must be an integer, not a string."},
		{true, "edit_file", map[string]any{"path": "a.txt", "edits": []any{map[string]any{"oldText": "two", "NewText": "TWO"}}}, "Unknown argument 'edits[0].NewText'. Did you mean 'newText'?"},
		{true, "edit_file", map[string]any{"path": "a.txt", "edits": []any{map[string]any{"oldText": "two"}}}, "Missing required argument 'edits[0].newText'."},
		{true, "search_files", map[string]any{"path": ".", "pattern": "*.txt", "exclude_patterns": []any{"a*"}}, "Did you mean 'excludePatterns'?"},
		{true, "list_allowed_directories", map[string]any{"path": "."}, "This tool takes no arguments."},
		{false, "read_file", map[string]any{"Path": "a.txt"}, "Unknown argument 'Path'. Did you mean 'path'?"},
		{false, "write_file", map[string]any{"path": "b.txt", "content": "x", "contents": "y"}, "Unknown argument 'contents'. Did you mean 'content'?"},
	} {
		cs := f.connect(t, Options{Compat: map[bool]Compat{true: CompatReference}[c.compat]}, nil, modern)
		res := callTool(t, cs, c.tool, c.args)
		if kind := errorKind(t, res); kind != "invalid_arguments" || !strings.Contains(text(t, res), c.want) {
			t.Errorf("%s %v: kind %s, text %q; want invalid_arguments containing %q", c.tool, c.args, kind, text(t, res), c.want)
		}
	}
	if got := f.read(t, "a.txt"); strings.Contains(got, "TWO") {
		t.Errorf("a refused edit was applied: %q", got)
	}
}
