//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// SIGTERM to fsbox serve while a post_edit hook runs kills the hook's whole process group (a
// background child included) before the process exits; the write itself has landed. The bounds
// are liveness ceilings, not speed assertions.
func TestServe_SIGTERMKillsPostEditHook(t *testing.T) {
	root := t.TempDir()
	conf := filepath.Join(t.TempDir(), "fsbox.json")
	hook := `{"post_edit":[{"path":"*.txt","cmd":["sh","-c","sleep 300 & echo $! > bg.pid; touch started; sleep 300"]}]}`
	if err := os.WriteFile(conf, []byte(hook), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, root, "--config", conf)
	fmt.Fprintln(s.in, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"a.txt","content":"x\n"}}}`)
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(root, "started")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the hook never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.exit:
	case <-time.After(10 * time.Second):
		t.Fatal("fsbox serve still running 10 s after SIGTERM")
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(b) != "x\n" {
		t.Errorf("a.txt = %q; want the write kept", b)
	}
	b, _ := os.ReadFile(filepath.Join(root, "bg.pid"))
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("bg.pid %q: %v", b, err)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return
		}
		if f := strings.Fields(string(st[strings.LastIndexByte(string(st), ')')+1:])); len(f) > 0 && (f[0] == "Z" || f[0] == "X") {
			return
		}
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the hook's background child %d survived SIGTERM to fsbox serve", pid)
		}
	}
}
