package engine

import (
	"os"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

func TestWriteFile_Basics(t *testing.T) {
	fx := makeFixture(t, "hello.txt: Hello, world!\n", "link.txt => hello.txt", "sub/", "p |")
	e := fx.engine(schema.Config{})
	res := mustCall(t, e, "write_file", schema.WriteFileArgs{Path: "fmt.txt", Content: "ab\ncd\n"}, Hooks{}).(*schema.WriteFileResult)
	if want := "Wrote 6 chars (2 lines) to fmt.txt. [hash:" + contentHash([]byte("ab\ncd\n")) + "]"; res.Text != want || !res.Created {
		t.Errorf("write = %q created=%v; want %q", res.Text, res.Created, want)
	}
	// Through an in-root symlink: the target changes, the link stays a link.
	mustCall(t, e, "write_file", schema.WriteFileArgs{Path: "link.txt", Content: "via link\n"}, Hooks{})
	if got := fx.read("hello.txt"); got != "via link\n" {
		t.Errorf("hello.txt = %q", got)
	}
	if fi, _ := os.Lstat(fx.abs("link.txt")); fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("link.txt is no longer a symlink")
	}
	for _, c := range []struct {
		path string
		kind schema.ErrorKind
	}{
		{"sub", "not_a_file"},
		{"p", "not_regular_file"},
		{"deep/nested/file.txt", "parent_missing"},
		{"hello.txt/child", "parent_not_directory"},
		{".env", "denied"},
		{"apps/api/.env", "denied"},
		{".envrc", "protected"},
		{"apps/.envrc", "protected"},
	} {
		_, err := tryCall(t, e, "write_file", schema.WriteFileArgs{Path: c.path, Content: "x"}, Hooks{})
		wantKind(t, "write_file("+c.path+")", err, c.kind)
	}
	_, err := tryCall(t, e, "write_file", schema.WriteFileArgs{Path: "deep/nested/file.txt", Content: "x"}, Hooks{})
	if err.Msg != "Parent directory 'deep/nested' does not exist. Use create_directory first." {
		t.Errorf("parent msg = %q", err.Msg)
	}
}

func TestWriteFile_ModeAndCRLF(t *testing.T) {
	fx := makeFixture(t, "m.txt: old\n")
	if err := os.Chmod(fx.abs("m.txt"), 0o640); err != nil {
		t.Fatal(err)
	}
	e := fx.engine(schema.Config{})
	content := "h\u00e9llo\r\nnew content\n\x01\r"
	mustCall(t, e, "write_file", schema.WriteFileArgs{Path: "m.txt", Content: content}, Hooks{})
	fi, _ := os.Stat(fx.abs("m.txt"))
	if fi.Mode().Perm() != 0o640 {
		t.Errorf("mode = %v; want 0640", fi.Mode().Perm())
	}
	if got := fx.read("m.txt"); got != content {
		t.Errorf("content = %q; want %q", got, content)
	}
	entries, _ := os.ReadDir(fx.root)
	for _, en := range entries {
		if strings.HasPrefix(en.Name(), ".fsbox-") {
			t.Errorf("temporary file left behind: %s", en.Name())
		}
	}
}

func TestEditFile_Basics(t *testing.T) {
	fx := makeFixture(t, `f.txt: one\r\ntwo\r\n`, "x.txt: one x x", `bin.bin: a\0b`, `bad.txt: a\xffb\n`)
	os.WriteFile(fx.abs("bad.txt"), []byte("a\xffb\nsecond\n"), 0o644)
	e := fx.engine(schema.Config{})
	res := mustCall(t, e, "edit_file", schema.EditFileArgs{Path: "f.txt", Replacements: []schema.Replacement{
		{OldText: "one", NewText: "three"}, {OldText: "three", NewText: "four"}}}, Hooks{}).(*schema.EditFileResult)
	if !strings.HasPrefix(res.Text, "Edited f.txt. [hash:") || fx.read("f.txt") != "four\r\ntwo\r\n" {
		t.Errorf("edit = %q, file %q", res.Text, fx.read("f.txt"))
	}
	s := func(v string) *string { return &v }
	for _, c := range []struct {
		args any
		kind schema.ErrorKind
		msg  string
	}{
		{map[string]any{"path": "x.txt", "replacements": []any{}}, "invalid_arguments", "Provide either old_text and new_text or a non-empty replacements list, not both."},
		{schema.EditFileArgs{Path: "x.txt"}, "invalid_arguments", "Provide old_text and new_text, or a non-empty replacements list."},
		{schema.EditFileArgs{Path: "x.txt", OldText: s("x")}, "invalid_arguments", "Provide old_text and new_text, or a non-empty replacements list."},
		{schema.EditFileArgs{Path: "x.txt", Replacements: []schema.Replacement{{OldText: "one", NewText: "1"}, {OldText: "zzz", NewText: "2"}}}, "no_match", "replacement 2 not found in x.txt. No changes were written."},
		{schema.EditFileArgs{Path: "x.txt", OldText: s("x"), NewText: s("y")}, "multiple_matches", "old_text found 2 times in x.txt. Include more surrounding context to make the match unique. No changes were written."},
		{schema.EditFileArgs{Path: "x.txt", OldText: s(""), NewText: s("y")}, "empty_old_text", "old_text is empty; old_text must be the exact text to replace."},
		{schema.EditFileArgs{Path: "bin.bin", OldText: s("a"), NewText: s("y")}, "binary_file", "bin.bin is a binary file; edit_file only edits text files."},
		{schema.EditFileArgs{Path: "missing.txt", OldText: s("a"), NewText: s("y")}, "not_found", "File not found: missing.txt"},
		{schema.EditFileArgs{Path: "bad.txt", OldText: s("a\ufffdb"), NewText: s("y")}, "invalid_encoding", ""},
	} {
		_, err := tryCall(t, e, "edit_file", c.args, Hooks{})
		wantKind(t, "edit_file", err, c.kind)
		if c.msg != "" && err.Msg != c.msg {
			t.Errorf("edit_file(%v) msg = %q; want %q", c.args, err.Msg, c.msg)
		}
	}
	if fx.read("x.txt") != "one x x" {
		t.Errorf("x.txt changed: %q", fx.read("x.txt"))
	}
	// A file with bytes that are not UTF-8 can be edited; those bytes survive.
	mustCall(t, e, "edit_file", schema.EditFileArgs{Path: "bad.txt", OldText: s("second"), NewText: s("2nd")}, Hooks{})
	if got := fx.read("bad.txt"); got != "a\xffb\n2nd\n" {
		t.Errorf("bad.txt = %q", got)
	}
}

func TestCreateDirectoryAndFileInfo(t *testing.T) {
	fx := makeFixture(t, "hello.txt: Hello, world!\n", "binary.bin: \\0\x01", "link.txt => $ROOT/hello.txt", "p |", "subdir/")
	e := fx.engine(schema.Config{})
	var rec recorder
	res := mustCall(t, e, "create_directory", schema.CreateDirectoryArgs{Path: "sub/../new/deep"}, rec.hooks(false)).(*schema.CreateDirectoryResult)
	if res.Text != "Created directory: sub/../new/deep" || !res.Created || len(rec.events) != 1 {
		t.Errorf("create = %+v, events %v", res, rec.events)
	}
	if ev := rec.events[0].(*schema.DirectoryCreatedEvent); ev.Path != "new/deep" {
		t.Errorf("event path %q", ev.Path)
	}
	res = mustCall(t, e, "create_directory", schema.CreateDirectoryArgs{Path: "new/deep"}, rec.hooks(false)).(*schema.CreateDirectoryResult)
	if res.Created || len(rec.events) != 1 {
		t.Errorf("existing: %+v", res)
	}
	_, err := tryCall(t, e, "create_directory", schema.CreateDirectoryArgs{Path: "hello.txt"}, Hooks{})
	wantKind(t, "create over file", err, "already_exists")
	_, err = tryCall(t, e, "create_directory", schema.CreateDirectoryArgs{Path: "hello.txt/nested"}, Hooks{})
	wantKind(t, "create under file", err, "parent_not_directory")
	_, err = tryCall(t, e, "create_directory", schema.CreateDirectoryArgs{Path: ".git/hooks"}, Hooks{})
	wantKind(t, "create .git/hooks", err, "protected")

	info := func(p string) string {
		return mustCall(t, e, "file_info", schema.FileInfoArgs{Path: p}, Hooks{}).(*schema.FileInfoResult).Text
	}
	if got, want := info("hello.txt"), "path: hello.txt\ntype: file\nsize: 14 bytes\nbinary: False\nlines: 1\nhash: d9014c462484"; got != want {
		t.Errorf("info = %q; want %q", got, want)
	}
	if got, want := info("link.txt"), "path: link.txt\ntype: file\nsize: 14 bytes\nbinary: False\nlines: 1\nhash: d9014c462484\nsymlink_target: hello.txt"; got != want {
		t.Errorf("info link = %q; want %q", got, want)
	}
	if got, want := info("p"), "path: p\ntype: file\nsize: 0 bytes"; got != want {
		t.Errorf("info fifo = %q; want %q", got, want)
	}
	if got := info("binary.bin"); !strings.Contains(got, "binary: True\nmedia_type: application/octet-stream\nhash: ") {
		t.Errorf("info binary = %q; want its media type and hash", got)
	}
	if got := info("subdir"); !strings.HasPrefix(got, "path: subdir\ntype: directory\nsize: ") {
		t.Errorf("info dir = %q", got)
	}
	_, err = tryCall(t, e, "file_info", schema.FileInfoArgs{Path: "nonexistent"}, Hooks{})
	wantKind(t, "info missing", err, "not_found")
}
