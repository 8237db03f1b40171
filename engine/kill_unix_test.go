//go:build unix

package engine

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fsbox/fsbox/schema"
)

// killChildEnv names the root a re-executed test binary writes into (see TestKillMidWrite).
const killChildEnv = "FSBOX_KILL_CHILD_ROOT"

// killRounds is how many writers TestKillMidWrite kills.
const killRounds = 12

// killFileBytes is the size of each version of the file the child writes: big enough that a
// kill often lands inside a write.
const killFileBytes = 8 << 20

// killContent is version v of the file: killFileBytes of one letter.
func killContent(v int) string {
	return strings.Repeat(string(rune('a'+v%26)), killFileBytes)
}

// TestKillMidWrite re-executes the test binary as a child that writes big files through the
// engine in a loop (announcing each write on stdout), SIGKILLs it at a random point of a random
// write, and checks the file is always entirely one version: never torn, never empty.
func TestKillMidWrite(t *testing.T) {
	if root := os.Getenv(killChildEnv); root != "" {
		killChild(root)
		return
	}
	if testing.Short() {
		t.Skip("spawns processes")
	}
	fx := makeFixture(t, "big.txt: "+killContent(0))
	for round := 0; round < killRounds; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestKillMidWrite$")
		cmd.Env = append(os.Environ(), killChildEnv+"="+fx.root)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Let the child get a random number of writes in, then kill it in the middle of the next
		// one: the line comes right before a write starts.
		lines := bufio.NewScanner(out)
		for n := rand.IntN(4) + 1; n > 0 && lines.Scan(); n-- {
		}
		// Busy-wait a random fraction of a write (not a sleep: nothing waits for anything).
		deadline := time.Now().Add(time.Duration(rand.IntN(8000)) * time.Microsecond)
		for time.Now().Before(deadline) {
		}
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		got, err := os.ReadFile(fx.abs("big.txt"))
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if len(got) != killFileBytes || bytes.Count(got, got[:1]) != len(got) {
			t.Fatalf("round %d: torn file: %d bytes, starts %q, ends %q", round, len(got), got[:min(8, len(got))], got[max(0, len(got)-8):])
		}
	}
	// Leftover temporaries are hidden (dot-named) and never the target.
	entries, _ := os.ReadDir(fx.root)
	for _, en := range entries {
		if en.Name() != "big.txt" && !strings.HasPrefix(en.Name(), ".fsbox-") {
			t.Errorf("unexpected entry %s", en.Name())
		}
	}
	// The next session's first write into the directory sweeps them all.
	left := len(tempsIn(t, fx.root))
	mustCall(t, fx.engine(schema.Config{}), "write_file", map[string]any{"path": "big.txt", "content": "small\n"}, Hooks{})
	if after, _ := os.ReadDir(fx.root); len(after) != 1 {
		t.Errorf("after a write in the directory: %d entries, want only big.txt", len(after))
	}
	t.Logf("%d kills left %d temporary files; one later write left %d", killRounds, left, len(tempsIn(t, fx.root)))
}

// killChild is the child of TestKillMidWrite: it writes versions of big.txt until killed. It
// calls the write_file handler directly (arguments already decoded), so nearly all of each call
// is the write itself and a kill lands inside it.
func killChild(root string) {
	e, err := New(schema.Config{RootDir: root}, Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	versions := []string{killContent(1), killContent(2)}
	c := &call{ctx: context.Background(), tool: schema.ToolWriteFile}
	for v := 0; ; v++ {
		args := &schema.WriteFileArgs{Path: "big.txt", Content: versions[v%2]}
		fmt.Println("writing", v)
		if _, err := e.writeFile(c, args); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
	}
}
