//go:build unix

package engine

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fsbox/fsbox/engine/internal/commit"
	"github.com/fsbox/fsbox/schema"
)

// pausedWriterEnv names the root a re-executed test binary writes sub/f.txt into, pausing right
// before the rename (its temporary file written, the directory's lock held) until it reads a
// line on stdin.
const pausedWriterEnv = "FSBOX_PAUSED_WRITER_ROOT"

// TestPausedWriterChild is the child process of the sweep tests; run alone it does nothing.
func TestPausedWriterChild(t *testing.T) {
	root := os.Getenv(pausedWriterEnv)
	if root == "" {
		t.Skip("child process of the sweep tests")
	}
	e, err := New(schema.Config{RootDir: root}, Options{})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(2)
	}
	in := bufio.NewReader(os.Stdin)
	commit.TestHookCommit = func(stage string) {
		if stage == "before-rename" {
			fmt.Println("paused")
			in.ReadString('\n')
		}
	}
	_, err = e.Call(context.Background(), schema.ToolWriteFile, json.RawMessage(`{"path":"sub/f.txt","content":"from the child\n"}`), Hooks{})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(3)
	}
	fmt.Println("done")
	os.Exit(0)
}

// pausedWriter is a running child of TestPausedWriterChild, paused before its rename.
type pausedWriter struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Scanner
}

// startPausedWriter starts a child writing sub/f.txt in root and returns once it is paused.
func startPausedWriter(t *testing.T, root string) *pausedWriter {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestPausedWriterChild$")
	cmd.Env = append(os.Environ(), pausedWriterEnv+"="+root)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	w := &pausedWriter{cmd: cmd, stdin: stdin, out: bufio.NewScanner(stdout)}
	if !w.out.Scan() || w.out.Text() != "paused" {
		t.Fatalf("child did not pause: %q", w.out.Text())
	}
	return w
}

// TestSweepRemovesKilledWritersTemp kills a writer between writing its temporary file and the
// rename, and checks that the next session's first write into that directory removes the
// leftover, and nothing that merely looks like one: other names, the old naming, a symlink or a
// directory of the exact form (never followed), and a leftover in a directory not written to.
// A second write of the same session does not read the directory again.
func TestSweepRemovesKilledWritersTemp(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	fx := makeFixture(t, "sub/f.txt: old\n", "other/", "$OUTSIDE/keep.txt: outside\n")
	w := startPausedWriter(t, fx.root)
	w.cmd.Process.Kill()
	w.cmd.Wait()
	dead := w.cmd.Process.Pid
	left := tempsIn(t, fx.abs("sub"))
	if len(left) != 1 {
		t.Fatalf("the killed writer left %v, want one temporary file", left)
	}
	if fx.read("sub/f.txt") != "old\n" {
		t.Fatalf("sub/f.txt = %q", fx.read("sub/f.txt"))
	}
	lookalikes := []string{
		".fsbox-foo.tmp",
		".fsbox-0123456789abcdef.tmp", // the naming before pids
		fmt.Sprintf(".fsbox-%d-0123456789ABCDEF.tmp", dead),
		fmt.Sprintf(".fsbox-0%d-0123456789abcdef.tmp", dead),
		fmt.Sprintf(".fsbox-%d-0123456789abcde.tmp", dead),
		fmt.Sprintf(".fsbox-%d-0123456789abcdef.tmp.bak", dead),
		fmt.Sprintf("fsbox-%d-0123456789abcdef.tmp", dead),
		fmt.Sprintf(".fsbox-+%d-0123456789abcdef.tmp", dead),
	}
	for _, n := range lookalikes {
		fx.add("sub/" + n + ": user data\n")
	}
	link := fmt.Sprintf(".fsbox-%d-00000000000000aa.tmp", dead)
	dir := fmt.Sprintf(".fsbox-%d-00000000000000bb.tmp", dead)
	elsewhere := fmt.Sprintf(".fsbox-%d-00000000000000cc.tmp", dead)
	fx.add("sub/"+link+" => $OUTSIDE/keep.txt", "sub/"+dir+"/", "other/"+elsewhere+": stale\n")

	e := fx.engine(schema.Config{})
	mustCall(t, e, "write_file", map[string]any{"path": "sub/g.txt", "content": "new\n"}, Hooks{})

	if got := tempsIn(t, fx.abs("sub")); strings.Join(got, " ") != dir+" "+link && strings.Join(got, " ") != link+" "+dir {
		t.Errorf("after the write, sub holds %v; want only the symlink and the directory of the exact form", got)
	}
	for _, n := range lookalikes {
		if got := fx.read("sub/" + n); got != "user data\n" {
			t.Errorf("look-alike %s = %q; want it untouched", n, got)
		}
	}
	if fi, err := os.Lstat(fx.abs("sub/" + link)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("symlink %s: %v, %v", link, fi, err)
	}
	if fx.read("$OUTSIDE/keep.txt") != "outside\n" {
		t.Errorf("outside file changed")
	}
	if fx.read("other/"+elsewhere) != "stale\n" {
		t.Errorf("a directory nobody wrote to was swept")
	}

	// Once per directory per session: a stale file that appears later waits for a new session.
	late := fmt.Sprintf(".fsbox-%d-00000000000000dd.tmp", dead)
	fx.add("sub/" + late + ": stale\n")
	mustCall(t, e, "write_file", map[string]any{"path": "sub/g.txt", "content": "newer\n"}, Hooks{})
	if fx.read("sub/"+late) != "stale\n" {
		t.Errorf("the second write of a session swept again")
	}
	e2 := fx.engine(schema.Config{})
	mustCall(t, e2, "edit_file", map[string]any{"path": "sub/g.txt", "old_text": "newer", "new_text": "newest"}, Hooks{})
	if _, err := os.Lstat(fx.abs("sub/" + late)); !os.IsNotExist(err) {
		t.Errorf("a new session's edit did not sweep %s: %v", late, err)
	}
}

// TestSweepSparesLiveWritersTemp pauses a writer in another process with its temporary file
// written and the directory's lock held, and makes that file look stale by age (the pid check
// alone would then allow removing it). A write into the same directory must wait for the lock
// instead of sweeping: the paused writer, resumed, still renames its file into place.
func TestSweepSparesLiveWritersTemp(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	fx := makeFixture(t, "sub/f.txt: old\n")
	w := startPausedWriter(t, fx.root)
	temps := tempsIn(t, fx.abs("sub"))
	if len(temps) != 1 {
		t.Fatalf("the paused writer has %v, want one temporary file", temps)
	}
	old := time.Now().Add(-2 * commit.StaleTempAge)
	if err := os.Chtimes(fx.abs("sub/"+temps[0]), old, old); err != nil {
		t.Fatal(err)
	}

	e := fx.engine(schema.Config{})
	waiting := make(chan struct{})
	commit.TestHookCommit = func(stage string) {
		if stage == "lock-wait" {
			close(waiting)
		}
	}
	defer func() { commit.TestHookCommit = nil }()
	done := make(chan *Error, 1)
	go func() {
		raw := json.RawMessage(`{"path":"sub/g.txt","content":"parent\n"}`)
		_, err := e.Call(context.Background(), schema.ToolWriteFile, raw, Hooks{})
		ferr, _ := err.(*Error)
		if err != nil && ferr == nil {
			ferr = &Error{Msg: err.Error()}
		}
		done <- ferr
	}()
	select {
	case <-waiting:
	case err := <-done:
		t.Fatalf("a write in the directory of a paused writer did not wait for its lock (err %v); its temporary file exists: %v",
			err, len(tempsIn(t, fx.abs("sub"))) == 1)
	}
	if got := tempsIn(t, fx.abs("sub")); len(got) != 1 || got[0] != temps[0] {
		t.Fatalf("the live writer's temporary file is gone: %v", got)
	}
	io.WriteString(w.stdin, "go\n")
	if !w.out.Scan() || w.out.Text() != "done" {
		t.Fatalf("the resumed writer failed: %q", w.out.Text())
	}
	if err := <-done; err != nil {
		t.Fatalf("the waiting write failed: %v", err)
	}
	if fx.read("sub/f.txt") != "from the child\n" || fx.read("sub/g.txt") != "parent\n" {
		t.Errorf("f.txt = %q, g.txt = %q", fx.read("sub/f.txt"), fx.read("sub/g.txt"))
	}
	if got := tempsIn(t, filepath.Join(fx.root, "sub")); len(got) != 0 {
		t.Errorf("temporary files left: %v", got)
	}
}
