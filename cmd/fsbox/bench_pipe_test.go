package main

// Per-call cost of the real binary over pipes, with a Go client (no Python in the loop), so a
// regression on a hot path shows up without the shared bench kit:
//
//	go test ./cmd/fsbox -run '^$' -bench Pipe -benchtime 2000x
//	FSBOX_BIN=/tmp/fsbox-before go test ./cmd/fsbox -run '^$' -bench Pipe   # another build
//
// srv-cpu-µs/op is the server's user + system CPU per call (from /proc), steadier than ns/op on a
// shared machine.
//
// ns/op is the round trip of one call, from writing the request line to reading the whole reply
// line. Floors: "floor-tiny" is an unknown method (fsbox has no ping; the -32601 reply is the
// least the dispatcher can do, about 90 bytes each way); "floor-15.8KB-in" the same with 15.8 KB
// of params, so read_file's reply size crosses the pipe and the JSON parser once (inbound rather
// than outbound; the kit's echo server gives the outbound floor). Spawn and RSS are reported as
// metrics: init-ms (spawn to the initialize reply) and rss-MB (VmRSS after the calls).
//
// The "-text" cases open the session with capabilities.result_shape "text": the reply carries only
// the text, so the difference to the case without the suffix is what encoding the typed fields
// costs the server (and what parsing them would cost a client that forwards only text).
//
// It measures; it asserts nothing about time. It needs $(go env GOROOT)/src (copied, read only,
// into a temporary root) and skips without it.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// pipeBin is the binary benchmarked: $FSBOX_BIN, or the one TestMain built.
func pipeBin() string {
	if b := os.Getenv("FSBOX_BIN"); b != "" {
		return b
	}
	return fsboxBin
}

// pipeCorpus copies the parts of GOROOT/src the calls use into a temporary root once.
var pipeCorpusDir string

func pipeCorpus(b *testing.B) string {
	b.Helper()
	if pipeCorpusDir != "" {
		return pipeCorpusDir
	}
	src := filepath.Join(runtime.GOROOT(), "src")
	if _, err := os.Stat(filepath.Join(src, "net", "http", "server.go")); err != nil {
		b.Skipf("no Go source tree at %s: %v", src, err)
	}
	dir, err := os.MkdirTemp("", "fsbox-pipe-bench")
	if err != nil {
		b.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "src", "fmt"), 0o755); err != nil {
		b.Fatal(err)
	}
	for _, c := range [][]string{
		{"cp", "-a", filepath.Join(src, "net"), filepath.Join(dir, "src", "net")},
		{"cp", "-a", filepath.Join(src, "fmt", "doc.go"), filepath.Join(dir, "src", "fmt", "doc.go")},
	} {
		if out, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
			b.Fatalf("%v: %v\n%s", c, err, out)
		}
	}
	// The 1000-line file of the kit's edit_1000: lines 1-500 of server.go, the marker, 501-999.
	lines := strings.SplitAfter(readString(b, filepath.Join(src, "net", "http", "server.go")), "\n")
	var e strings.Builder
	for i := 0; i < 999 && i < len(lines); i++ {
		if i == 500 {
			e.WriteString("// FSBENCH-MARKER-A\n")
		}
		e.WriteString(lines[i])
	}
	if err := os.MkdirAll(filepath.Join(dir, "scratch"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "scratch", "edit_1000.go"), []byte(e.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	pipeCorpusDir = dir
	return dir
}

func readString(b *testing.B, path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return string(data)
}

// pipeServer is one `fsbox serve` process driven line by line.
type pipeServer struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	id  int
}

// startPipe spawns and initializes a server; shape, when not "", is sent as
// capabilities.result_shape.
func startPipe(b *testing.B, root, shape string) (*pipeServer, time.Duration) {
	b.Helper()
	start := time.Now()
	params := `{"protocol_version":"1"}`
	if shape != "" {
		params = `{"protocol_version":"1","capabilities":{"result_shape":"` + shape + `"}}`
	}
	p := spawnPipe(b, params, "serve", "--root", root, "--tools", "read_file,file_info,list_directory,directory_tree,edit_file,search_files,find_files,apply_patch")
	return p, time.Since(start)
}

// spawnPipe starts `fsbox args...` (stopped when the test ends) and answers its initialize with
// params, the initialize params object as JSON.
func spawnPipe(tb testing.TB, params string, args ...string) *pipeServer {
	tb.Helper()
	cmd := exec.Command(pipeBin(), args...)
	in, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	p := &pipeServer{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	tb.Cleanup(p.stop)
	if r := p.roundTrip(tb, `"method":"initialize","params":`+params); !bytes.Contains(r, []byte(`"result":{"protocol_version"`)) {
		tb.Fatalf("initialize: %.300s", r)
	}
	return p
}

func (p *pipeServer) stop() {
	p.in.Close()
	done := make(chan struct{})
	go func() { p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		p.cmd.Process.Kill()
		<-done
	}
}

// roundTrip sends one request (the members after the id) and returns the reply line, failing
// on a JSON-RPC error unless the method is unknown on purpose.
func (p *pipeServer) roundTrip(tb testing.TB, body string) []byte {
	p.id++
	line := `{"jsonrpc":"2.0","id":` + strconv.Itoa(p.id) + `,` + body + "}\n"
	if _, err := io.WriteString(p.in, line); err != nil {
		tb.Fatal(err)
	}
	reply, err := p.out.ReadBytes('\n')
	if err != nil {
		tb.Fatalf("reading reply to %.200s: %v", line, err)
	}
	return reply
}

func (p *pipeServer) rssMB(b *testing.B) float64 {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(status), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}

// cpuTime is the server process's user + system CPU time so far (from /proc; 0 elsewhere):
// per call, it moves less than wall time when other work shares the machine.
func (p *pipeServer) cpuTime() time.Duration {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	// Fields after the command name, which is in parentheses and may hold spaces.
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * (time.Second / 100) // USER_HZ, 100 on Linux
}

func toolCall(name string, args any) string {
	a, _ := json.Marshal(args)
	return `"method":"tools/call","params":{"name":"` + name + `","arguments":` + string(a) + `}`
}

func BenchmarkPipe(b *testing.B) {
	root := pipeCorpus(b)
	edit := func(i int) any {
		from, to := "// FSBENCH-MARKER-A", "// FSBENCH-MARKER-B"
		if i%2 == 1 {
			from, to = to, from
		}
		return map[string]any{"path": "scratch/edit_1000.go", "old_text": from, "new_text": to}
	}
	// The same change as edit_file's, as the Responses API's apply_patch operation sends it.
	patch := func(i int) any {
		from, to := "// FSBENCH-MARKER-A", "// FSBENCH-MARKER-B"
		if i%2 == 1 {
			from, to = to, from
		}
		return map[string]any{"operation": map[string]any{"type": "update_file", "path": "scratch/edit_1000.go", "diff": "@@\n-" + from + "\n+" + to + "\n"}}
	}
	cases := []struct {
		name   string
		body   func(i int) string
		expect string // in every reply
		shape  string // capabilities.result_shape; "" sends none
	}{
		{"floor-tiny", func(int) string { return `"method":"no_such_method"` }, `-32601`, ""},
		{"file_info", func(int) string { return toolCall("file_info", map[string]any{"path": "src/fmt/doc.go"}) }, `doc.go`, ""},
		{"read_file-15.8KB", func(int) string { return toolCall("read_file", map[string]any{"path": "src/fmt/doc.go"}) }, `Package fmt implements formatted I/O`, ""},
		{"read_file-15.8KB-text", func(int) string { return toolCall("read_file", map[string]any{"path": "src/fmt/doc.go"}) }, `Package fmt implements formatted I/O`, "text"},
		{"list_directory-238", func(int) string { return toolCall("list_directory", map[string]any{"path": "src/net"}) }, `http`, ""},
		{"list_directory-238-text", func(int) string { return toolCall("list_directory", map[string]any{"path": "src/net"}) }, `http`, "text"},
		{"directory_tree-http", func(int) string { return toolCall("directory_tree", map[string]any{"path": "src/net/http"}) }, `server.go`, ""},
		{"edit_file-1000", func(i int) string { return toolCall("edit_file", edit(i)) }, `Edited`, ""},
		{"apply_patch-1000", func(i int) string { return toolCall("apply_patch", patch(i)) }, `Success`, ""},
		{"search_files-net", func(int) string {
			return toolCall("search_files", map[string]any{"path": "src/net", "pattern": `func \(\w+ \*Resolver\)`})
		}, `src/net/`, ""},
		{"find_files-net", func(int) string {
			return toolCall("find_files", map[string]any{"path": "src/net", "pattern": "**/*_test.go"})
		}, `_test.go`, ""},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			p, _ := startPipe(b, root, c.shape)
			for i := 0; i < 10; i++ { // warm up: page cache, first-call allocations
				p.roundTrip(b, c.body(i))
			}
			var bytesOut int
			cpu0 := p.cpuTime()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r := p.roundTrip(b, c.body(i))
				bytesOut = len(r)
				if i == 0 && (!bytes.Contains(r, []byte(c.expect)) || (c.expect != `-32601` && bytes.Contains(r, []byte(`"error"`)))) {
					b.Fatalf("unexpected reply: %.300s", r)
				}
				if i == 0 && c.shape == "text" && (!bytes.Contains(r, []byte(`"result":{"text":`)) || !bytes.HasSuffix(r, []byte("\"}}\n"))) {
					b.Fatalf("shape text: the reply is not {text}: %.300s", r)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64((p.cpuTime()-cpu0).Microseconds())/float64(b.N), "srv-cpu-µs/op")
			b.ReportMetric(float64(bytesOut), "resp-B")
			b.ReportMetric(p.rssMB(b), "rss-MB")
		})
	}
	// The transport floor at read_file's reply size: an echo of the same number of bytes. fsbox
	// has no echo method, so this sends a request whose params carry 15.8 KB and gets the small
	// -32601 back: the bytes cross the pipe once and are parsed, as a read_file reply's are.
	b.Run("floor-15.8KB-in", func(b *testing.B) {
		p, _ := startPipe(b, root, "")
		pad := strings.Repeat("x", 15827)
		body := `"method":"no_such_method","params":{"pad":"` + pad + `"}`
		for i := 0; i < 10; i++ {
			p.roundTrip(b, body)
		}
		cpu0 := p.cpuTime()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			p.roundTrip(b, body)
		}
		b.StopTimer()
		b.ReportMetric(float64((p.cpuTime()-cpu0).Microseconds())/float64(b.N), "srv-cpu-µs/op")
	})
	b.Run("spawn-initialize", func(b *testing.B) {
		var total time.Duration
		var rss float64
		for i := 0; i < b.N; i++ {
			p, d := startPipe(b, root, "")
			total += d
			rss = p.rssMB(b)
			p.stop()
		}
		b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "init-ms")
		b.ReportMetric(rss, "rss-MB")
	})
	b.Run("idle-rss", func(b *testing.B) {
		p, _ := startPipe(b, root, "")
		for i := 0; i < b.N; i++ {
			p.roundTrip(b, toolCall("read_file", map[string]any{"path": "src/fmt/doc.go"}))
			p.roundTrip(b, toolCall("list_directory", map[string]any{"path": "src/net"}))
		}
		b.StopTimer()
		time.Sleep(1500 * time.Millisecond) // idle: past fsbox serve's idle release (1 s)
		b.ReportMetric(p.rssMB(b), "rss-MB")
	})
}
