package engine

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/engine/internal/text"
	"github.com/fsbox/fsbox/schema"
)

// editContent is the reviewer's answer replacing a write's content.
func editContent(content string) func(*schema.FileChangeRequest) (schema.ChangeRequestResult, error) {
	return func(*schema.FileChangeRequest) (schema.ChangeRequestResult, error) {
		return schema.ChangeRequestResult{Decision: schema.DecisionEdit, Content: &content}, nil
	}
}

// editArgs is the reviewer's answer replacing the call's arguments.
func editArgs(args map[string]any) func(*schema.FileChangeRequest) (schema.ChangeRequestResult, error) {
	return func(*schema.FileChangeRequest) (schema.ChangeRequestResult, error) {
		return schema.ChangeRequestResult{Decision: schema.DecisionEdit, Arguments: args}, nil
	}
}

// wantReviewed checks that a change result says the reviewer modified it, in its field and as
// the last line of its text.
func wantReviewed(t *testing.T, res any, outcome schema.ChangeOutcome) {
	t.Helper()
	if !outcome.ModifiedByReviewer || outcome.Cancelled {
		t.Errorf("outcome = %+v; want modified_by_reviewer", outcome)
	}
	if !strings.HasSuffix(resultText(res), "\nNote: the reviewer modified this change before it was applied.") {
		t.Errorf("text = %q; want the reviewer's note last", resultText(res))
	}
}

func TestReview_WriteContentReplaced(t *testing.T) {
	fx := makeFixture(t, "a.txt: old\n")
	e := fx.engine(schema.Config{})
	rec := recorder{reply: editContent("reviewed\nby a human\n")}
	res := mustCall(t, e, "write_file", map[string]any{"path": "a.txt", "content": "model\n"}, rec.hooks(true)).(*schema.WriteFileResult)
	if got := fx.read("a.txt"); got != "reviewed\nby a human\n" {
		t.Fatalf("a.txt = %q; want the reviewer's content", got)
	}
	if len(rec.requests) != 1 {
		t.Errorf("%d change requests; want 1 (the reviewer's content is not announced again)", len(rec.requests))
	}
	wantReviewed(t, res, res.ChangeOutcome)
	if res.Chars != len("reviewed\nby a human\n") || res.Lines != 2 || res.Created {
		t.Errorf("result describes %d chars, %d lines, created %v; want the reviewer's content", res.Chars, res.Lines, res.Created)
	}
	if len(rec.events) != 1 {
		t.Fatalf("events = %v", rec.events)
	}
	ev := rec.events[0].(*schema.FileWrittenEvent)
	if !ev.ModifiedByReviewer || ev.ContentHash != text.ContentHash([]byte("reviewed\nby a human\n")) {
		t.Errorf("event = %+v; want the reviewer's content, marked", ev)
	}
}

func TestReview_PlainAnswersUnmarked(t *testing.T) {
	fx := makeFixture(t, "a.txt: old\n")
	e := fx.engine(schema.Config{})
	rec := recorder{}
	res := mustCall(t, e, "write_file", map[string]any{"path": "a.txt", "content": "model\n"}, rec.hooks(true)).(*schema.WriteFileResult)
	if res.ModifiedByReviewer || strings.Contains(res.Text, "reviewer") || rec.events[0].(*schema.FileWrittenEvent).ModifiedByReviewer {
		t.Errorf("a plain approval is marked as the reviewer's: %+v", res)
	}
}

func TestReview_DecisionField(t *testing.T) {
	cases := []struct {
		name   string
		answer schema.ChangeRequestResult
		lands  bool
	}{
		{"decision approve wins over approve false", schema.ChangeRequestResult{Decision: "approve"}, true},
		{"decision reject wins over approve true", schema.ChangeRequestResult{Approve: true, Decision: "reject", Reason: "no"}, false},
		{"approve alone", schema.ChangeRequestResult{Approve: true}, true},
		{"refuse alone", schema.ChangeRequestResult{Reason: "no"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fx := makeFixture(t, "a.txt: old\n")
			e := fx.engine(schema.Config{})
			rec := recorder{reply: func(*schema.FileChangeRequest) (schema.ChangeRequestResult, error) { return tc.answer, nil }}
			res := mustCall(t, e, "write_file", map[string]any{"path": "a.txt", "content": "new\n"}, rec.hooks(true)).(*schema.WriteFileResult)
			if got := fx.read("a.txt") == "new\n"; got != tc.lands || res.Cancelled == tc.lands || res.ModifiedByReviewer {
				t.Errorf("landed %v, result %+v; want landed %v", got, res, tc.lands)
			}
		})
	}
}

// TestReview_ArgumentsReRunEverything replaces a write's arguments with a path that fails one
// check each: the check the model's call would meet fails the reviewer's, nothing is written
// anywhere, the error keeps its kind and says it was the reviewer's edit.
func TestReview_ArgumentsReRunEverything(t *testing.T) {
	cases := []struct {
		name string
		args map[string]any
		kind schema.ErrorKind
	}{
		{"traversal", map[string]any{"path": "../outside/x.txt", "content": "r"}, "outside_root"},
		{"absolute outside", map[string]any{"path": "$OUTSIDE/x.txt", "content": "r"}, "outside_root"},
		{"protected", map[string]any{"path": ".git/config", "content": "r"}, "protected"},
		{"denied pattern", map[string]any{"path": "private/x.txt", "content": "r"}, "denied"},
		{"deny rule", map[string]any{"path": "ruled/x.txt", "content": "r"}, "permission_denied"},
		{"symlink out", map[string]any{"path": "out/x.txt", "content": "r"}, "outside_root"},
		{"missing parent", map[string]any{"path": "nowhere/x.txt", "content": "r"}, "parent_missing"},
		{"unknown argument", map[string]any{"path": "b.txt", "content": "r", "mode": "0777"}, "invalid_arguments"},
		{"missing content", map[string]any{"path": "b.txt"}, "invalid_arguments"},
		{"stale expected_hash", map[string]any{"path": "b.txt", "content": "r", "expected_hash": "000000000000"}, "stale_hash"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fx := makeFixture(t, "a.txt: old\n", "b.txt: bee\n", ".git/config: cfg\n", "private/", "ruled/", "out => $OUTSIDE")
			e := fx.engine(schema.Config{
				DeniedPatterns: &[]string{"private/**"},
				Permissions:    []schema.PermissionRule{{Operations: []string{"write"}, Paths: []string{"/ruled/**"}, Mode: "deny"}},
			})
			args := map[string]any{}
			for k, v := range tc.args {
				if s, ok := v.(string); ok {
					v = fx.expand(s)
				}
				args[k] = v
			}
			rec := recorder{reply: editArgs(args)}
			_, err := tryCall(t, e, "write_file", map[string]any{"path": "a.txt", "content": "model\n"}, rec.hooks(true))
			wantKind(t, tc.name, err, tc.kind)
			if err != nil && !strings.HasPrefix(err.Msg, "The reviewer's edit of this change was not applied, and nothing was changed: ") {
				t.Errorf("message %q does not say the reviewer's edit failed", err.Msg)
			}
			for name, want := range map[string]string{"a.txt": "old\n", "b.txt": "bee\n", ".git/config": "cfg\n", "private/x.txt": "<missing>",
				"ruled/x.txt": "<missing>", "$OUTSIDE/x.txt": "<missing>"} {
				if got := fx.read(name); got != want {
					t.Errorf("%s = %q; want %q", name, got, want)
				}
			}
			if len(rec.requests) != 1 || len(rec.events) != 0 {
				t.Errorf("requests %d, events %v; want one request and no event", len(rec.requests), rec.events)
			}
		})
	}
}

func TestReview_WriteRedirected(t *testing.T) {
	fx := makeFixture(t, "a.txt: old\n", "docs/")
	e := fx.engine(schema.Config{})
	rec := recorder{reply: editArgs(map[string]any{"path": "docs/a.txt", "content": "moved here\n"})}
	res := mustCall(t, e, "write_file", map[string]any{"path": "a.txt", "content": "model\n"}, rec.hooks(true)).(*schema.WriteFileResult)
	if fx.read("a.txt") != "old\n" || fx.read("docs/a.txt") != "moved here\n" {
		t.Fatalf("a.txt %q, docs/a.txt %q; want only the reviewer's path written", fx.read("a.txt"), fx.read("docs/a.txt"))
	}
	wantReviewed(t, res, res.ChangeOutcome)
	if res.Path != "docs/a.txt" || !res.Created || !strings.HasPrefix(res.Text, "Wrote 11 chars (1 lines) to docs/a.txt.") {
		t.Errorf("result = %+v; want it to describe the reviewer's write", res)
	}
	if ev := rec.events[0].(*schema.FileWrittenEvent); ev.Path != "docs/a.txt" || !ev.ModifiedByReviewer {
		t.Errorf("event = %+v", ev)
	}
}

// TestReview_InterruptRuleOnNewPathAsksNobody: the reviewer's replacement is approved by
// definition, so a path an interrupt rule covers is written without a second change request.
func TestReview_InterruptRuleOnNewPathAsksNobody(t *testing.T) {
	fx := makeFixture(t, "a.txt: old\n", "guarded/")
	e := fx.engine(schema.Config{Permissions: []schema.PermissionRule{{Operations: []string{"write"}, Paths: []string{"/guarded/**"}, Mode: "interrupt"}}})
	rec := recorder{reply: editArgs(map[string]any{"path": "guarded/b.txt", "content": "g\n"})}
	mustCall(t, e, "write_file", map[string]any{"path": "a.txt", "content": "model\n"}, rec.hooks(true))
	if len(rec.requests) != 1 || fx.read("guarded/b.txt") != "g\n" {
		t.Errorf("requests %d, guarded/b.txt %q; want one request and the write", len(rec.requests), fx.read("guarded/b.txt"))
	}
}

func TestReview_EditArguments(t *testing.T) {
	fx := makeFixture(t, "t.txt: a\nb\nc\n")
	e := fx.engine(schema.Config{})
	rec := recorder{reply: editArgs(map[string]any{"path": "t.txt", "replacements": []any{
		map[string]any{"old_text": "a", "new_text": "A"}, map[string]any{"old_text": "c", "new_text": "C"}}})}
	res := mustCall(t, e, "edit_file", map[string]any{"path": "t.txt", "old_text": "b", "new_text": "B"}, rec.hooks(true)).(*schema.EditFileResult)
	if got := fx.read("t.txt"); got != "A\nb\nC\n" {
		t.Fatalf("t.txt = %q; want the reviewer's edit only", got)
	}
	wantReviewed(t, res, res.ChangeOutcome)
	if res.Replacements != 2 {
		t.Errorf("replacements = %d; want the reviewer's 2", res.Replacements)
	}
	ev := rec.events[0].(*schema.FileEditedEvent)
	want := "--- a/t.txt\n+++ b/t.txt\n@@ -1,3 +1,3 @@\n-a\n+A\n b\n-c\n+C\n"
	if !ev.ModifiedByReviewer || ev.Diff != want || ev.Replacements != 2 || ev.ContentHash != text.ContentHash([]byte("A\nb\nC\n")) {
		t.Errorf("event = %+v; want the diff of what was written (%q)", ev, want)
	}
	if rec.requests[0].Diff == ev.Diff {
		t.Errorf("the event repeats the announced diff, not what was written")
	}
}

func TestReview_EditArgumentsFailLikeTheModels(t *testing.T) {
	for name, tc := range map[string]struct {
		args map[string]any
		kind schema.ErrorKind
	}{
		"no match":         {map[string]any{"path": "t.txt", "old_text": "zzz", "new_text": "y"}, "no_match"},
		"ambiguous":        {map[string]any{"path": "t.txt", "old_text": "x", "new_text": "y"}, "multiple_matches"},
		"empty old_text":   {map[string]any{"path": "t.txt", "old_text": "", "new_text": "y"}, "empty_old_text"},
		"stale hash":       {map[string]any{"path": "t.txt", "old_text": "b", "new_text": "y", "expected_hash": "000000000000"}, "stale_hash"},
		"protected target": {map[string]any{"path": "secrets.txt", "old_text": "s", "new_text": "y"}, "protected"},
		"mixed forms":      {map[string]any{"path": "t.txt", "old_text": "b", "new_text": "y", "replacements": []any{}}, "invalid_arguments"},
	} {
		t.Run(name, func(t *testing.T) {
			fx := makeFixture(t, "t.txt: x\nb\nx\n", "secrets.txt: s\n")
			e := fx.engine(schema.Config{})
			rec := recorder{reply: editArgs(tc.args)}
			_, err := tryCall(t, e, "edit_file", map[string]any{"path": "t.txt", "old_text": "b", "new_text": "B"}, rec.hooks(true))
			wantKind(t, name, err, tc.kind)
			if fx.read("t.txt") != "x\nb\nx\n" || fx.read("secrets.txt") != "s\n" || len(rec.events) != 0 {
				t.Errorf("something changed: t.txt %q, secrets.txt %q, events %v", fx.read("t.txt"), fx.read("secrets.txt"), rec.events)
			}
		})
	}
}

// TestReview_PinnedToWhatTheReviewerSaw changes the file while the reviewer decides: a
// replacement of the same path is refused (stale_hash) instead of applied to content the reviewer
// never saw, for content and for arguments alike.
func TestReview_PinnedToWhatTheReviewerSaw(t *testing.T) {
	for _, tc := range []struct {
		name, tool string
		args       map[string]any
		reply      func(*schema.FileChangeRequest) (schema.ChangeRequestResult, error)
		kind       schema.ErrorKind
	}{
		{"write content", "write_file", map[string]any{"path": "f.txt", "content": "m\n"}, editContent("r\n"), "stale_hash"},
		{"write arguments", "write_file", map[string]any{"path": "f.txt", "content": "m\n"}, editArgs(map[string]any{"path": "f.txt", "content": "r\n"}), "stale_hash"},
		{"edit arguments", "edit_file", map[string]any{"path": "f.txt", "old_text": "one", "new_text": "m"}, editArgs(map[string]any{"path": "f.txt", "old_text": "one", "new_text": "r"}), "stale_hash"},
		{"create arguments", "write_file", map[string]any{"path": "new.txt", "content": "m\n"}, editArgs(map[string]any{"path": "new.txt", "content": "r\n"}), "stale_hash"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := makeFixture(t, "f.txt: one\n")
			e := fx.engine(schema.Config{})
			target := tc.args["path"].(string)
			rec := recorder{reply: func(req *schema.FileChangeRequest) (schema.ChangeRequestResult, error) {
				if err := os.WriteFile(fx.abs(target), []byte("one, changed meanwhile\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				return tc.reply(req)
			}}
			_, err := tryCall(t, e, tc.tool, tc.args, rec.hooks(true))
			wantKind(t, tc.name, err, tc.kind)
			if got := fx.read(target); got != "one, changed meanwhile\n" {
				t.Errorf("%s = %q; the reviewer's change overwrote content the reviewer never saw", target, got)
			}
		})
	}
}

func TestReview_MoveAndMkdirArguments(t *testing.T) {
	fx := makeFixture(t, "a.txt: a\n", "dst/", ".git/")
	e := fx.engine(schema.Config{Tools: []string{"move_file", "create_directory"}})
	rec := recorder{reply: editArgs(map[string]any{"source": "a.txt", "destination": "dst/b.txt"})}
	res := mustCall(t, e, "move_file", map[string]any{"source": "a.txt", "destination": "c.txt"}, rec.hooks(true)).(*schema.MoveFileResult)
	if fx.read("dst/b.txt") != "a\n" || fx.read("c.txt") != "<missing>" || fx.read("a.txt") != "<missing>" {
		t.Fatalf("the move went elsewhere than the reviewer said")
	}
	wantReviewed(t, res, res.ChangeOutcome)
	if ev := rec.events[0].(*schema.FileMovedEvent); !ev.ModifiedByReviewer || ev.Path != "dst/b.txt" {
		t.Errorf("event = %+v", ev)
	}

	rec = recorder{reply: editArgs(map[string]any{"source": "dst/b.txt", "destination": ".git/b.txt"})}
	_, err := tryCall(t, e, "move_file", map[string]any{"source": "dst/b.txt", "destination": "c.txt"}, rec.hooks(true))
	wantKind(t, "move to protected", err, "protected")
	if fx.read("dst/b.txt") != "a\n" {
		t.Errorf("refused move moved anyway")
	}

	rec = recorder{reply: editArgs(map[string]any{"path": "made/deeper"})}
	mres := mustCall(t, e, "create_directory", map[string]any{"path": "made"}, rec.hooks(true)).(*schema.CreateDirectoryResult)
	if fi, err := os.Stat(fx.abs("made/deeper")); err != nil || !fi.IsDir() {
		t.Fatalf("made/deeper not created: %v", err)
	}
	wantReviewed(t, mres, mres.ChangeOutcome)
	if ev := rec.events[0].(*schema.DirectoryCreatedEvent); !ev.ModifiedByReviewer || ev.Path != "made/deeper" {
		t.Errorf("event = %+v", ev)
	}
	rec = recorder{reply: editArgs(map[string]any{"path": "../escape"})}
	_, err = tryCall(t, e, "create_directory", map[string]any{"path": "other"}, rec.hooks(true))
	wantKind(t, "mkdir traversal", err, "outside_root")
	if _, serr := os.Stat(fx.abs("$OUTSIDE/../escape")); serr == nil {
		t.Errorf("created outside the root")
	}
}

// TestReview_InvalidAnswers: answers that are not a decision the operation takes fail the call
// with change_request_failed and change nothing.
func TestReview_InvalidAnswers(t *testing.T) {
	content := "r\n"
	for _, tc := range []struct {
		name, tool string
		args       map[string]any
		answer     schema.ChangeRequestResult
	}{
		{"unknown decision", "write_file", map[string]any{"path": "a.txt", "content": "m"}, schema.ChangeRequestResult{Approve: true, Decision: "maybe"}},
		{"edit without replacement", "write_file", map[string]any{"path": "a.txt", "content": "m"}, schema.ChangeRequestResult{Decision: "edit"}},
		{"content and arguments", "write_file", map[string]any{"path": "a.txt", "content": "m"}, schema.ChangeRequestResult{Decision: "edit", Content: &content, Arguments: map[string]any{"path": "a.txt", "content": "x"}}},
		{"content with a refusal", "write_file", map[string]any{"path": "a.txt", "content": "m"}, schema.ChangeRequestResult{Content: &content}},
		{"content with decision approve", "write_file", map[string]any{"path": "a.txt", "content": "m"}, schema.ChangeRequestResult{Approve: true, Decision: "approve", Content: &content}},
		{"arguments with reject", "write_file", map[string]any{"path": "a.txt", "content": "m"}, schema.ChangeRequestResult{Decision: "reject", Arguments: map[string]any{"path": "a.txt"}}},
		{"content for a move", "move_file", map[string]any{"source": "a.txt", "destination": "c.txt"}, schema.ChangeRequestResult{Decision: "edit", Content: &content}},
		{"content for a mkdir", "create_directory", map[string]any{"path": "d"}, schema.ChangeRequestResult{Decision: "edit", Content: &content}},
		{"edit of a delete", "delete", map[string]any{"path": "a.txt"}, schema.ChangeRequestResult{Decision: "edit", Arguments: map[string]any{"path": "b.txt"}}},
		{"edit of a remove_directory", "remove_directory", map[string]any{"path": "empty"}, schema.ChangeRequestResult{Decision: "edit", Arguments: map[string]any{"path": "empty"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := makeFixture(t, "a.txt: old\n", "b.txt: bee\n", "empty/")
			e := fx.engine(schema.Config{Tools: []string{"write_file", "edit_file", "create_directory", "delete", "remove_directory", "move_file"}})
			rec := recorder{reply: func(*schema.FileChangeRequest) (schema.ChangeRequestResult, error) { return tc.answer, nil }}
			_, err := tryCall(t, e, tc.tool, tc.args, rec.hooks(true))
			wantKind(t, tc.name, err, "change_request_failed")
			if err != nil && !strings.Contains(err.Msg, "answer was invalid") {
				t.Errorf("message %q", err.Msg)
			}
			if fx.read("a.txt") != "old\n" || fx.read("b.txt") != "bee\n" || len(rec.events) != 0 {
				t.Errorf("something changed")
			}
			for _, d := range []string{"empty", "d"} {
				_, serr := os.Stat(fx.abs(d))
				if (d == "empty") != (serr == nil) {
					t.Errorf("%s: %v", d, serr)
				}
			}
		})
	}
}

// TestReview_SecondRunAsksNobody: however the reviewer's replacement ends, the hook is called
// once: the second run cannot ask again, so an edit cannot loop.
func TestReview_SecondRunAsksNobody(t *testing.T) {
	fx := makeFixture(t, "a.txt: old\n")
	e := fx.engine(schema.Config{})
	n := 0
	rec := recorder{reply: func(*schema.FileChangeRequest) (schema.ChangeRequestResult, error) {
		n++
		if n > 1 {
			return schema.ChangeRequestResult{}, errors.New("asked twice")
		}
		return schema.ChangeRequestResult{Decision: "edit", Arguments: map[string]any{"path": "a.txt", "content": "r\n"}}, nil
	}}
	mustCall(t, e, "write_file", map[string]any{"path": "a.txt", "content": "m\n"}, rec.hooks(true))
	if n != 1 || fx.read("a.txt") != "r\n" {
		t.Errorf("asked %d times, a.txt %q", n, fx.read("a.txt"))
	}
}

// TestReview_NoHostPathFromTheReviewer: an absolute path the reviewer typed is not echoed to the
// model, in a result or an error.
func TestReview_NoHostPathFromTheReviewer(t *testing.T) {
	fx := makeFixture(t, "a.txt: old\n", "docs/")
	e := fx.engine(schema.Config{})
	rec := recorder{reply: editArgs(map[string]any{"path": fx.abs("docs/b.txt"), "content": "r\n"})}
	res := mustCall(t, e, "write_file", map[string]any{"path": "a.txt", "content": "m\n"}, rec.hooks(true))
	if text := resultText(res); strings.Contains(text, fx.root) || !strings.Contains(text, " to docs/b.txt.") {
		t.Errorf("text = %q; want the root-relative path", text)
	}
	rec = recorder{reply: editArgs(map[string]any{"path": fx.expand("$OUTSIDE/x.txt"), "content": "r\n"})}
	_, err := tryCall(t, e, "write_file", map[string]any{"path": "a.txt", "content": "m\n"}, rec.hooks(true))
	wantKind(t, "outside", err, "outside_root")
	if err != nil && (strings.Contains(err.Msg, fx.outside) || strings.Contains(err.Path, fx.outside)) {
		t.Errorf("error %q (path %q) shows the reviewer's host path", err.Msg, err.Path)
	}
}

// reviewHooks answers every change request with answer and records requests and events.
func reviewHooks(rec *recorder, answer func(req *schema.FileChangeRequest) schema.ChangeRequestResult) Hooks {
	rec.reply = func(req *schema.FileChangeRequest) (schema.ChangeRequestResult, error) { return answer(req), nil }
	return rec.hooks(true)
}

// withContent approves with the reviewer's content in the short form {approve: true, content}.
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
	if fx.read("n.txt") != "reviewer\n" || !res.ModifiedByReviewer || !strings.Contains(res.Text, "reviewer modified") || res.Hash != text.ContentHash([]byte("reviewer\n")) || res.Chars != 9 {
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
	wantKind(t, "content with a refusal", err, schema.KindChangeRequestFailed)
	_, err = tryCall(t, e, schema.ToolCreateDirectory, map[string]any{"path": "newdir"}, reviewHooks(&rec, withContent("x")))
	wantKind(t, "content for create_directory", err, schema.KindChangeRequestFailed)
	_, err = tryCall(t, e, schema.ToolDelete, map[string]any{"path": "t.txt"}, reviewHooks(&rec, withContent("x")))
	wantKind(t, "content for delete", err, schema.KindChangeRequestFailed)
	_, err = tryCall(t, e, schema.ToolEditFile, map[string]any{"path": "t.txt", "old_text": "b", "new_text": "B"}, reviewHooks(&rec, withContent("bin\x00ary")))
	wantKind(t, "binary content for an edit", err, schema.KindChangeRequestFailed)
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

// A reviewer's replacement content with a NUL byte is refused by the tools that edit text
// (edit_file, the text editor's str_replace): nothing is written, and the failure is the host's
// (change_request_failed), not the model's.
func TestReview_BinaryContentRefusedByTextEdits(t *testing.T) {
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"edit_file", map[string]any{"path": "a.txt", "old_text": "old", "new_text": "new"}},
		{schema.ToolStrReplaceBasedEditTool, map[string]any{"command": "str_replace", "path": "a.txt", "old_str": "old", "new_str": "new"}},
	} {
		fx := makeFixture(t, "a.txt: old\n")
		e := fx.engine(schema.Config{Tools: []string{"read_file", "edit_file", schema.ToolStrReplaceBasedEditTool}})
		rec := recorder{reply: editContent("bin\x00ary\n")}
		_, err := tryCall(t, e, c.tool, c.args, rec.hooks(true))
		wantKind(t, c.tool, err, schema.KindChangeRequestFailed)
		if err != nil && !strings.Contains(err.Msg, "binary (it has a NUL byte); "+c.tool+" only writes text") {
			t.Errorf("%s: message %q", c.tool, err.Msg)
		}
		if got := fx.read("a.txt"); got != "old\n" {
			t.Errorf("%s: a.txt = %q; want it unchanged", c.tool, got)
		}
	}
}
