package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// reviewHooks answers every change request with answer and records requests and events.
func reviewHooks(rec *recorder, answer func(req *schema.FileChangeRequest) schema.ChangeRequestResult) Hooks {
	h := rec.hooks(false)
	h.Review = func(_ context.Context, req *schema.FileChangeRequest) (schema.ChangeRequestResult, error) {
		rec.requests = append(rec.requests, req)
		return answer(req), nil
	}
	return h
}

func withContent(s string) func(*schema.FileChangeRequest) schema.ChangeRequestResult {
	return func(*schema.FileChangeRequest) schema.ChangeRequestResult {
		return schema.ChangeRequestResult{Approve: true, Content: &s}
	}
}

// TestReview_ApproveWithEdit: a reviewer's replacement content is what lands, for write_file and
// edit_file; the result, its text and the event say so, and the event's diff shows it.
func TestReview_ApproveWithEdit(t *testing.T) {
	fx := makeFixture(t, "t.txt: a\\nb\\nc\\n")
	e := fx.engine(schema.Config{})
	var rec recorder
	res := mustCall(t, e, schema.ToolWriteFile, map[string]any{"path": "n.txt", "content": "model\n"}, reviewHooks(&rec, withContent("reviewer\n"))).(*schema.WriteFileResult)
	if fx.read("n.txt") != "reviewer\n" || !res.ModifiedByReviewer || !strings.Contains(res.Text, "reviewer modified") || res.Hash != contentHash([]byte("reviewer\n")) || res.Chars != 9 {
		t.Errorf("write: %q on disk, %s", fx.read("n.txt"), jsonOf(res))
	}
	if ev, ok := rec.events[len(rec.events)-1].(*schema.FileWrittenEvent); !ok || !ev.ModifiedByReviewer || ev.ContentHash != res.Hash {
		t.Errorf("write event: %s", jsonOf(rec.events))
	}
	rec = recorder{}
	eres := mustCall(t, e, schema.ToolEditFile, map[string]any{"path": "t.txt", "old_text": "b", "new_text": "B"}, reviewHooks(&rec, withContent("a\nREVIEWED\nc\n"))).(*schema.EditFileResult)
	if fx.read("t.txt") != "a\nREVIEWED\nc\n" || !eres.ModifiedByReviewer {
		t.Errorf("edit: %q on disk, %s", fx.read("t.txt"), jsonOf(eres))
	}
	ev, ok := rec.events[len(rec.events)-1].(*schema.FileEditedEvent)
	if !ok || !ev.ModifiedByReviewer || !strings.Contains(ev.Diff, "+REVIEWED") || strings.Contains(ev.Diff, "+B") {
		t.Errorf("edit event: %s", jsonOf(rec.events))
	}
	// The proposed content, sent back unchanged, is a plain approval.
	rec = recorder{}
	same := mustCall(t, e, schema.ToolWriteFile, map[string]any{"path": "s.txt", "content": "x\n"}, reviewHooks(&rec, withContent("x\n"))).(*schema.WriteFileResult)
	if same.ModifiedByReviewer || strings.Contains(same.Text, "reviewer") {
		t.Errorf("unchanged content: %s", jsonOf(same))
	}
}

// TestReview_ReplacementRefused: replacement content on a refusal, on an operation that has no
// content, binary content for an edit, or a file changed while the reviewer looked, writes
// nothing and fails clearly.
func TestReview_ReplacementRefused(t *testing.T) {
	fx := makeFixture(t, "t.txt: a\\nb\\n", "d/")
	e := fx.engine(schema.Config{Tools: []string{"write_file", "edit_file", "create_directory", "delete"}})
	text := "x"
	var rec recorder
	_, err := tryCall(t, e, schema.ToolWriteFile, map[string]any{"path": "n.txt", "content": "m"},
		reviewHooks(&rec, func(*schema.FileChangeRequest) schema.ChangeRequestResult {
			return schema.ChangeRequestResult{Approve: false, Content: &text}
		}))
	wantKind(t, "content with a refusal", err, kindChangeRequestFailed)
	_, err = tryCall(t, e, schema.ToolCreateDirectory, map[string]any{"path": "newdir"}, reviewHooks(&rec, withContent("x")))
	wantKind(t, "content for create_directory", err, kindChangeRequestFailed)
	_, err = tryCall(t, e, schema.ToolDelete, map[string]any{"path": "t.txt"}, reviewHooks(&rec, withContent("x")))
	wantKind(t, "content for delete", err, kindChangeRequestFailed)
	_, err = tryCall(t, e, schema.ToolEditFile, map[string]any{"path": "t.txt", "old_text": "b", "new_text": "B"}, reviewHooks(&rec, withContent("bin\x00ary")))
	wantKind(t, "binary content for an edit", err, kindChangeRequestFailed)
	// The file changes while the reviewer edits: the replacement is not written over it.
	_, err = tryCall(t, e, schema.ToolEditFile, map[string]any{"path": "t.txt", "old_text": "b", "new_text": "B"},
		reviewHooks(&rec, func(*schema.FileChangeRequest) schema.ChangeRequestResult {
			os.WriteFile(filepath.Join(fx.root, "t.txt"), []byte("someone else\n"), 0o644)
			s := "reviewer\n"
			return schema.ChangeRequestResult{Approve: true, Content: &s}
		}))
	if err == nil {
		t.Errorf("a file changed during review was overwritten")
	}
	for name, want := range map[string]string{"n.txt": "<missing>", "t.txt": "someone else\n"} {
		if got := fx.read(name); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(fx.root, "newdir")); err == nil {
		t.Errorf("newdir created")
	}
}
