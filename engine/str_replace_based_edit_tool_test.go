package engine

import (
	"os"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

func editorCall(t *testing.T, e *Engine, args map[string]any, h Hooks) (*schema.StrReplaceBasedEditToolResult, *Error) {
	t.Helper()
	res, err := tryCall(t, e, schema.ToolStrReplaceBasedEditTool, args, h)
	if err != nil {
		return nil, err
	}
	return res.(*schema.StrReplaceBasedEditToolResult), nil
}

func TestEditor_View(t *testing.T) {
	fx := makeFixture(t, "f.txt: one\ntwo\r\nthree\nfour\n", "d/a.txt", "d/sub/b.txt", "d/sub/deep/c.txt", "d/.hidden")
	e := patchEngine(fx, schema.Config{})
	res, err := editorCall(t, e, map[string]any{"command": "view", "path": "f.txt"}, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	want := "Here's the result of running `cat -n` on f.txt:\n     1\tone\n     2\ttwo\n     3\tthree\n     4\tfour\n"
	if res.Text != want {
		t.Fatalf("view = %q\nwant %q", res.Text, want)
	}
	res, _ = editorCall(t, e, map[string]any{"command": "view", "path": "f.txt", "view_range": []int{2, -1}}, Hooks{})
	if !strings.HasSuffix(res.Text, ":\n     2\ttwo\n     3\tthree\n     4\tfour\n") {
		t.Fatalf("view_range [2, -1] = %q", res.Text)
	}
	res, _ = editorCall(t, e, map[string]any{"command": "view", "path": "f.txt", "view_range": []int{2, 3}}, Hooks{})
	if !strings.HasSuffix(res.Text, ":\n     2\ttwo\n     3\tthree\n") {
		t.Fatalf("view_range [2, 3] = %q", res.Text)
	}
	for _, vr := range [][]int{{0, 2}, {3, 2}, {1}, {1, 9}, {9, -1}} {
		_, err := editorCall(t, e, map[string]any{"command": "view", "path": "f.txt", "view_range": vr}, Hooks{})
		if err == nil || !strings.Contains(err.Msg, "view_range") {
			t.Errorf("view_range %v: %v; want a refusal naming view_range", vr, err)
		}
	}
	res, err = editorCall(t, e, map[string]any{"command": "view", "path": "d"}, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Text, "Here are the files and directories up to 2 levels deep in d, excluding hidden items:\n") ||
		!strings.Contains(res.Text, "sub/b.txt") || strings.Contains(res.Text, "deep/c.txt") || strings.Contains(res.Text, ".hidden") {
		t.Fatalf("directory view = %q", res.Text)
	}
}

func TestEditor_StrReplace(t *testing.T) {
	fx := makeFixture(t, "f.py: def a():\n    return 1\n\ndef b():\n    return 1\n", "w.txt: x\r\ny\r\nz\r\n", ".git/config: c\n")
	e := patchEngine(fx, schema.Config{})
	_, err := editorCall(t, e, map[string]any{"command": "str_replace", "path": "f.py", "old_str": "    return 1", "new_str": "    return 2"}, Hooks{})
	wantKind(t, "ambiguous old_str", err, schema.KindMultipleMatches)
	if !strings.Contains(err.Msg, "Multiple occurrences (2)") || !strings.Contains(err.Msg, "lines 2, 5") {
		t.Fatalf("ambiguity message does not say how many and where: %s", err.Msg)
	}
	_, err = editorCall(t, e, map[string]any{"command": "str_replace", "path": "f.py", "old_str": "return 3", "new_str": "x"}, Hooks{})
	wantKind(t, "missing old_str", err, schema.KindNoMatch)
	if !strings.Contains(err.Msg, "did not appear verbatim in f.py") {
		t.Fatalf("no-match message: %s", err.Msg)
	}
	var rec recorder
	res, err := editorCall(t, e, map[string]any{"command": "str_replace", "path": "f.py", "old_str": "def b():\n    return 1", "new_str": "def b():\n    return 2"}, rec.hooks(true))
	if err != nil {
		t.Fatal(err)
	}
	if fx.read("f.py") != "def a():\n    return 1\n\ndef b():\n    return 2\n" || !strings.Contains(res.Text, "     5\t    return 2\n") ||
		!strings.HasPrefix(res.Text, "The file f.py has been edited. Here's the result of running `cat -n` on a snippet of f.py:\n") {
		t.Fatalf("str_replace: file %q, text %q", fx.read("f.py"), res.Text)
	}
	if len(rec.requests) != 1 || rec.requests[0].Operation != "edit" || !strings.Contains(rec.requests[0].Diff, "+    return 2") {
		t.Fatalf("change request: %s", jsonOf(rec.requests))
	}
	// CRLF file, "\n" in the call: matched and written with the file's line ends.
	if _, err := editorCall(t, e, map[string]any{"command": "str_replace", "path": "w.txt", "old_str": "x\ny", "new_str": "x\nY\nY2"}, Hooks{}); err != nil {
		t.Fatal(err)
	}
	if fx.read("w.txt") != "x\r\nY\r\nY2\r\nz\r\n" {
		t.Fatalf("CRLF str_replace = %q", fx.read("w.txt"))
	}
	_, err = editorCall(t, e, map[string]any{"command": "str_replace", "path": ".git/config", "old_str": "c", "new_str": "d"}, Hooks{})
	wantKind(t, "protected", err, schema.KindProtected)
	_, err = editorCall(t, e, map[string]any{"command": "str_replace", "path": "../outside/x", "old_str": "c", "new_str": "d"}, Hooks{})
	wantKind(t, "traversal", err, schema.KindOutsideRoot)
	_, err = editorCall(t, e, map[string]any{"command": "str_replace", "path": "f.py", "old_str": "x", "file_text": "d"}, Hooks{})
	wantKind(t, "argument of another command", err, schema.KindInvalidArguments)
	_, err = editorCall(t, e, map[string]any{"command": "undo_edit", "path": "f.py"}, Hooks{})
	wantKind(t, "undo_edit is not in this version", err, schema.KindInvalidArguments)
}

func TestEditor_CreateInsert(t *testing.T) {
	fx := makeFixture(t, "f.txt: a\nb\n", "nofinal.txt: a\nb", "crlf.txt: a\r\nb\r\n")
	e := patchEngine(fx, schema.Config{})
	res, err := editorCall(t, e, map[string]any{"command": "create", "path": "n.txt", "file_text": "hello\n"}, Hooks{})
	if err != nil || fx.read("n.txt") != "hello\n" || !strings.HasPrefix(res.Text, "File created successfully at: n.txt") {
		t.Fatalf("create: %v %s", err, jsonOf(res))
	}
	_, err = editorCall(t, e, map[string]any{"command": "create", "path": "f.txt", "file_text": "x"}, Hooks{})
	wantKind(t, "create over a file", err, schema.KindAlreadyExists)
	// Missing parents are made, only once the change is approved, and checked as writes.
	rec := recorder{answer: func(*schema.FileChangeRequest) (bool, string, error) { return false, "no", nil }}
	if res, err := editorCall(t, e, map[string]any{"command": "create", "path": "p/q/r.txt", "file_text": "x"}, rec.hooks(true)); err != nil || !res.Cancelled {
		t.Fatalf("refused create: %v %s", err, jsonOf(res))
	}
	if _, err := os.Stat(fx.abs("p")); err == nil {
		t.Fatal("a refused create made its directory")
	}
	if _, err := editorCall(t, e, map[string]any{"command": "create", "path": "p/q/r.txt", "file_text": "x"}, Hooks{}); err != nil || fx.read("p/q/r.txt") != "x" {
		t.Fatalf("create in new directories: %v %q", err, fx.read("p/q/r.txt"))
	}
	_, err = editorCall(t, e, map[string]any{"command": "create", "path": ".git/new/x", "file_text": "x"}, Hooks{})
	wantKind(t, "create in a protected directory", err, schema.KindProtected)
	if fx.read("f.txt") != "a\nb\n" {
		t.Fatal("create overwrote a file")
	}
	cases := []struct {
		file string
		line int
		text string
		want string
	}{
		{"f.txt", 0, "top", "top\na\nb\n"},
		{"f.txt", 3, "end\n", "top\na\nb\nend\n"},
		{"nofinal.txt", 2, "c", "a\nb\nc"},
		{"crlf.txt", 1, "mid\nmid2", "a\r\nmid\r\nmid2\r\nb\r\n"},
	}
	for _, tc := range cases {
		if _, err := editorCall(t, e, map[string]any{"command": "insert", "path": tc.file, "insert_line": tc.line, "insert_text": tc.text}, Hooks{}); err != nil {
			t.Fatalf("insert %v: %v", tc, err)
		}
		if got := fx.read(tc.file); got != tc.want {
			t.Fatalf("insert %q after line %d of %s: got %q, want %q", tc.text, tc.line, tc.file, got, tc.want)
		}
	}
	_, err = editorCall(t, e, map[string]any{"command": "insert", "path": "f.txt", "insert_line": 99, "insert_text": "x"}, Hooks{})
	wantKind(t, "insert_line out of range", err, schema.KindInvalidArguments)
	if !strings.Contains(err.Msg, "[0, 4]") {
		t.Fatalf("range message: %s", err.Msg)
	}
	_, err = editorCall(t, e, map[string]any{"command": "insert", "path": "f.txt", "insert_line": 1}, Hooks{})
	wantKind(t, "insert without text", err, schema.KindInvalidArguments)
}
