//go:build linux && (amd64 || arm64)

package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fsbox/fsbox/engine/internal/confine"
	"github.com/fsbox/fsbox/schema"
)

// The hook attacks of issue 19, item 1: the hook opens ./sub/x.go later, in another process,
// and meanwhile sub is made a link to an outside directory holding x.go. The outside file must
// never reach the hook's output nor be changed, whoever swaps: the model through move_file, or a
// concurrent process exchanging names (RENAME_EXCHANGE).

func needHookSandbox(t *testing.T) {
	t.Helper()
	if !confine.HooksConfinable() {
		t.Skip("no Landlock here: hooks are refused, not confined (TestPostEditRefusedWithoutSandbox)")
	}
}

const outsideSecret = "package secret // OUTSIDE SECRET\n"

// The model alone: write_file sub/x.go starts a slow hook (it waits for the file "go"), then
// move_file sub → subold and move_file outlink → sub, then the hook reads and rewrites
// ./sub/x.go, which now leads outside.
func TestPostEditHookSwapByModel(t *testing.T) {
	needHookSandbox(t)
	fx := makeFixture(t, "sub/", "outlink => $OUTSIDE", "$OUTSIDE/x.go: "+outsideSecret)
	hook := sh("*.go", `while [ ! -e go ]; do sleep 0.01; done; cat "$1"; printf 'formatted\n' > "$1"`)
	hook.Timeout = intp(30)
	e := fx.engine(schema.Config{Tools: []string{"write_file", "move_file"}, PostEdit: []schema.PostEditHook{hook}})
	done := make(chan *schema.WriteFileResult, 1)
	go func() {
		res, err := e.Call(context.Background(), "write_file", []byte(`{"path":"sub/x.go","content":"package x\n"}`), Hooks{})
		if err != nil {
			t.Errorf("write_file: %v", err)
		}
		r, _ := res.(*schema.WriteFileResult)
		done <- r
	}()
	// The hook runs once the write landed: wait for the file, then swap as the model.
	for deadline := time.Now().Add(20 * time.Second); fx.read("sub/x.go") != "package x\n"; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the write never landed")
		}
	}
	mustCall(t, e, "move_file", map[string]any{"source": "sub", "destination": "subold"}, Hooks{})
	mustCall(t, e, "move_file", map[string]any{"source": "outlink", "destination": "sub"}, Hooks{})
	if err := os.WriteFile(filepath.Join(fx.root, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	res := <-done
	if res == nil {
		t.Fatal("no result")
	}
	b, _ := json.Marshal(res)
	if strings.Contains(string(b), "OUTSIDE SECRET") {
		t.Errorf("the outside file reached the model: %s", b)
	}
	if got := fx.read("$OUTSIDE/x.go"); got != outsideSecret {
		t.Errorf("the outside file was changed to %q", got)
	}
	if len(res.PostEdit) != 1 || res.PostEdit[0].OK {
		t.Errorf("runs %+v; want the hook to fail (its reads and writes outside refused)", res.PostEdit)
	}
}

// A concurrent process exchanges the in-root directory sub with the link to the outside
// (renameat2 RENAME_EXCHANGE, so sub always exists) while the model writes sub/x.go again and
// again with a hook that reads and rewrites it.
func TestPostEditHookSwapRace(t *testing.T) {
	needHookSandbox(t)
	fx := makeFixture(t, "sub/", "link => $OUTSIDE", "$OUTSIDE/x.go: "+outsideSecret)
	hook := sh("*.go", `cat "$1"; printf 'package x // rewritten\n' > "$1"`)
	e := fx.engine(schema.Config{PostEdit: []schema.PostEditHook{hook}})
	var stop atomic.Bool
	var swaps atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		a, b := filepath.Join(fx.root, "sub"), filepath.Join(fx.root, "link")
		for !stop.Load() {
			if renameExchange(a, b) == nil {
				swaps.Add(1)
			}
		}
	}()
	ran := 0
	deadline := time.Now().Add(20 * time.Second)
	for i := 0; ran < 60 && time.Now().Before(deadline); i++ {
		res, err := tryCall(t, e, "write_file", map[string]any{"path": "sub/x.go", "content": "package x\n"}, Hooks{})
		if err != nil {
			continue // sub was the link when the engine looked: refused, as it must be
		}
		ran++
		b, _ := json.Marshal(res)
		if strings.Contains(string(b), "OUTSIDE SECRET") {
			stop.Store(true)
			wg.Wait()
			t.Fatalf("write %d: the outside file reached the model: %s", i, b)
		}
	}
	stop.Store(true)
	wg.Wait()
	if got := fx.read("$OUTSIDE/x.go"); got != outsideSecret {
		t.Errorf("the outside file was changed to %q", got)
	}
	if ran < 20 || swaps.Load() < 100 {
		t.Fatalf("only %d hook runs and %d swaps: the race was not exercised", ran, swaps.Load())
	}
	t.Logf("%d hook runs, %d swaps", ran, swaps.Load())
}

// Whatever path a hook names, it can neither read nor write outside the root and mounts: the
// kernel refuses, not fsbox. Inside the root and a writable mount it works as before, and a
// read-only mount can be read but not changed.
func TestPostEditHookConfined(t *testing.T) {
	needHookSandbox(t)
	fx := makeFixture(t, "$OUTSIDE/secret.txt: TOP SECRET\n", "$OUTSIDE/ro/doc.txt: mounted\n", "$OUTSIDE/rw/")
	out := fx.outside
	e := fx.engine(schema.Config{
		Mounts: []schema.Mount{{Path: "docs", Dir: filepath.Join(out, "ro"), ReadOnly: true}, {Path: "work", Dir: filepath.Join(out, "rw")}},
		PostEdit: []schema.PostEditHook{sh("*.txt", `cat `+out+`/secret.txt; echo pwned > `+out+`/new.txt; echo pwned >> `+out+`/secret.txt; `+
			`cat `+out+`/ro/doc.txt; echo no > `+out+`/ro/doc.txt; echo inside > inside.txt; echo mount > `+out+`/rw/w.txt; echo ok`)},
	})
	res := mustCall(t, e, "write_file", map[string]any{"path": "a.txt", "content": "x\n"}, Hooks{}).(*schema.WriteFileResult)
	outText := res.PostEdit[0].Output
	if strings.Contains(outText, "TOP SECRET") || fx.read("$OUTSIDE/secret.txt") != "TOP SECRET\n" || fx.read("$OUTSIDE/new.txt") != "<missing>" {
		t.Errorf("the hook reached outside: output %q", outText)
	}
	if !strings.Contains(outText, "Permission denied") {
		t.Errorf("output %q; want the kernel's refusals", outText)
	}
	if !strings.Contains(outText, "mounted\n") || !strings.Contains(outText, "cannot create docs/doc.txt: Permission denied") || fx.read("$OUTSIDE/ro/doc.txt") != "mounted\n" {
		t.Errorf("read-only mount: output %q, content %q; want it read, not changed", outText, fx.read("$OUTSIDE/ro/doc.txt"))
	}
	if fx.read("inside.txt") != "inside\n" || fx.read("$OUTSIDE/rw/w.txt") != "mount\n" || !strings.HasSuffix(outText, "ok\n") {
		t.Errorf("inside the root the hook must work: %q", outText)
	}
	if s := e.Sandbox(); s.Hooks != "confined" {
		t.Errorf("Sandbox() = %+v; want hooks confined", s)
	}
}

// A hook's output names neither the root's nor a mount's host directory: both become
// root-relative, the root itself ".".
func TestPostEditOutputHasNoHostPath(t *testing.T) {
	needHookSandbox(t)
	fx := makeFixture(t, "vendor/", "$OUTSIDE/lib/m.txt: m\n")
	lib := filepath.Join(fx.outside, "lib")
	e := fx.engine(schema.Config{
		Mounts:   []schema.Mount{{Path: "vendor/lib", Dir: lib}},
		PostEdit: []schema.PostEditHook{sh("*.txt", `echo "error in $PWD/${1#./}:1"; pwd; echo "see `+fx.root+`2 and `+fx.root+`"; exit 1`)},
	})
	for _, c := range []struct{ path, want string }{
		{"a.txt", "error in a.txt:1\n.\nsee " + fx.root + "2 and .\n"},
		{"vendor/lib/b.txt", "error in vendor/lib/b.txt:1\nvendor/lib\nsee " + fx.root + "2 and .\n"},
	} {
		res := mustCall(t, e, "write_file", map[string]any{"path": c.path, "content": "x\n"}, Hooks{}).(*schema.WriteFileResult)
		if got := res.PostEdit[0].Output; got != c.want {
			t.Errorf("%s: output %q; want %q", c.path, got, c.want)
		}
		if strings.Contains(res.Text, lib) || strings.Contains(strings.ReplaceAll(res.Text, fx.root+"2", ""), fx.root) {
			t.Errorf("%s: text %q names a host directory", c.path, res.Text)
		}
	}
}
