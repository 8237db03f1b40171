package engine

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/engine/internal/confine"
	"github.com/fsbox/fsbox/engine/internal/posthook"
	"github.com/fsbox/fsbox/engine/internal/text"
	"github.com/fsbox/fsbox/schema"
)

// hookEngine opens an engine on fx whose host configuration has the given hooks.
func hookEngine(fx *fixture, hooks ...schema.PostEditHook) *Engine {
	return fx.engine(schema.Config{PostEdit: hooks})
}

// sh is a hook running script with the changed file as $1: the file name reaches the script
// only as an argument, never as script text.
func sh(pattern, script string) schema.PostEditHook {
	return schema.PostEditHook{Path: pattern, Cmd: []string{"sh", "-c", script, "sh", "${file}"}}
}

// A hostile file name reaches the hook as one argument, "./" prefixed: no command in the name
// runs, and "-rf.go" is not taken as an option (cat would refuse "-rf.go" as one).
func TestPostEditHostileNames(t *testing.T) {
	fx := makeFixture(t)
	e := hookEngine(fx,
		sh("*.go", `printf '%s\n' "$1" >> hook.log`),
		schema.PostEditHook{Path: "*.go", Cmd: []string{"cat", "${file}"}},
		schema.PostEditHook{Path: "*.go", Cmd: []string{"touch", "--", "${file}.seen"}},
	)
	names := []string{"a;touch PWNED;.go", "$(touch SUBST).go", "`touch TICK`.go", "-rf.go", "x y'\"z.go", "--help.go"}
	for _, n := range names {
		var rec recorder
		res := mustCall(t, e, "write_file", map[string]any{"path": n, "content": "package x\n"}, rec.hooks(false)).(*schema.WriteFileResult)
		if len(res.PostEdit) != 3 || len(res.Warnings) != 0 {
			t.Fatalf("write %q: runs %+v warnings %q; want 3 clean runs", n, res.PostEdit, res.Warnings)
		}
		if got := res.PostEdit[1]; got.Output != "package x\n" || got.Cmd[1] != "./"+n {
			t.Errorf("write %q: cat ran as %q with output %q; want ./%s and the content", n, got.Cmd, got.Output, n)
		}
		if fx.read(n+".seen") != "" {
			t.Errorf("write %q: touch did not receive the name whole", n)
		}
	}
	var want string
	for _, n := range names {
		want += "./" + n + "\n"
	}
	if got := fx.read("hook.log"); got != want {
		t.Errorf("hook.log = %q; want %q", got, want)
	}
	for _, m := range []string{"PWNED", "SUBST", "TICK"} {
		if _, err := os.Lstat(filepath.Join(fx.root, m)); err == nil {
			t.Errorf("%s exists: a file name was run as a command", m)
		}
	}
}

// A failing hook leaves the change in place, with a warning line in the text and typed fields.
func TestPostEditFailureIsAWarning(t *testing.T) {
	fx := makeFixture(t, "a.go: old\n")
	e := hookEngine(fx, sh("*.go", `echo "syntax error in $1" >&2; exit 3`),
		schema.PostEditHook{Path: "*.go", Cmd: []string{"fsbox-no-such-command-xyz", "${file}"}})
	var rec recorder
	res := mustCall(t, e, "edit_file", map[string]any{"path": "a.go", "old_text": "old", "new_text": "new"}, rec.hooks(false)).(*schema.EditFileResult)
	if fx.read("a.go") != "new\n" {
		t.Fatalf("a.go = %q; the edit must stay in place", fx.read("a.go"))
	}
	if len(res.PostEdit) != 2 || res.PostEdit[0].OK || res.PostEdit[0].ExitCode != 3 || res.PostEdit[0].Output != "syntax error in ./a.go\n" {
		t.Errorf("first run = %+v; want exit 3 with its stderr", res.PostEdit)
	}
	if r := res.PostEdit[1]; r.OK || r.ExitCode != -1 || !strings.Contains(r.Error, "not found") {
		t.Errorf("missing command run = %+v; want a spawn error", r)
	}
	if len(res.Warnings) != 2 || !strings.Contains(res.Text, "exited with status 3; the edit itself is kept. Output:\nsyntax error in ./a.go") ||
		!strings.Contains(res.Text, "Warning: post_edit hook `fsbox-no-such-command-xyz ./a.go` failed") {
		t.Errorf("text %q warnings %q; want both warnings", res.Text, res.Warnings)
	}
	if res.Hash != text.ContentHash([]byte("new\n")) {
		t.Errorf("hash %q; want the edited content's", res.Hash)
	}
}

// A hook past its timeout is killed with its whole process group (a background child too), and
// the call returns with a warning.
func TestPostEditTimeoutKillsTheGroup(t *testing.T) {
	fx := makeFixture(t)
	h := sh("*.txt", `sleep 300 & echo $! > bg.pid; sleep 300`)
	h.Timeout = intp(1)
	e := hookEngine(fx, h)
	res := mustCall(t, e, "write_file", map[string]any{"path": "a.txt", "content": "x\n"}, Hooks{}).(*schema.WriteFileResult)
	if len(res.PostEdit) != 1 || !res.PostEdit[0].TimedOut || res.PostEdit[0].OK || !strings.Contains(res.Text, "timed out after 1s and was killed") {
		t.Fatalf("runs %+v text %q; want a timed-out run and its warning", res.PostEdit, res.Text)
	}
	if fx.read("a.txt") != "x\n" {
		t.Errorf("a.txt = %q; want the write kept", fx.read("a.txt"))
	}
	pid, err := strconv.Atoi(strings.TrimSpace(fx.read("bg.pid")))
	if err != nil {
		t.Fatalf("bg.pid: %v", err)
	}
	waitDead(t, pid)
}

// Cancelling the call kills a running hook the same way.
func TestPostEditCancelKillsTheHook(t *testing.T) {
	fx := makeFixture(t)
	e := hookEngine(fx, sh("*.txt", `touch started; sleep 300`))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan any, 1)
	go func() {
		res, _ := e.Call(ctx, "write_file", []byte(`{"path":"a.txt","content":"x\n"}`), Hooks{})
		done <- res
	}()
	for {
		if _, err := os.Stat(filepath.Join(fx.root, "started")); err == nil {
			break
		}
		select {
		case res := <-done:
			t.Fatalf("returned before the hook started: %+v", res)
		default:
		}
		runtimeGosched()
	}
	cancel()
	res := (<-done).(*schema.WriteFileResult)
	if len(res.PostEdit) != 1 || res.PostEdit[0].Error != "cancelled" || fx.read("a.txt") != "x\n" {
		t.Errorf("runs %+v; want a cancelled run and the write kept", res.PostEdit)
	}
}

// At most 4096 bytes of a hook's output are kept, and the warning says it was cut.
func TestPostEditOutputBounded(t *testing.T) {
	fx := makeFixture(t)
	e := hookEngine(fx, sh("*", `head -c 100000 /dev/zero | tr '\0' x; exit 1`))
	res := mustCall(t, e, "write_file", map[string]any{"path": "a.txt", "content": "x\n"}, Hooks{}).(*schema.WriteFileResult)
	r := res.PostEdit[0]
	if len(r.Output) != posthook.OutputBytes || !r.OutputTruncated || !strings.Contains(res.Text, "[output truncated at 4096 bytes]") {
		t.Errorf("output %d bytes, truncated %v, text tail %q; want 4096 and the notice", len(r.Output), r.OutputTruncated, res.Text[len(res.Text)-60:])
	}
	if len(res.Text) > 2*posthook.OutputBytes {
		t.Errorf("result text is %d bytes; want it bounded", len(res.Text))
	}
}

// The event and the result carry the content after the hooks: hash and, for an edit, the diff.
func TestPostEditEventCarriesPostHookContent(t *testing.T) {
	fx := makeFixture(t, "b.txt: one\n")
	e := hookEngine(fx, sh("*.txt", `echo appended >> "$1"`))
	var rec recorder
	res := mustCall(t, e, "write_file", map[string]any{"path": "a.txt", "content": "hello\n"}, rec.hooks(false)).(*schema.WriteFileResult)
	want := text.ContentHash([]byte("hello\nappended\n"))
	ev := rec.events[0].(*schema.FileWrittenEvent)
	if fx.read("a.txt") != "hello\nappended\n" || ev.ContentHash != want || res.Hash != want || len(ev.PostEdit) != 1 {
		t.Errorf("event %+v result hash %q; want hash %q of the post-hook content", ev, res.Hash, want)
	}
	if !strings.Contains(res.Text, "[hash:"+want+"]") || !strings.Contains(res.Text, "post_edit hooks changed the file") {
		t.Errorf("text %q; want the post-hook hash and a note", res.Text)
	}
	rec = recorder{}
	eres := mustCall(t, e, "edit_file", map[string]any{"path": "b.txt", "old_text": "one", "new_text": "two", "expected_hash": text.ContentHash([]byte("one\n"))}, rec.hooks(false)).(*schema.EditFileResult)
	eev := rec.events[0].(*schema.FileEditedEvent)
	want = text.ContentHash([]byte("two\nappended\n"))
	if eev.ContentHash != want || eres.Hash != want || !strings.Contains(eev.Diff, "+appended") || !strings.Contains(eev.Diff, "+two") {
		t.Errorf("edit event %+v; want hash %q and a diff to the post-hook content", eev, want)
	}
	// The post-hook hash is the one a follow-up edit must present.
	mustCall(t, e, "edit_file", map[string]any{"path": "b.txt", "old_text": "two", "new_text": "three", "expected_hash": want}, Hooks{})
}

// A hook that removes the file, or replaces it with a symlink (out of the root here), is reported
// in a warning; the re-read never follows the link.
func TestPostEditFileGoneOrSwapped(t *testing.T) {
	fx := makeFixture(t, "$OUTSIDE/secret.txt: TOP SECRET\n")
	e := hookEngine(fx,
		sh("gone.txt", `rm "$1"`),
		sh("link.txt", `rm "$1"; ln -s `+filepath.Join(fx.outside, "secret.txt")+` "$1"`),
		sh("dir.txt", `rm "$1"; mkdir "$1"`))
	for _, c := range []struct{ path, want string }{
		{"gone.txt", "was removed by a hook"},
		{"link.txt", "was replaced by a symlink (not followed)"},
		{"dir.txt", "not a regular file"},
	} {
		var rec recorder
		res := mustCall(t, e, "write_file", map[string]any{"path": c.path, "content": "x\n"}, rec.hooks(false)).(*schema.WriteFileResult)
		ev := rec.events[0].(*schema.FileWrittenEvent)
		if ev.ContentHash != absentHash || res.Hash != "" || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], c.want) || strings.Contains(res.Text, "[hash:") {
			t.Errorf("%s: event hash %q result %+v; want %q and no hash", c.path, ev.ContentHash, res, c.want)
		}
		if strings.Contains(res.Text, "TOP SECRET") || strings.Contains(res.Text, fx.outside) {
			t.Errorf("%s: text %q leaks the outside file", c.path, res.Text)
		}
	}
}

// Matching: a pattern without "/" matches the base name at any depth; one with "/" is relative
// to the root; a file no hook matches runs none (and reports none).
func TestPostEditMatching(t *testing.T) {
	fx := makeFixture(t, "sub/deep/", "x/sub/")
	e := hookEngine(fx, sh("*.go", `echo base`), sh("sub/*.go", `echo anchored`), sh("/sub/**/*.go", `echo tree`))
	for _, c := range []struct {
		path string
		want []string
	}{
		{"a.go", []string{"base"}},
		{"sub/a.go", []string{"base", "anchored", "tree"}},
		{"sub/deep/a.go", []string{"base", "tree"}},
		{"x/sub/a.go", []string{"base"}},
		{"a.txt", nil},
	} {
		res := mustCall(t, e, "write_file", map[string]any{"path": c.path, "content": "x\n"}, Hooks{}).(*schema.WriteFileResult)
		var got []string
		for _, r := range res.PostEdit {
			got = append(got, strings.TrimSpace(r.Output))
		}
		if strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("%s: hooks %q; want %q", c.path, got, c.want)
		}
	}
}

// Hooks come from the host's layer: with Options.Host set, a post_edit in the session's Config
// (which the server refuses anyway) is ignored.
func TestPostEditOnlyFromHost(t *testing.T) {
	fx := makeFixture(t)
	host := schema.Config{RootDir: fx.root, PostEdit: []schema.PostEditHook{sh("*", `echo host`)}}
	session := schema.Config{PostEdit: []schema.PostEditHook{sh("*", `touch CLIENT`)}}
	e, err := New(session, Options{Host: &host})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	res := mustCall(t, e, "write_file", map[string]any{"path": "a.txt", "content": "x\n"}, Hooks{}).(*schema.WriteFileResult)
	if len(res.PostEdit) != 1 || res.PostEdit[0].Output != "host\n" {
		t.Errorf("runs %+v; want the host's hook only", res.PostEdit)
	}
	if _, err := os.Stat(filepath.Join(fx.root, "CLIENT")); err == nil {
		t.Error("the session's hook ran")
	}
}

// A bad hook configuration is refused at New, naming the field.
func TestPostEditConfigErrors(t *testing.T) {
	fx := makeFixture(t)
	for _, c := range []struct {
		cfg  schema.Config
		want string
	}{
		{schema.Config{PostEdit: []schema.PostEditHook{{Path: "[", Cmd: []string{"true"}}}}, "post_edit[0].path"},
		{schema.Config{PostEdit: []schema.PostEditHook{{Path: "", Cmd: []string{"true"}}}}, "post_edit[0].path"},
		{schema.Config{PostEdit: []schema.PostEditHook{{Path: "*", Cmd: nil}}}, "post_edit[0].cmd"},
		{schema.Config{PostEdit: []schema.PostEditHook{{Path: "*", Cmd: []string{""}}}}, "post_edit[0].cmd"},
		{schema.Config{PostEdit: []schema.PostEditHook{{Path: "*", Cmd: []string{"true"}, Timeout: intp(0)}}}, "post_edit[0].timeout"},
		{schema.Config{PostEditTimeout: intp(-1)}, "post_edit_timeout"},
	} {
		c.cfg.RootDir = fx.root
		_, err := New(c.cfg, Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%+v) = %v; want an error naming %s", c.cfg.PostEdit, err, c.want)
		}
	}
}

// Where the kernel offers no confinement, an engine with hooks is refused, naming the opt-in;
// with the host's opt-in the hooks run, reported "unconfined". An engine without hooks is not
// affected.
func TestPostEditRefusedWithoutSandbox(t *testing.T) {
	fx := makeFixture(t)
	confine.SetABIForTesting(func() (int, string) { return 0, "no Landlock in this test" })
	defer confine.SetABIForTesting(nil)
	defer ConfigureSandbox(SandboxOptions{})
	cfg := schema.Config{RootDir: fx.root, PostEdit: []schema.PostEditHook{sh("*.txt", `echo ran`)}}
	_, err := New(cfg, Options{})
	if err == nil || !strings.Contains(err.Error(), "no Landlock in this test") || !strings.Contains(err.Error(), "--allow-unconfined-hooks") {
		t.Fatalf("New = %v; want hooks refused, naming why and the opt-in", err)
	}
	if e, err := New(schema.Config{RootDir: fx.root}, Options{}); err != nil {
		t.Fatalf("New without hooks: %v", err)
	} else {
		if s := e.Sandbox(); s.Hooks != "none" || s.Landlock != "off" {
			t.Errorf("Sandbox() = %+v; want landlock off, hooks none", s)
		}
		e.Close()
	}
	if err := ConfigureSandbox(SandboxOptions{Mode: "required"}); err == nil || !strings.Contains(err.Error(), "no Landlock in this test") {
		t.Errorf("--sandbox required without Landlock = %v; want refused", err)
	}
	if err := ConfigureSandbox(SandboxOptions{Mode: "auto", UnconfinedHooks: true}); err != nil {
		t.Fatal(err)
	}
	e := fx.engine(cfg)
	if s := e.Sandbox(); s.Hooks != "unconfined" || s.Landlock != "unavailable" {
		t.Errorf("Sandbox() = %+v; want landlock unavailable, hooks unconfined", s)
	}
	res := mustCall(t, e, "write_file", map[string]any{"path": "a.txt", "content": "x\n"}, Hooks{}).(*schema.WriteFileResult)
	if len(res.PostEdit) != 1 || res.PostEdit[0].Output != "ran\n" {
		t.Errorf("runs %+v; want the opted-in hook to run", res.PostEdit)
	}
}
