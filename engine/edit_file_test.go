package engine

import (
	"os"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

func TestEditReplaceAll(t *testing.T) {
	fx := makeFixture(t, "f: a x a y a\n")
	e := fx.engine(schema.Config{Tools: changeTools})
	var rec recorder
	_, err := tryCall(t, e, schema.ToolEditFile, map[string]any{"path": "f", "old_text": "a", "new_text": "b"}, rec.hooks(false))
	wantKind(t, "edit of a repeated text without replace_all", err, schema.KindMultipleMatches)
	_, err = tryCall(t, e, schema.ToolEditFile, map[string]any{"path": "f", "old_text": "zz", "new_text": "b", "replace_all": true}, rec.hooks(false))
	wantKind(t, "replace_all of an absent text", err, schema.KindNoMatch)
	res := mustCall(t, e, schema.ToolEditFile, map[string]any{"path": "f", "old_text": "a", "new_text": "bb", "replace_all": true}, rec.hooks(false))
	if fx.read("f") != "bb x bb y bb\n" || res.(*schema.EditFileResult).Replacements != 3 {
		t.Fatalf("replace_all: %q, %s", fx.read("f"), jsonOf(res))
	}
	if ev := rec.events[0].(*schema.FileEditedEvent); ev.Replacements != 3 {
		t.Fatalf("event %s", jsonOf(ev))
	}
	// All or nothing: the second replacement failing leaves the file as it was.
	_, err = tryCall(t, e, schema.ToolEditFile, map[string]any{"path": "f", "replace_all": true,
		"replacements": []map[string]string{{"old_text": "bb", "new_text": "c"}, {"old_text": "nope", "new_text": "d"}}}, rec.hooks(false))
	wantKind(t, "replace_all with a failing second edit", err, schema.KindNoMatch)
	if fx.read("f") != "bb x bb y bb\n" {
		t.Fatal("a failed edit changed the file")
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
