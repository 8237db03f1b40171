package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// serveBin is the binary the serve tests attack: fsboxBin, or $FSBOX_TEST_BIN to run the same
// attack against another build (an older one, to see it fail).
func serveBin() string {
	if b := os.Getenv("FSBOX_TEST_BIN"); b != "" {
		return b
	}
	return fsboxBin
}

// served is a running `fsbox serve` with its pipes.
type served struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *os.File      // read end of stdout; nothing reads it until the test does
	exit chan struct{} // closed once the process has exited
	err  error         // cmd.Wait's result, once exit is closed
}

func startServe(t *testing.T, root string, args ...string) *served {
	t.Helper()
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(serveBin(), append([]string{"serve", "--root", root}, args...)...)
	cmd.Stdout = outW
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	outW.Close()
	s := &served{cmd: cmd, in: in, out: outR, exit: make(chan struct{})}
	go func() { s.err = cmd.Wait(); close(s.exit) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-s.exit
		outR.Close()
	})
	fmt.Fprintln(in, `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocol_version":"1"}}`)
	return s
}

// rssBytes is the resident set of pid, from /proc/PID/status.
func rssBytes(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatalf("reading the server's RSS: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmRSS in /proc status")
	return 0
}

// TestServe_StalledClientMemoryFlat attacks the real binary with a client that sends thousands
// of read_file calls of a 1 MB file and reads none of the replies. The server must stop reading
// (the client's writes block), with its resident memory below 200 MB and no longer growing; once
// the client reads again, every call is answered exactly once. Without backpressure the server
// reads every request and holds every reply: it passes the bound within seconds (the attack
// stops there rather than eat the machine).
func TestServe_StalledClientMemoryFlat(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("needs /proc to measure RSS")
	}
	const (
		n     = 3000
		bound = 200 << 20
	)
	root := t.TempDir()
	line := strings.Repeat("0123456789abcdef", 63) + "\n" // 1 KiB lines, 1 MiB in all
	if err := os.WriteFile(filepath.Join(root, "big.txt"), []byte(strings.Repeat(line, 1024)), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, root)
	pid := s.cmd.Process.Pid
	var sent atomic.Int64
	go func() {
		for i := range n {
			_, err := fmt.Fprintf(s.in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"big.txt","limit":100000}}}`+"\n", i)
			if err != nil {
				return
			}
			sent.Add(1)
		}
	}()

	// Sample until neither the requests read nor the memory move any more. The pacing only
	// spaces the samples; what is asserted is the bound and that the client is held up.
	var peak, last int64
	for quiet, deadline := 0, time.Now().Add(2*time.Minute); quiet < 20; {
		if time.Now().After(deadline) {
			t.Fatal("the server never settled")
		}
		time.Sleep(50 * time.Millisecond)
		rss := rssBytes(t, pid)
		peak = max(peak, rss)
		if rss > bound {
			t.Fatalf("server RSS %d MB after %d requests sent while the client read nothing; want below %d MB",
				rss>>20, sent.Load(), bound>>20)
		}
		if sent.Load() == n {
			t.Fatalf("the server read all %d requests while the client read nothing; want it to stop reading", n)
		}
		now := sent.Load()<<32 + rss>>20
		if now == last {
			quiet++
		} else {
			last, quiet = now, 0
		}
	}
	t.Logf("stalled: %d of %d requests sent, server RSS %d MB (peak %d MB)", sent.Load(), n, rssBytes(t, pid)>>20, peak>>20)

	seen := make(map[string]int, n)
	sc := bufio.NewScanner(s.out)
	sc.Buffer(nil, 64<<20)
	for len(seen) < n+1 && sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Result *struct {
				IsError bool `json:"is_error"`
			} `json:"result"`
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m.Result == nil || m.Result.IsError {
			t.Fatalf("unexpected reply %.200s (%v)", sc.Text(), err)
		}
		seen[string(m.ID)]++
		if seen[string(m.ID)] > 1 {
			t.Fatalf("id %s answered twice", m.ID)
		}
	}
	for i := range n {
		if seen[strconv.Itoa(i)] != 1 {
			t.Fatalf("request %d answered %d times; want once", i, seen[strconv.Itoa(i)])
		}
	}
	s.in.Close()
	<-s.exit
	if s.err != nil {
		t.Errorf("fsbox serve after EOF: %v; want exit 0", s.err)
	}
}

// TestServe_SIGTERMEndsProcess pins that SIGTERM ends `fsbox serve` whatever is running: here a
// client that stopped reading, so that replies cannot be written, while a deep create_directory
// and a stream of reads are in flight. The process must be gone well within 5 s (a liveness
// bound, not a speed one: without a handler that exits after a grace, it stays until the client
// reads, that is for ever). Then SIGINT, the same way.
func TestServe_SIGTERMEndsProcess(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			root := t.TempDir()
			if err := os.WriteFile(filepath.Join(root, "f.txt"), []byte(strings.Repeat("x", 200<<10)), 0o644); err != nil {
				t.Fatal(err)
			}
			s := startServe(t, root)
			deep := strings.TrimSuffix(strings.Repeat("d/", 1500), "/")
			fmt.Fprintf(s.in, `{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{"name":"create_directory","arguments":{"path":%q}}}`+"\n", deep)
			var sent atomic.Int64
			go func() {
				for i := 0; ; i++ {
					if _, err := fmt.Fprintf(s.in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"f.txt"}}}`+"\n", i); err != nil {
						return
					}
					sent.Add(1)
				}
			}()
			for sent.Load() < 50 { // the server is busy and its stdout full
				time.Sleep(10 * time.Millisecond)
			}
			time.Sleep(200 * time.Millisecond)
			if err := s.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			select {
			case <-s.exit:
			case <-time.After(5 * time.Second):
				t.Fatalf("fsbox serve still running 5 s after %v", sig)
			}
		})
	}
}

// TestServe_MaxInflightFlag pins the flag's validation: a negative bound is a usage error.
func TestServe_MaxInflightFlag(t *testing.T) {
	r := fsbox(t, "", "serve", "--root", t.TempDir(), "--max-inflight", "-1")
	if r.code != 2 || !strings.Contains(r.stderr, "--max-inflight") {
		t.Errorf("exit %d, stderr %q; want 2 naming --max-inflight", r.code, r.stderr)
	}
	r = fsbox(t, "", "serve", "--root", t.TempDir(), "--max-inflight", "1")
	if r.code != 0 {
		t.Errorf("--max-inflight 1 at EOF: exit %d, stderr %q; want 0", r.code, r.stderr)
	}
}
