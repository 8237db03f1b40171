//go:build linux

package main

import (
	"bufio"
	"encoding/json"
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

// waitFile waits for name to exist: a liveness ceiling, not a speed assertion.
func waitFile(t *testing.T, name string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(name); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never appeared", name)
		}
	}
}

// pidGone reports whether pid has exited (gone, or a zombie no one reaped).
func pidGone(pid int) bool {
	st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	f := strings.Fields(string(st[strings.LastIndexByte(string(st), ')')+1:]))
	return len(f) > 0 && (f[0] == "Z" || f[0] == "X")
}

// SIGKILL to fsbox serve, which nothing can catch, while a slow post_edit hook runs: no hook
// process survives it, neither the hook nor a child it put in the background.
func TestServe_SIGKILLKillsPostEditHook(t *testing.T) {
	root := t.TempDir()
	conf := filepath.Join(t.TempDir(), "fsbox.json")
	hook := `{"post_edit":[{"path":"*.txt","cmd":["sh","-c","sleep 300 & echo $! > bg.pid; echo $$ > fg.pid; touch started; sleep 300"]}]}`
	if err := os.WriteFile(conf, []byte(hook), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, root, "--config", conf)
	fmt.Fprintln(s.in, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"a.txt","content":"x\n"}}}`)
	waitFile(t, filepath.Join(root, "started"))
	var pids []int
	for _, f := range []string{"fg.pid", "bg.pid"} {
		b, _ := os.ReadFile(filepath.Join(root, f))
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			t.Fatalf("%s %q: %v", f, b, err)
		}
		pids = append(pids, pid)
	}
	if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-s.exit
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		alive := 0
		for _, pid := range pids {
			if !pidGone(pid) {
				alive++
			}
		}
		if alive == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, pid := range pids {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Fatalf("%d of the hook's processes %v survived SIGKILL to fsbox serve", alive, pids)
		}
	}
}

// The attack on the real binary: write_file sub/x.go starts a slow formatter (a script
// that waits, prints the file and rewrites it); meanwhile the model moves sub away and the link
// outlink, to an outside directory holding x.go, into its place. The outside file is neither
// shown to the model nor changed.
func TestServe_PostEditHookCannotFollowSwappedDirectory(t *testing.T) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, "sub"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	const secret = "package secret // OUTSIDE SECRET\n"
	if err := os.WriteFile(filepath.Join(outside, "x.go"), []byte(secret), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "outlink")); err != nil {
		t.Fatal(err)
	}
	tools := filepath.Join(base, "tools")
	os.Mkdir(tools, 0o755)
	formatter := filepath.Join(tools, "slowfmt")
	script := "#!/bin/sh\ntouch started\nwhile [ ! -e go ]; do sleep 0.01; done\ncat \"$1\"\nprintf 'formatted\\n' > \"$1\"\n"
	if err := os.WriteFile(formatter, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(base, "fsbox.json")
	cfg := fmt.Sprintf(`{"tools":["read_file","write_file","move_file"],"post_edit":[{"path":"*.go","cmd":[%q,"${file}"],"timeout":60}]}`, formatter)
	if err := os.WriteFile(conf, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, root, "--config", conf)
	replies := make(chan map[string]json.RawMessage, 8)
	go func() {
		sc := bufio.NewScanner(s.out)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var m map[string]json.RawMessage
			json.Unmarshal(sc.Bytes(), &m)
			replies <- m
		}
		close(replies)
	}()
	reply := func(id string) map[string]json.RawMessage {
		t.Helper()
		timeout := time.After(30 * time.Second)
		for {
			select {
			case m, ok := <-replies:
				if !ok {
					t.Fatalf("fsbox serve ended before answering %s", id)
				}
				if string(m["id"]) == id {
					return m
				}
			case <-timeout:
				t.Fatalf("no reply to %s", id)
			}
		}
	}
	if m := reply(`"init"`); m["error"] != nil {
		t.Fatalf("initialize: %s", m["error"])
	}
	fmt.Fprintln(s.in, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"sub/x.go","content":"package x\n"}}}`)
	waitFile(t, filepath.Join(root, "started"))
	fmt.Fprintln(s.in, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"move_file","arguments":{"source":"sub","destination":"subold"}}}`)
	if m := reply("2"); m["error"] != nil {
		t.Fatalf("move sub: %s", m["error"])
	}
	fmt.Fprintln(s.in, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"move_file","arguments":{"source":"outlink","destination":"sub"}}}`)
	if m := reply("3"); m["error"] != nil {
		t.Fatalf("move outlink: %s", m["error"])
	}
	if err := os.WriteFile(filepath.Join(root, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	m := reply("1")
	if strings.Contains(string(m["result"])+string(m["error"]), "OUTSIDE SECRET") {
		t.Errorf("the outside file reached the model: %s", m["result"])
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "x.go")); string(b) != secret {
		t.Errorf("the outside file was changed to %q", b)
	}
	if strings.Contains(string(m["result"]), root) || strings.Contains(string(m["result"]), outside) {
		t.Errorf("the reply names the root's or the outside's host directory: %s", m["result"])
	}
}
