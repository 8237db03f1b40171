//go:build unix

package engine

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/fsbox/fsbox/engine/internal/commit"
	"github.com/fsbox/fsbox/schema"
)

// Environment of a re-executed test binary acting as one editing process of
// TestCrossProcessEditsNeverLost.
const (
	editWorkerRoot  = "FSBOX_EDIT_WORKER_ROOT"
	editWorkerID    = "FSBOX_EDIT_WORKER_ID"
	editWorkerLoops = "FSBOX_EDIT_WORKER_LOOPS"
)

// editWorkers and editLoops size the cross-process test: moderate, the machine is shared.
const (
	editWorkers = 4
	editLoops   = 100
)

// TestCrossProcessEditsNeverLost runs editWorkers separate processes, each with its own Engine on
// one root, that append unique lines to one file with read_file → edit_file(expected_hash),
// retrying on stale_hash. Every line an edit reported as written must be in the file at the end:
// the hash check and the rename are atomic against the other processes (rule 8 of the package
// doc), so no success is ever overwritten.
func TestCrossProcessEditsNeverLost(t *testing.T) {
	if root := os.Getenv(editWorkerRoot); root != "" {
		editWorker(root, os.Getenv(editWorkerID), os.Getenv(editWorkerLoops))
		return
	}
	if testing.Short() {
		t.Skip("spawns processes")
	}
	fx := makeFixture(t, "shared.txt: head\nEND\n")
	var (
		mu       sync.Mutex
		reported []string
		wg       sync.WaitGroup
	)
	for w := 0; w < editWorkers; w++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrossProcessEditsNeverLost$")
		cmd.Env = append(os.Environ(), editWorkerRoot+"="+fx.root, editWorkerID+"="+strconv.Itoa(w), editWorkerLoops+"="+strconv.Itoa(editLoops))
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			lines := bufio.NewScanner(out)
			for lines.Scan() {
				if id, ok := strings.CutPrefix(lines.Text(), "edited "); ok {
					mu.Lock()
					reported = append(reported, id)
					mu.Unlock()
				}
			}
			if err := cmd.Wait(); err != nil {
				t.Errorf("worker: %v\n%s", err, stderr.String())
			}
		}()
	}
	wg.Wait()
	got := fx.read("shared.txt")
	present := map[string]bool{}
	for _, l := range strings.Split(got, "\n") {
		present[l] = true
	}
	lost := 0
	for _, id := range reported {
		if !present[id] {
			lost++
		}
	}
	if lost > 0 {
		t.Errorf("%d of %d edits reported as written are not in the file", lost, len(reported))
	}
	if len(reported) != editWorkers*editLoops {
		t.Errorf("%d edits reported, want %d", len(reported), editWorkers*editLoops)
	}
	t.Logf("%d processes × %d edits: %d lost", editWorkers, editLoops, lost)
}

// editWorker is one process of TestCrossProcessEditsNeverLost: loops times, it reads the file's
// hash and inserts its own unique line before END with that hash, retrying on stale_hash, and
// prints "edited <line>" after each edit that reported success.
func editWorker(root, id, loopsArg string) {
	e, err := New(schema.Config{RootDir: root}, Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	loops, _ := strconv.Atoi(loopsArg)
	ctx := context.Background()
	for k := 0; k < loops; k++ {
		line := fmt.Sprintf("w%s-%d", id, k)
		for {
			res, err := e.Call(ctx, schema.ToolReadFile, json.RawMessage(`{"path":"shared.txt"}`), Hooks{})
			if err != nil {
				fmt.Fprintln(os.Stderr, "read:", err)
				os.Exit(3)
			}
			args, _ := json.Marshal(map[string]any{
				"path": "shared.txt", "old_text": "END\n", "new_text": line + "\nEND\n",
				"expected_hash": res.(*schema.ReadFileResult).Hash,
			})
			_, err = e.Call(ctx, schema.ToolEditFile, args, Hooks{})
			var ferr *Error
			if errors.As(err, &ferr) && (ferr.Kind == schema.KindStaleHash || ferr.Kind == schema.KindChangedDuringRequest) {
				continue
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, "edit:", err)
				os.Exit(3)
			}
			fmt.Println("edited", line)
			break
		}
	}
}

// TestLockWaitHonoursCancellation cancels an edit while it waits for the directory lock another
// process holds (paused between its temporary write and its rename): the edit returns at once as
// cancelled, changes nothing, and the other writer still completes.
func TestLockWaitHonoursCancellation(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	fx := makeFixture(t, "sub/f.txt: old\n", "sub/g.txt: g\n")
	w := startPausedWriter(t, fx.root)
	e := fx.engine(schema.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	commit.TestHookCommit = func(stage string) {
		if stage == "lock-wait" {
			cancel()
		}
	}
	defer func() { commit.TestHookCommit = nil }()
	_, err := e.Call(ctx, schema.ToolEditFile, json.RawMessage(`{"path":"sub/g.txt","old_text":"g","new_text":"G"}`), Hooks{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("edit while another process holds the lock, cancelled: %v; want cancelled", err)
	}
	if fx.read("sub/g.txt") != "g\n" {
		t.Errorf("g.txt = %q", fx.read("sub/g.txt"))
	}
	w.stdin.Write([]byte("go\n"))
	if !w.out.Scan() || w.out.Text() != "done" {
		t.Fatalf("the resumed writer failed: %q", w.out.Text())
	}
	// The abandoned wait releases its lock once it gets it: the directory can be written again.
	commit.TestHookCommit = nil
	mustCall(t, e, "edit_file", map[string]any{"path": "sub/g.txt", "old_text": "g", "new_text": "G"}, Hooks{})
	if fx.read("sub/f.txt") != "from the child\n" || fx.read("sub/g.txt") != "G\n" {
		t.Errorf("f.txt = %q, g.txt = %q", fx.read("sub/f.txt"), fx.read("sub/g.txt"))
	}
}
