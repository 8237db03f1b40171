package engine

import (
	"testing"

	"github.com/fsbox/fsbox/schema"
)

func TestEditReplaceAll(t *testing.T) {
	fx := makeFixture(t, "f: a x a y a\n")
	e := fx.engine(schema.Config{Tools: changeTools})
	var rec recorder
	_, err := tryCall(t, e, schema.ToolEditFile, map[string]any{"path": "f", "old_text": "a", "new_text": "b"}, rec.hooks(false))
	wantKind(t, "edit of a repeated text without replace_all", err, kindMultipleMatches)
	_, err = tryCall(t, e, schema.ToolEditFile, map[string]any{"path": "f", "old_text": "zz", "new_text": "b", "replace_all": true}, rec.hooks(false))
	wantKind(t, "replace_all of an absent text", err, kindNoMatch)
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
	wantKind(t, "replace_all with a failing second edit", err, kindNoMatch)
	if fx.read("f") != "bb x bb y bb\n" {
		t.Fatal("a failed edit changed the file")
	}
}
