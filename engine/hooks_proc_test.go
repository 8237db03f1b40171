package engine

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

func runtimeGosched() { runtime.Gosched(); time.Sleep(time.Millisecond) }

// waitDead waits for pid to be gone or a zombie: SIGKILL is delivered asynchronously, so this
// polls, bounded by a generous ceiling that only a process that was never killed reaches.
func waitDead(t *testing.T, pid int) {
	t.Helper()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc to look the process up in")
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return
		}
		if f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:])); len(f) > 0 && (f[0] == "Z" || f[0] == "X") {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("process %d is still running: the hook's process group was not killed", pid)
}
