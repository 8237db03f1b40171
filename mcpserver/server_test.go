package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsbox/fsbox/schema"
)

func TestToolsListCarriesTheBundleDescriptorsAndHints(t *testing.T) {
	f := newFixture(t)
	for _, version := range []string{modern, legacy} {
		cs := f.connect(t, Options{}, nil, version)
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, spec := range schema.Tools {
			if spec.Default {
				want = append(want, spec.Name)
			}
		}
		descs, err := schema.Descriptors(want, true)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Tools) != len(descs) {
			t.Fatalf("%s: %d tools, want %d", version, len(res.Tools), len(descs))
		}
		slices.SortFunc(descs, func(a, b schema.ToolDescriptor) int { return strings.Compare(a.Name, b.Name) })
		for i, tool := range res.Tools { // tools/list is sorted by name
			d := descs[i]
			if tool.Name != d.Name || tool.Description != d.Description {
				t.Errorf("tool %d is %s, want %s", i, tool.Name, d.Name)
			}
			// The output schema is the result's without its text, which is the content block.
			delete(d.OutputSchema["properties"].(map[string]any), "text")
			d.OutputSchema["required"] = slices.DeleteFunc(d.OutputSchema["required"].([]any), func(r any) bool { return r == "text" })
			if !sameJSON(t, tool.InputSchema, d.InputSchema) || !sameJSON(t, tool.OutputSchema, d.OutputSchema) {
				t.Errorf("%s: schemas differ from the bundle's", tool.Name)
			}
			spec, _ := schema.ToolByName(tool.Name)
			a := tool.Annotations
			if a == nil || a.OpenWorldHint == nil || *a.OpenWorldHint || a.ReadOnlyHint != spec.ReadOnly || a.DestructiveHint == nil {
				t.Errorf("%s: annotations %+v", tool.Name, a)
				continue
			}
			if destructive := tool.Name == "write_file" || tool.Name == "edit_file"; *a.DestructiveHint != destructive {
				t.Errorf("%s: destructiveHint %v", tool.Name, *a.DestructiveHint)
			}
			if idem := tool.Name != "edit_file"; a.IdempotentHint != idem {
				t.Errorf("%s: idempotentHint %v", tool.Name, a.IdempotentHint)
			}
		}
	}
}

func sameJSON(t *testing.T, a, b any) bool {
	t.Helper()
	var x, y any
	for _, p := range []struct {
		v   any
		dst *any
	}{{a, &x}, {b, &y}} {
		data, err := json.Marshal(p.v)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, p.dst); err != nil {
			t.Fatal(err)
		}
	}
	return reflect.DeepEqual(x, y)
}

func TestConfigReachesTheTools(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t, Options{Config: schema.Config{ReadOnly: true}}, nil, modern)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if !tool.Annotations.ReadOnlyHint {
			t.Errorf("read_only server lists %s", tool.Name)
		}
	}
	if r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "write_file", Arguments: map[string]any{"path": "n.txt", "content": "x"}}); err == nil && !r.IsError {
		t.Errorf("write_file ran on a read-only server: %q", text(t, r))
	}
}

// TestResultIsTextBlockAndStructuredContent: the text is the content block, the typed fields are
// structuredContent, without the text (structured_test.go checks every tool).
func TestResultIsTextBlockAndStructuredContent(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t, Options{}, nil, modern)
	res := callTool(t, cs, "read_file", map[string]any{"path": "a.txt", "limit": 2})
	if res.IsError {
		t.Fatalf("read_file failed: %s", text(t, res))
	}
	sc := structured(t, res)
	if _, has := sc["text"]; has || sc["total_lines"] != float64(5) || sc["lines_shown"] != float64(2) || sc["next_offset"] != float64(2) {
		t.Errorf("structuredContent %v, text %q", sc, text(t, res))
	}
	if !strings.Contains(text(t, res), "two") || strings.Contains(text(t, res), "three") {
		t.Errorf("read_file text %q", text(t, res))
	}
}

func TestHostileReadsAreIsErrorWithoutHostPaths(t *testing.T) {
	f := newFixture(t)
	outside := strings.TrimSuffix(f.root, "root")
	for _, version := range []string{modern, legacy} {
		cs := f.connect(t, Options{}, nil, version)
		for _, c := range []struct{ tool, path string }{
			{"read_file", "../../etc/passwd"},
			{"read_file", "../secret.txt"},
			{"read_file", "/etc/passwd"},
			{"read_file", outside + "secret.txt"},
			{"read_file", f.root + "_sibling/s.txt"},
			{"list_directory", ".."},
			{"write_file", "../escaped.txt"},
		} {
			args := map[string]any{"path": c.path}
			if c.tool == "write_file" {
				args["content"] = "x"
			}
			res := callTool(t, cs, c.tool, args)
			if kind := errorKind(t, res); kind != "outside_root" {
				t.Errorf("%s %s: kind %s, want outside_root", c.tool, c.path, kind)
			}
			if strings.Contains(text(t, res), "canary") {
				t.Errorf("%s %s leaked outside content: %q", c.tool, c.path, text(t, res))
			}
			f.noHostPath(t, res, c.path)
		}
	}
}

func TestUnknownArgumentIsAnIsErrorResult(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t, Options{}, nil, modern)
	res := callTool(t, cs, "read_file", map[string]any{"path": "a.txt", "PATH": "x"})
	if kind := errorKind(t, res); kind != "invalid_arguments" || !strings.Contains(text(t, res), "PATH") {
		t.Errorf("kind %s, text %q", kind, text(t, res))
	}
}

// elicitor answers elicitations with action (and approve for accept) and records their messages.
type elicitor struct {
	mu       sync.Mutex
	action   string
	approve  bool
	messages []string
}

func (e *elicitor) handle(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.messages = append(e.messages, req.Params.Message)
	res := &mcp.ElicitResult{Action: e.action}
	if e.action == "accept" {
		res.Content = map[string]any{"approve": e.approve}
	}
	return res, nil
}

func TestElicitationApprovesOrRefusesAChange(t *testing.T) {
	for _, version := range []string{modern, legacy} {
		for _, c := range []struct {
			action  string
			approve bool
			applied bool
			reason  string
		}{
			{"accept", true, true, ""},
			{"accept", false, false, reasonRefused},
			{"decline", false, false, reasonDeclined},
			{"cancel", false, false, reasonCancelled},
		} {
			f := newFixture(t)
			el := &elicitor{action: c.action, approve: c.approve}
			cs := f.connect(t, Options{}, &mcp.ClientOptions{ElicitationHandler: el.handle}, version)
			res := callTool(t, cs, "edit_file", map[string]any{"path": "a.txt", "old_text": "two", "new_text": "TWO"})
			if res.IsError {
				t.Fatalf("%s %s: %s", version, c.action, text(t, res))
			}
			if len(el.messages) != 1 || !strings.Contains(el.messages[0], "edit of a.txt") || !strings.Contains(el.messages[0], "+TWO") {
				t.Errorf("%s %s: elicitation messages %q", version, c.action, el.messages)
			}
			for _, m := range el.messages {
				if strings.Contains(m, f.root) {
					t.Errorf("elicitation names the host path: %q", m)
				}
			}
			got := f.read(t, "a.txt")
			if applied := strings.Contains(got, "TWO"); applied != c.applied {
				t.Errorf("%s %s: applied %v, file %q", version, c.action, applied, got)
			}
			sc := structured(t, res)
			if cancelled, _ := sc["cancelled"].(bool); cancelled == c.applied || (!c.applied && sc["cancel_reason"] != c.reason) {
				t.Errorf("%s %s: structuredContent %v", version, c.action, sc)
			}
		}
	}
}

func TestChangePolicyWithoutElicitation(t *testing.T) {
	interrupt := schema.Config{Permissions: []schema.PermissionRule{{Operations: []string{"write"}, Paths: []string{"/docs/**"}, Mode: "interrupt"}}}
	for _, c := range []struct {
		policy  ChangePolicy
		path    string
		applied bool
		kind    string // of an isError result
	}{
		{ChangesAsk, "n.txt", true, ""},
		{ChangesAllow, "n.txt", true, ""},
		{ChangesRefuse, "n.txt", false, ""},
		{ChangesAsk, "docs/n.txt", false, "permission_denied"},
		{ChangesAllow, "docs/n.txt", false, "permission_denied"},
	} {
		f := newFixture(t)
		cs := f.connect(t, Options{Changes: c.policy, Config: interrupt}, nil, modern)
		res := callTool(t, cs, "write_file", map[string]any{"path": c.path, "content": "new\n"})
		switch {
		case c.kind != "":
			if kind := errorKind(t, res); kind != c.kind {
				t.Errorf("%s %s: kind %s, want %s", c.policy, c.path, kind, c.kind)
			}
		case res.IsError:
			t.Errorf("%s %s: %s", c.policy, c.path, text(t, res))
		case !c.applied && structured(t, res)["cancel_reason"] != reasonHostRefuses:
			t.Errorf("%s %s: %v", c.policy, c.path, structured(t, res))
		}
		_, err := readFile(f, c.path)
		if applied := err == nil; applied != c.applied {
			t.Errorf("%s %s: applied %v, want %v", c.policy, c.path, applied, c.applied)
		}
	}
}

func TestAllowPolicyStillAsksForInterruptRules(t *testing.T) {
	f := newFixture(t)
	el := &elicitor{action: "accept", approve: true}
	cfg := schema.Config{Permissions: []schema.PermissionRule{{Operations: []string{"write"}, Paths: []string{"/docs/**"}, Mode: "interrupt"}}}
	cs := f.connect(t, Options{Changes: ChangesAllow, Config: cfg}, &mcp.ClientOptions{ElicitationHandler: el.handle}, modern)
	callTool(t, cs, "write_file", map[string]any{"path": "plain.txt", "content": "x"})
	if len(el.messages) != 0 {
		t.Errorf("allow asked about an unflagged change: %q", el.messages)
	}
	res := callTool(t, cs, "write_file", map[string]any{"path": "docs/flagged.txt", "content": "x"})
	if res.IsError || len(el.messages) != 1 || !strings.Contains(el.messages[0], "permission rule") {
		t.Errorf("flagged change: %v, messages %q", res.IsError, el.messages)
	}
	if f.read(t, "docs/flagged.txt") != "x" {
		t.Error("approved flagged change not written")
	}
}

func TestRoundTwoRefusesAChangeTheUserDidNotSee(t *testing.T) {
	req := &schema.FileChangeRequest{EventBase: schema.EventBase{Tool: "edit_file", Path: "a.txt"}, Operation: "edit", Diff: "-a\n+b\n", Reason: "listener"}
	seen := changeDigest(req)
	changed := *req
	changed.Diff = "-a\n+c\n"
	accept := &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}
	a := &approval{policy: ChangesAsk, canElicit: true, answer: accept, state: seen}
	if ok, reason, err := a.decider()(context.Background(), &changed); ok || err != nil || reason != reasonChanged {
		t.Errorf("changed diff: approve %v, reason %q, err %v", ok, reason, err)
	}
	if ok, _, err := a.decider()(context.Background(), req); !ok || err != nil {
		t.Errorf("seen diff: approve %v, err %v", ok, err)
	}
}

func TestEventsAreLoggingNotificationsWithoutTheRoot(t *testing.T) {
	f := newFixture(t)
	got := make(chan *mcp.LoggingMessageParams, 16)
	copts := &mcp.ClientOptions{LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
		got <- req.Params
	}}
	cs := f.connect(t, Options{}, copts, legacy)
	callTool(t, cs, "read_file", map[string]any{"path": "a.txt"}) // before the level is set: no event
	if err := cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	callTool(t, cs, "write_file", map[string]any{"path": "n.txt", "content": "x"})
	// The client hands notifications to its handler asynchronously, so wait for the first one.
	var ev *mcp.LoggingMessageParams
	select {
	case ev = <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("no event arrived")
	}
	data, _ := json.Marshal(ev)
	if ev.Level != "notice" || ev.Logger != "fsbox" || !strings.Contains(string(data), schema.KindFileWritten) || strings.Contains(string(data), f.root) {
		t.Errorf("first event after the level was set: %s", data)
	}
}

func TestClientRootInsideTheHostRootBecomesTheCwd(t *testing.T) {
	f := newFixture(t)
	uri := func(p string) *mcp.Root { return &mcp.Root{URI: "file://" + p} }
	cs := f.connect(t, Options{}, nil, legacy, uri("/"), uri(f.root+"/../root_sibling"), uri(f.root+"/src"))
	// The first root contains the host's root and the second lies outside it: neither widens.
	res := callTool(t, cs, "list_directory", map[string]any{})
	if res.IsError || !strings.Contains(text(t, res), "main.go") || strings.Contains(text(t, res), "a.txt") {
		t.Fatalf("cwd not the client's root: %q", text(t, res))
	}
	if res := callTool(t, cs, "read_file", map[string]any{"path": "../a.txt"}); res.IsError {
		t.Errorf("the host's root is still reachable from the client's cwd: %s", text(t, res))
	}
	res = callTool(t, cs, "read_file", map[string]any{"path": "../../secret.txt"})
	if kind := errorKind(t, res); kind != "outside_root" {
		t.Errorf("escape from the narrowed cwd: kind %s", kind)
	}
	f.noHostPath(t, res)
}

func TestClientRootsOutsideNeverWiden(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t, Options{}, nil, legacy, &mcp.Root{URI: "file://" + strings.TrimSuffix(f.root, "/root")})
	res := callTool(t, cs, "read_file", map[string]any{"path": "../secret.txt"})
	if kind := errorKind(t, res); kind != "outside_root" {
		t.Errorf("a root containing the host's root widened it: kind %s", kind)
	}
	if res := callTool(t, cs, "read_file", map[string]any{"path": "a.txt"}); res.IsError {
		t.Errorf("host cwd lost: %s", text(t, res))
	}
}

func readFile(f *fixture, rel string) (string, error) {
	data, err := readFileErr(f.root, rel)
	return string(data), err
}

func TestNewRefusesBadOptions(t *testing.T) {
	f := newFixture(t)
	for _, o := range []Options{{Changes: "maybe"}, {Compat: "other"}, {Config: schema.Config{Tools: []string{"nope"}}}} {
		o.DefaultRoot = f.root
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) accepted", o)
		}
	}
	if _, err := New(Options{DefaultRoot: f.root + "/missing"}); err == nil || slices.Contains([]string{""}, err.Error()) {
		t.Errorf("missing root accepted: %v", err)
	}
}

func TestEveryToolRefusesHostilePaths(t *testing.T) {
	f := newFixture(t)
	all := schema.Config{}
	for _, spec := range schema.Tools {
		all.Tools = append(all.Tools, spec.Name)
	}
	extra := map[string]map[string]any{
		"write_file":   {"content": "x"},
		"edit_file":    {"old_text": "a", "new_text": "b"},
		"search_files": {"pattern": "canary"},
		"find_files":   {"pattern": "*"},
		"grep":         {"pattern": "canary"},
	}
	cs := f.connect(t, Options{Config: all}, nil, modern)
	for _, hostile := range []string{"../../etc/passwd", "..", "../secret.txt", f.root + "_sibling", "/etc"} {
		for _, spec := range schema.Tools {
			if spec.Name == schema.ToolUndoLastChange {
				continue // takes no path
			}
			args := map[string]any{"path": hostile}
			switch spec.Name {
			case "read_multiple_files":
				args = map[string]any{"paths": []any{hostile}}
			case "move_file": // a hostile source, then a hostile destination below
				args = map[string]any{"source": hostile, "destination": "moved.txt"}
			case schema.ToolApplyPatch:
				args = map[string]any{"operation": map[string]any{"type": "update_file", "path": hostile, "diff": "@@\n-a\n+b\n"}}
			case schema.ToolStrReplaceBasedEditTool:
				args = map[string]any{"command": "view", "path": hostile}
			}
			for k, v := range extra[spec.Name] {
				args[k] = v
			}
			res := callTool(t, cs, spec.Name, args)
			if spec.Name == "read_multiple_files" {
				// One failure does not fail the others: the error is inside the result.
				if res.IsError || !strings.Contains(text(t, res), "outside") {
					t.Errorf("read_multiple_files %s: %q", hostile, text(t, res))
				}
			} else if kind := errorKind(t, res); kind != "outside_root" {
				t.Errorf("%s %s: kind %s", spec.Name, hostile, kind)
			}
			if strings.Contains(text(t, res), "canary") {
				t.Errorf("%s %s leaked: %q", spec.Name, hostile, text(t, res))
			}
			f.noHostPath(t, res, hostile)
			if spec.Name == "move_file" {
				res := callTool(t, cs, "move_file", map[string]any{"source": "a.txt", "destination": hostile})
				if kind := errorKind(t, res); kind != "outside_root" {
					t.Errorf("move_file to %s: kind %s", hostile, kind)
				}
				f.noHostPath(t, res, hostile)
			}
		}
	}
}

func TestAFailedElicitationChangesNothing(t *testing.T) {
	f := newFixture(t)
	fail := func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return nil, errors.New("the user interface crashed")
	}
	cs := f.connect(t, Options{}, &mcp.ClientOptions{ElicitationHandler: fail}, legacy)
	res := callTool(t, cs, "write_file", map[string]any{"path": "a.txt", "content": "lost\n"})
	if kind := errorKind(t, res); kind != "change_request_failed" {
		t.Errorf("kind %s", kind)
	}
	if strings.Contains(f.read(t, "a.txt"), "lost") {
		t.Error("the change was applied")
	}
}

// TestApprovalAnswerIsDecodedStrictly: an accepted approval form is {approve, reason?}, decoded
// by schema.Decode. {"approve": true, "note": …} used to approve (the extra member dropped) and
// {"Approve": true} to refuse with the user's "refused" reason; each now fails the call naming the
// member, and nothing is written.
func TestApprovalAnswerIsDecodedStrictly(t *testing.T) {
	// Over the wire: what the Go SDK's client lets through (it checks the form's required members
	// and types itself, not extra ones).
	for content, want := range map[string]string{
		`{"approve":true,"note":"ok"}`:     "unknown member `note`",
		`{"approve":true,"Approve":false}`: "unknown member `Approve`; did you mean `approve`?",
	} {
		var m map[string]any
		if err := json.Unmarshal([]byte(content), &m); err != nil {
			t.Fatal(err)
		}
		f := newFixture(t)
		answer := func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: m}, nil
		}
		cs := f.connect(t, Options{}, &mcp.ClientOptions{ElicitationHandler: answer}, modern)
		res := callTool(t, cs, "edit_file", map[string]any{"path": "a.txt", "old_text": "two", "new_text": "TWO"})
		if kind := errorKind(t, res); kind != "change_request_failed" || !strings.Contains(text(t, res), want) {
			t.Errorf("answer %s: kind %s, text %q; want change_request_failed containing %q", content, kind, text(t, res), want)
		}
		if got := f.read(t, "a.txt"); strings.Contains(got, "TWO") {
			t.Errorf("answer %s: the change was applied", content)
		}
	}
	// What a client that checks nothing may send: refused by the server itself.
	req := &schema.FileChangeRequest{EventBase: schema.EventBase{Tool: "edit_file", Path: "a.txt"}, Operation: "edit", Diff: "-a\n+b\n", Reason: "listener"}
	for content, want := range map[string]string{
		`{"Approve":true}`:              "unknown member `Approve`; did you mean `approve`?",
		`{"approve":"yes"}`:             "`approve`: expected a boolean, got a string",
		`{"reason":"no approve given"}`: "missing member `approve`",
	} {
		var m map[string]any
		if err := json.Unmarshal([]byte(content), &m); err != nil {
			t.Fatal(err)
		}
		accept := &mcp.ElicitResult{Action: "accept", Content: m}
		a := &approval{policy: ChangesAsk, canElicit: true, answer: accept, state: changeDigest(req)}
		if ok, _, err := a.decider()(context.Background(), req); ok || err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("answer %s: approve %v, err %v; want an error containing %q", content, ok, err, want)
		}
	}
}
