package engine

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/fsbox/fsbox/engine/internal/commit"
	"github.com/fsbox/fsbox/schema"
)

// patchEngine opens an engine with apply_patch enabled (and the defaults' protected patterns).
func patchEngine(fx *fixture, cfg schema.Config) *Engine {
	cfg.Tools = []string{schema.ToolApplyPatch, schema.ToolStrReplaceBasedEditTool, schema.ToolReadFile}
	return fx.engine(cfg)
}

func envelope(body string) map[string]any {
	return map[string]any{"input": "*** Begin Patch\n" + body + "*** End Patch\n"}
}

func TestApplyPatch_MultiFile(t *testing.T) {
	fx := makeFixture(t, "a.txt: one\ntwo\nthree\n", "gone.txt: bye\n", "src/m.go: package m\n\nfunc F() int {\n\treturn 1\n}\n")
	e := patchEngine(fx, schema.Config{})
	var rec recorder
	res := mustCall(t, e, schema.ToolApplyPatch, envelope(
		"*** Add File: new/../b.txt\n+hello\n+world\n"+
			"*** Update File: a.txt\n@@\n one\n-two\n+TWO\n three\n"+
			"*** Delete File: gone.txt\n"+
			"*** Update File: src/m.go\n*** Move to: src/n.go\n@@ func F() int {\n-\treturn 1\n+\treturn 2\n"), rec.hooks(true)).(*schema.ApplyPatchResult)
	if fx.read("b.txt") != "hello\nworld\n" || fx.read("a.txt") != "one\nTWO\nthree\n" || fx.read("gone.txt") != "<missing>" ||
		fx.read("src/m.go") != "<missing>" || fx.read("src/n.go") != "package m\n\nfunc F() int {\n\treturn 2\n}\n" {
		t.Fatalf("files after the patch: b=%q a=%q gone=%q n=%q", fx.read("b.txt"), fx.read("a.txt"), fx.read("gone.txt"), fx.read("src/n.go"))
	}
	if len(rec.requests) != 1 || rec.requests[0].Operation != "patch" || rec.requests[0].Path != "b.txt" {
		t.Fatalf("want one change request for the whole patch, got %d: %s", len(rec.requests), jsonOf(rec.requests))
	}
	d := rec.requests[0].Diff
	for _, want := range []string{"+++ b/b.txt", "+TWO", "--- a/gone.txt", "rename from src/m.go\nrename to src/n.go", "+\treturn 2"} {
		if !strings.Contains(d, want) {
			t.Errorf("change request diff lacks %q:\n%s", want, d)
		}
	}
	want := "Success. Updated the following files:\nA b.txt\nM a.txt\nD gone.txt\nM src/n.go"
	if got := regexp.MustCompile(` \[hash:[0-9a-f]{12}\]`).ReplaceAllString(res.Text, ""); got != want {
		t.Fatalf("text = %q, want it to start %q", res.Text, want)
	}
	kinds := []string{}
	for _, ev := range rec.events {
		b := jsonOf(ev)
		kinds = append(kinds, b[strings.Index(b, "file_system.")+12:strings.Index(b, "\",\"path")])
	}
	if strings.Join(kinds, ",") != "file_written,file_edited,file_deleted,file_moved,file_edited" {
		t.Fatalf("events = %v", kinds)
	}
}

// TestApplyPatch_ThirdFileFailsNothingWritten: any failing part refuses the whole patch before
// anything is written or asked.
func TestApplyPatch_ThirdFileFailsNothingWritten(t *testing.T) {
	fx := makeFixture(t, "a.txt: a\n", "b.txt: b\n", "c.txt: c\n", ".git/config: x\n", "$OUTSIDE/o.txt: o\n", "pipe |", "bin.dat: a\x00b\n", "d/")
	e := patchEngine(fx, schema.Config{})
	first := "*** Update File: a.txt\n@@\n-a\n+A\n*** Add File: new.txt\n+n\n"
	cases := map[string]struct {
		third string
		kind  schema.ErrorKind
	}{
		"context not found":      {"*** Update File: c.txt\n@@\n-zzz\n+C\n", schema.KindNoMatch},
		"traversal":              {"*** Update File: ../outside/o.txt\n@@\n-o\n+O\n", schema.KindOutsideRoot},
		"traversal in add":       {"*** Add File: ../x.txt\n+x\n", schema.KindOutsideRoot},
		"traversal in delete":    {"*** Delete File: ../outside/o.txt\n", schema.KindOutsideRoot},
		"move outside":           {"*** Update File: c.txt\n*** Move to: ../outside/c.txt\n@@\n-c\n+C\n", schema.KindOutsideRoot},
		"move into protected":    {"*** Update File: c.txt\n*** Move to: .git/c.txt\n@@\n-c\n+C\n", schema.KindProtected},
		"move over a file":       {"*** Update File: c.txt\n*** Move to: b.txt\n@@\n-c\n+C\n", schema.KindAlreadyExists},
		"add over a file":        {"*** Add File: b.txt\n+b2\n", schema.KindAlreadyExists},
		"delete protected":       {"*** Delete File: .git/config\n", schema.KindProtected},
		"delete missing":         {"*** Delete File: nope.txt\n", schema.KindNotFound},
		"update missing":         {"*** Update File: nope.txt\n@@\n-x\n+y\n", schema.KindNotFound},
		"same file twice":        {"*** Update File: ./a.txt\n@@\n-a\n+B\n", schema.KindInvalidArguments},
		"add under a file":       {"*** Add File: b.txt/x.txt\n+x\n", schema.KindParentNotDirectory},
		"add in a protected dir": {"*** Add File: .git/hooks/pre-commit\n+x\n", schema.KindProtected},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var rec recorder
			_, err := tryCall(t, e, schema.ToolApplyPatch, envelope(first+tc.third), rec.hooks(true))
			wantKind(t, name, err, tc.kind)
			if fx.read("a.txt") != "a\n" || fx.read("new.txt") != "<missing>" || fx.read("b.txt") != "b\n" || fx.read("c.txt") != "c\n" {
				t.Fatalf("a file changed: a=%q new=%q", fx.read("a.txt"), fx.read("new.txt"))
			}
			if len(rec.requests) != 0 || len(rec.events) != 0 {
				t.Fatalf("asked or announced a refused patch: %d requests, %d events", len(rec.requests), len(rec.events))
			}
			if strings.Contains(err.Msg, fx.root) || strings.Contains(err.Msg, fx.outside) {
				t.Fatalf("host path in message: %s", err.Msg)
			}
		})
	}
}

func TestApplyPatch_RejectedAndEdited(t *testing.T) {
	fx := makeFixture(t, "a.txt: a\n")
	e := patchEngine(fx, schema.Config{})
	rec := recorder{answer: func(*schema.FileChangeRequest) (bool, string, error) { return false, "not now", nil }}
	res := mustCall(t, e, schema.ToolApplyPatch, envelope("*** Update File: a.txt\n@@\n-a\n+A\n"), rec.hooks(true)).(*schema.ApplyPatchResult)
	if !res.Cancelled || fx.read("a.txt") != "a\n" || !strings.Contains(res.Text, "not now") {
		t.Fatalf("rejected patch: %s, a=%q", jsonOf(res), fx.read("a.txt"))
	}
	// An edit with replacement arguments is a new patch, checked like the model's.
	rec = recorder{reply: func(*schema.FileChangeRequest) (schema.ChangeRequestResult, error) {
		return schema.ChangeRequestResult{Decision: "edit", Arguments: envelope("*** Update File: a.txt\n@@\n-a\n+reviewed\n")}, nil
	}}
	res = mustCall(t, e, schema.ToolApplyPatch, envelope("*** Update File: a.txt\n@@\n-a\n+A\n"), rec.hooks(true)).(*schema.ApplyPatchResult)
	if !res.ModifiedByReviewer || fx.read("a.txt") != "reviewed\n" {
		t.Fatalf("edited patch: %s, a=%q", jsonOf(res), fx.read("a.txt"))
	}
	// Content replaces one file's content; a patch takes arguments only.
	rec = recorder{reply: func(*schema.FileChangeRequest) (schema.ChangeRequestResult, error) {
		c := "x"
		return schema.ChangeRequestResult{Decision: "edit", Content: &c}, nil
	}}
	_, err := tryCall(t, e, schema.ToolApplyPatch, envelope("*** Update File: a.txt\n@@\n-reviewed\n+A\n"), rec.hooks(true))
	wantKind(t, "content edit of a patch", err, schema.KindChangeRequestFailed)
}

func TestApplyPatch_OperationForm(t *testing.T) {
	fx := makeFixture(t, "a.txt: l1\r\nl2\r\n")
	e := patchEngine(fx, schema.Config{})
	op := func(typ, path string, diff *string) map[string]any {
		o := map[string]any{"type": typ, "path": path}
		if diff != nil {
			o["diff"] = *diff
		}
		return map[string]any{"operation": o}
	}
	s := func(v string) *string { return &v }
	mustCall(t, e, schema.ToolApplyPatch, op("update_file", "a.txt", s("@@\n l1\n-l2\n+L2\n")), Hooks{})
	if fx.read("a.txt") != "l1\r\nL2\r\n" {
		t.Fatalf("CRLF update = %q", fx.read("a.txt"))
	}
	mustCall(t, e, schema.ToolApplyPatch, op("create_file", "n.txt", s("+x\n+y")), Hooks{})
	if fx.read("n.txt") != "x\ny\n" {
		t.Fatalf("create = %q", fx.read("n.txt"))
	}
	mustCall(t, e, schema.ToolApplyPatch, op("create_file", "empty.txt", s("")), Hooks{})
	if fx.read("empty.txt") != "" {
		t.Fatalf("empty create = %q", fx.read("empty.txt"))
	}
	mv := op("update_file", "n.txt", s("@@\n-y\n+Y\n"))
	mv["operation"].(map[string]any)["move_to"] = "m.txt"
	mustCall(t, e, schema.ToolApplyPatch, mv, Hooks{})
	if fx.read("m.txt") != "x\nY\n" || fx.read("n.txt") != "<missing>" {
		t.Fatalf("update_file with move_to: m=%q n=%q", fx.read("m.txt"), fx.read("n.txt"))
	}
	mustCall(t, e, schema.ToolApplyPatch, op("create_file", "n.txt", s("+x\n")), Hooks{})
	mustCall(t, e, schema.ToolApplyPatch, op("delete_file", "n.txt", nil), Hooks{})
	if fx.read("n.txt") != "<missing>" {
		t.Fatal("delete_file left the file")
	}
	for name, args := range map[string]any{
		"unknown key in operation": map[string]any{"operation": map[string]any{"type": "delete_file", "path": "a.txt", "force": true}},
		"missing type":             map[string]any{"operation": map[string]any{"path": "a.txt"}},
		"bad type":                 op("rename_file", "a.txt", nil),
		"both forms":               map[string]any{"input": "*** Begin Patch\n*** Delete File: a.txt\n*** End Patch", "operation": map[string]any{"type": "delete_file", "path": "a.txt"}},
		"neither":                  map[string]any{},
		"create without +":         op("create_file", "m2.txt", s("x\n")),
		"move_to on a delete":      map[string]any{"operation": map[string]any{"type": "delete_file", "path": "a.txt", "move_to": "b.txt"}},
	} {
		_, err := tryCall(t, e, schema.ToolApplyPatch, args, Hooks{})
		wantKind(t, name, err, schema.KindInvalidArguments)
	}
	if fx.read("a.txt") != "l1\r\nL2\r\n" {
		t.Fatal("a refused call changed a.txt")
	}
}

func TestApplyPatch_TooBig(t *testing.T) {
	fx := makeFixture(t)
	e := patchEngine(fx, schema.Config{})
	huge := "*** Add File: big.txt\n" + strings.Repeat("+"+strings.Repeat("x", 99)+"\n", maxPatchBytes/100+1)
	_, err := tryCall(t, e, schema.ToolApplyPatch, envelope(huge), Hooks{})
	wantKind(t, "huge hunk", err, schema.KindInvalidArguments)
	if !strings.Contains(err.Msg, "Split it") || fx.read("big.txt") != "<missing>" {
		t.Fatalf("huge patch: %s", err.Msg)
	}
}

// patchKillEnv names the root a re-executed test binary patches (see TestApplyPatch_KilledBetweenFiles).
const patchKillEnv = "FSBOX_PATCH_KILL_ROOT"

// TestApplyPatch_KilledBetweenFiles kills a real process applying a three-file patch after the
// first file is committed and before the second is, and checks what applyPatch documents: the
// first file new, the others old, none torn; and a move killed between writing its new path and
// unlinking its old one leaves both.
func TestApplyPatch_KilledBetweenFiles(t *testing.T) {
	if root := os.Getenv(patchKillEnv); root != "" {
		patchKillChild(root, os.Getenv(patchKillEnv+"_STAGE"))
		return
	}
	if testing.Short() {
		t.Skip("spawns processes")
	}
	run := func(t *testing.T, fx *fixture, stage string) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestApplyPatch_KilledBetweenFiles$")
		cmd.Env = append(os.Environ(), patchKillEnv+"="+fx.root, patchKillEnv+"_STAGE="+stage)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := bufio.NewScanner(out)
		for lines.Scan() && lines.Text() != "stopped at "+stage {
		}
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
	}
	t.Run("between files", func(t *testing.T) {
		fx := makeFixture(t, "1.txt: one\n", "2.txt: two\n", "3.txt: three\n")
		run(t, fx, "patch-next-file")
		if fx.read("1.txt") != "ONE\n" || fx.read("2.txt") != "two\n" || fx.read("3.txt") != "three\n" {
			t.Fatalf("after the kill: 1=%q 2=%q 3=%q; want the first file new, the others old", fx.read("1.txt"), fx.read("2.txt"), fx.read("3.txt"))
		}
	})
	t.Run("inside a move", func(t *testing.T) {
		fx := makeFixture(t, "1.txt: one\n", "2.txt: two\n", "3.txt: three\n")
		run(t, fx, "patch-move-written")
		if fx.read("1.txt") != "one\n" || fx.read("moved.txt") != "ONE\n" {
			t.Fatalf("after the kill: 1=%q moved=%q; want both, the old path old and the new path new", fx.read("1.txt"), fx.read("moved.txt"))
		}
	})
}

// patchKillChild applies a patch and stops for good at stage, saying so on stdout.
func patchKillChild(root, stage string) {
	e, err := New(schema.Config{RootDir: root, Tools: []string{schema.ToolApplyPatch}}, Options{})
	if err != nil {
		panic(err)
	}
	commit.TestHookCommit = func(s string) {
		if s == stage {
			os.Stdout.WriteString("stopped at " + s + "\n")
			select {}
		}
	}
	patch := "*** Begin Patch\n*** Update File: 1.txt\n@@\n-one\n+ONE\n*** Update File: 2.txt\n@@\n-two\n+TWO\n*** Update File: 3.txt\n@@\n-three\n+THREE\n*** End Patch"
	if stage == "patch-move-written" {
		patch = "*** Begin Patch\n*** Update File: 1.txt\n*** Move to: moved.txt\n@@\n-one\n+ONE\n*** Update File: 2.txt\n@@\n-two\n+TWO\n*** End Patch"
	}
	raw, _ := json.Marshal(map[string]any{"input": patch})
	e.Call(context.Background(), schema.ToolApplyPatch, raw, Hooks{})
	os.Stdout.WriteString("finished\n")
}

// TestApplyPatch_AddCreatesParents: Add File and Move to create missing parent directories (the
// patch is the model's only way to make one), checked as writes and created only at commit.
func TestApplyPatch_AddCreatesParents(t *testing.T) {
	fx := makeFixture(t, "a.txt: a\n")
	e := patchEngine(fx, schema.Config{DeniedPatterns: &[]string{"secret/**"}})
	var rec recorder
	mustCall(t, e, schema.ToolApplyPatch, envelope("*** Add File: new/deep/x.txt\n+x\n*** Update File: a.txt\n*** Move to: moved/a.txt\n@@\n-a\n+A\n"), rec.hooks(false))
	if fx.read("new/deep/x.txt") != "x\n" || fx.read("moved/a.txt") != "A\n" || fx.read("a.txt") != "<missing>" {
		t.Fatalf("x=%q moved=%q a=%q", fx.read("new/deep/x.txt"), fx.read("moved/a.txt"), fx.read("a.txt"))
	}
	if got := jsonOf(rec.events); !strings.Contains(got, `"kind":"file_system.directory_created","path":"new/deep"`) {
		t.Fatalf("no directory_created event: %s", got)
	}
	// A refused patch creates no directory, even when its directory part was fine.
	rec = recorder{answer: func(*schema.FileChangeRequest) (bool, string, error) { return false, "no", nil }}
	mustCall(t, e, schema.ToolApplyPatch, envelope("*** Add File: other/x.txt\n+x\n"), rec.hooks(true))
	if _, err := os.Stat(fx.abs("other")); err == nil {
		t.Fatal("a rejected patch created its directory")
	}
	_, err := tryCall(t, e, schema.ToolApplyPatch, envelope("*** Add File: ok/x.txt\n+x\n*** Add File: secret/sub/x.txt\n+x\n"), Hooks{})
	wantKind(t, "add in a denied directory", err, schema.KindDenied)
	if _, err := os.Stat(fx.abs("ok")); err == nil {
		t.Fatal("a refused patch created a directory")
	}
}

// BenchmarkEditFormats compares one change to a 1,000-line file through edit_file, apply_patch
// and str_replace_based_edit_tool, in process (the pipe cost is BenchmarkPipe's).
func BenchmarkEditFormats(b *testing.B) {
	var content strings.Builder
	for i := 0; i < 1000; i++ {
		if i == 500 {
			content.WriteString("// MARKER-A\n")
			continue
		}
		fmt.Fprintf(&content, "\tline %d of the file, some code here\n", i)
	}
	fx := makeFixture(b, "f.go: "+content.String())
	e := fx.engine(schema.Config{Tools: []string{schema.ToolEditFile, schema.ToolApplyPatch, schema.ToolStrReplaceBasedEditTool}})
	swap := func(i int) (string, string) {
		if i%2 == 0 {
			return "// MARKER-A", "// MARKER-B"
		}
		return "// MARKER-B", "// MARKER-A"
	}
	cases := []struct {
		tool string
		args func(from, to string) any
	}{
		{schema.ToolEditFile, func(from, to string) any { return map[string]any{"path": "f.go", "old_text": from, "new_text": to} }},
		{schema.ToolApplyPatch, func(from, to string) any {
			return map[string]any{"operation": map[string]any{"type": "update_file", "path": "f.go", "diff": "@@\n-" + from + "\n+" + to + "\n"}}
		}},
		{schema.ToolStrReplaceBasedEditTool, func(from, to string) any {
			return map[string]any{"command": "str_replace", "path": "f.go", "old_str": from, "new_str": to}
		}},
	}
	for _, tc := range cases {
		b.Run(tc.tool, func(b *testing.B) {
			raws := make([]json.RawMessage, 2)
			for i := range raws {
				raws[i], _ = json.Marshal(tc.args(swap(i)))
			}
			if strings.Contains(fx.read("f.go"), "MARKER-B") {
				b.Fatal("the file is not at MARKER-A")
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := e.Call(context.Background(), tc.tool, raws[i%2], Hooks{}); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			if b.N%2 == 1 {
				e.Call(context.Background(), tc.tool, raws[1], Hooks{})
			}
		})
	}
}
