package mcpserver

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsbox/fsbox/schema"
)

// Every hint a reference-mode tool prints is callable: it names a tool of that mode and arguments
// that tool takes. These follow each continuation hint with the tool it names until the file is
// read whole, and check that no notice names a native-only tool or argument.

// continuation finds "Use [read_text_file with ]offset=N[, column=M]" in text.
var continuation = regexp.MustCompile(`Use (?:read_text_file with )?offset=(\d+)(?:, column=(\d+))?`)

// nativeOnly are names a reference-mode notice must not send the model to.
var nativeOnly = regexp.MustCompile(`\b(read_file|find_files|max_depth|include_glob|list_files|grep)\b`)

func writeFile(t *testing.T, f *fixture, rel, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(f.root, rel), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// follow reads path with read_text_file, then follows every continuation hint with the
// arguments it names, and returns the concatenated text of every page.
func follow(t *testing.T, cs *mcp.ClientSession, first map[string]any) (pages []string) {
	t.Helper()
	args := first
	for i := 0; i < 20; i++ {
		res := callTool(t, cs, "read_text_file", args)
		body := text(t, res)
		if res.IsError {
			t.Fatalf("read_text_file %v, as a hint said: %s", args, body)
		}
		if nativeOnly.MatchString(body) {
			t.Errorf("read_text_file %v names a native-only tool or argument: %s", args, body)
		}
		pages = append(pages, body)
		m := continuation.FindStringSubmatch(body)
		if m == nil {
			return pages
		}
		off, _ := strconv.Atoi(m[1])
		args = map[string]any{"path": first["path"], "offset": off}
		if m[2] != "" {
			col, _ := strconv.Atoi(m[2])
			args["column"] = col
		}
	}
	t.Fatal("hints did not reach the end of the file in 20 calls")
	return nil
}

func TestCompatReadTextFileHintContinuesALongFile(t *testing.T) {
	f := newFixture(t)
	var b strings.Builder
	for i := 1; i <= 2500; i++ {
		b.WriteString("line " + strconv.Itoa(i) + "\n")
	}
	writeFile(t, f, "long.txt", b.String())
	pages := follow(t, compatSession(t, f), map[string]any{"path": "long.txt"})
	if len(pages) != 2 || !strings.Contains(pages[0], "Use offset=2000") || !strings.Contains(pages[1], "line 2500") {
		t.Fatalf("pages: %d, last %q", len(pages), pages[len(pages)-1][:min(200, len(pages[len(pages)-1]))])
	}
}

func TestCompatReadTextFileHintContinuesALongLine(t *testing.T) {
	f := newFixture(t)
	long := strings.Repeat("abcdefghij", 12_000) // 120,000 characters, past max_read_chars
	writeFile(t, f, "wide.txt", "first\n"+long+"\nlast\n")
	pages := follow(t, compatSession(t, f), map[string]any{"path": "wide.txt"})
	joined := strings.Join(pages, "")
	if len(pages) < 3 || !strings.Contains(joined, "column=") || !strings.Contains(pages[len(pages)-1], "last") {
		t.Fatalf("%d pages; hints followed: %v", len(pages), continuation.FindAllString(joined, -1))
	}
}

func TestCompatReadTextFileOffsetArguments(t *testing.T) {
	f := newFixture(t)
	cs := compatSession(t, f)
	res := callTool(t, cs, "read_text_file", map[string]any{"path": "a.txt", "offset": 2, "head": 2})
	if body := text(t, res); res.IsError || !strings.Contains(body, "three") || !strings.Contains(body, "four") || strings.Contains(body, "five") {
		t.Errorf("offset 2, head 2: %q", body)
	}
	if kind := errorKind(t, callTool(t, cs, "read_text_file", map[string]any{"path": "a.txt", "offset": 1, "tail": 1})); kind != "invalid_arguments" {
		t.Errorf("offset and tail: kind %s", kind)
	}
}

func TestCompatReadMultipleFilesHintsNameReadTextFile(t *testing.T) {
	f := newFixture(t)
	var b strings.Builder
	for i := 1; i <= 2100; i++ {
		b.WriteString("row " + strconv.Itoa(i) + "\n")
	}
	writeFile(t, f, "big.txt", b.String())
	cs := compatSession(t, f)
	res := callTool(t, cs, "read_multiple_files", map[string]any{"paths": []string{"a.txt", "big.txt"}})
	body := text(t, res)
	if !strings.Contains(body, "Use read_text_file with offset=2000") || nativeOnly.MatchString(body) {
		t.Fatalf("read_multiple_files: %q", body[max(0, len(body)-300):])
	}
	m := continuation.FindStringSubmatch(body)
	off, _ := strconv.Atoi(m[1])
	pages := follow(t, cs, map[string]any{"path": "big.txt", "offset": off})
	if !strings.Contains(pages[len(pages)-1], "row 2100") {
		t.Errorf("continuation: %q", pages[len(pages)-1])
	}
}

func TestCompatListingNoticesNameReferenceTools(t *testing.T) {
	f := newFixture(t)
	for i := 0; i < 60; i++ {
		writeFile(t, f, "file_with_a_rather_long_name_"+strconv.Itoa(i)+".txt", "x")
	}
	small := 400
	cs := f.connect(t, Options{Compat: CompatReference, Config: schema.Config{MaxOutputChars: &small}}, nil, modern)
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"list_directory", map[string]any{"path": "."}, "use search_files with a narrower pattern"},
		{"list_directory_with_sizes", map[string]any{"path": "."}, "use search_files with a narrower pattern"},
		{"directory_tree", map[string]any{"path": "."}, "show a subdirectory"},
		{"search_files", map[string]any{"path": ".", "pattern": "*.txt"}, "a more specific pattern"},
	} {
		body := text(t, callTool(t, cs, c.tool, c.args))
		if !strings.Contains(body, c.want) || nativeOnly.MatchString(body) {
			t.Errorf("%s: %q", c.tool, body[max(0, len(body)-250):])
		}
	}
}
