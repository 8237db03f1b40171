package engine

import (
	"strings"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// A text-only call (Hooks.TextOnly, the "text" result shape) answers with the same text and the
// same events as a typed one, and leaves out the typed fields that cost work of their own:
// read_file's content and the listings' entries. Tools that use read_file's content themselves
// (the text editor's view) still get it.
func TestTextOnlyCallsKeepTheTextAndSkipTheTypedFields(t *testing.T) {
	fx := makeFixture(t, "a.txt: one\\ntwo\\n", "d/b.go: package b\\n", "d/e/c.go: package c\\n", "d/.hidden: x",
		"big/1", "big/2", "big/3", "big/4", "big/5")
	three := 3
	e := fx.engine(schema.Config{MaxListResults: &three, Tools: []string{"read_file", "list_directory", "directory_tree", "read_multiple_files", "str_replace_based_edit_tool"}})
	calls := []struct {
		tool string
		args any
		// typedEmpty reports whether the text-only result left its typed fields out.
		typedEmpty func(res any) bool
	}{
		{"read_file", map[string]any{"path": "a.txt"}, func(res any) bool { return res.(*schema.ReadFileResult).Content == nil }},
		{"list_directory", map[string]any{"path": "d"}, func(res any) bool { return len(res.(*schema.ListDirectoryResult).Entries) == 0 }},
		// truncated at max_list_results: the count of shown entries must not depend on the typed list
		{"list_directory", map[string]any{"path": "big"}, func(res any) bool { return len(res.(*schema.ListDirectoryResult).Entries) == 0 }},
		{"directory_tree", map[string]any{"path": "d"}, func(res any) bool { return len(res.(*schema.DirectoryTreeResult).Entries) == 0 }},
		{"directory_tree", map[string]any{"path": "big"}, func(res any) bool { return len(res.(*schema.DirectoryTreeResult).Entries) == 0 }},
		{"read_multiple_files", map[string]any{"paths": []string{"a.txt", "d/b.go"}}, func(res any) bool {
			for _, f := range res.(*schema.ReadMultipleFilesResult).Files {
				if f.Result == nil || f.Result.Content != nil {
					return false
				}
			}
			return true
		}},
	}
	for _, c := range calls {
		var typedRec, textRec recorder
		typed := mustCall(t, e, c.tool, c.args, typedRec.hooks(false))
		h := textRec.hooks(false)
		h.TextOnly = true
		text := mustCall(t, e, c.tool, c.args, h)
		if resultText(text) != resultText(typed) {
			t.Errorf("%s %v: text-only text %q; want the typed call's %q", c.tool, c.args, resultText(text), resultText(typed))
		}
		if jsonOf(textRec.events) != jsonOf(typedRec.events) {
			t.Errorf("%s %v: text-only events %s; want %s", c.tool, c.args, jsonOf(textRec.events), jsonOf(typedRec.events))
		}
		if c.typedEmpty(typed) {
			t.Errorf("%s %v: the typed call has no typed fields: %s", c.tool, c.args, jsonOf(typed))
		}
		if !c.typedEmpty(text) {
			t.Errorf("%s %v: the text-only call built its typed fields: %s", c.tool, c.args, jsonOf(text))
		}
	}
	// The text editor's view is built from read_file's content: a text-only caller sees the file.
	h := Hooks{TextOnly: true}
	view := mustCall(t, e, "str_replace_based_edit_tool", map[string]any{"command": "view", "path": "a.txt"}, h)
	if got := resultText(view); got != resultText(mustCall(t, e, "str_replace_based_edit_tool", map[string]any{"command": "view", "path": "a.txt"}, Hooks{})) ||
		!strings.Contains(got, "     1\tone") {
		t.Errorf("text-only view = %q; want the file's lines", got)
	}
}
