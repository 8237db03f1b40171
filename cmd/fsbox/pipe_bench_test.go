package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkServeTools drives the real binary (fsbox serve) over its stdin and stdout pipes, one
// tools/call round trip per iteration, for each tool on a small corpus, beside two floors: an
// unknown method (the server parses the request and writes an error reply; no engine work) and
// tools/list. No Python and no SDK are involved, so a regression in the per-call path shows here
// without the shared kit. It reports reply bytes and the server's resident memory after the run;
// it asserts nothing about time.
//
//	go test ./cmd/fsbox -run '^$' -bench ServeTools -benchtime 2000x
func BenchmarkServeTools(b *testing.B) {
	root := b.TempDir()
	line := "\tfunc helper(r *Reader) (int, bool) { return r.n + 1, true } // padding text\n"
	write := func(name, content string) {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	write("read/file.go", strings.Repeat(line, 15800/len(line)+1)[:15800])
	for i := range 238 {
		write(fmt.Sprintf("dir/entry%03d.go", i), "package p\n")
	}
	for d := range 12 {
		for f := range 15 {
			write(fmt.Sprintf("tree/pkg%02d/file%02d.go", d, f), "package p\n")
		}
	}
	var edit strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&edit, "line %04d of the file being edited\n", i)
	}
	write("edit/file.go", edit.String())

	s := startServeWith(b, root, `{"protocol_version":"1"}`,
		"--tools", "read_file,edit_file,list_directory,directory_tree,file_info,search_files,find_files,list_files,grep")
	defer s.close(b)
	calls := []struct{ name, method, params string }{
		{"floor/unknown-method", "no_such_method", `{}`},
		{"floor/tools-list", "tools/list", `{}`},
		{"file_info", "tools/call", `{"name":"file_info","arguments":{"path":"read/file.go"}}`},
		{"read_file/15.8KB", "tools/call", `{"name":"read_file","arguments":{"path":"read/file.go"}}`},
		{"list_directory/238", "tools/call", `{"name":"list_directory","arguments":{"path":"dir"}}`},
		{"directory_tree/192", "tools/call", `{"name":"directory_tree","arguments":{"path":"tree"}}`},
		{"search_files", "tools/call", `{"name":"search_files","arguments":{"pattern":"helper\\(r","path":"read"}}`},
		{"find_files", "tools/call", `{"name":"find_files","arguments":{"pattern":"**/file0*.go"}}`},
		{"list_files", "tools/call", `{"name":"list_files","arguments":{"path":"tree","glob":"file0*.go"}}`},
		{"grep/context2", "tools/call", `{"name":"grep","arguments":{"pattern":"return r.n","path":"read","context":2}}`},
		{"edit_file/1000-lines", "tools/call", ""},
	}
	id := 1
	for _, c := range calls {
		b.Run(c.name, func(b *testing.B) {
			var replyBytes int
			for i := 0; b.Loop(); i++ {
				id++
				params := c.params
				if c.name == "edit_file/1000-lines" {
					from, to := "line 0500 of", "line 0500 on"
					if i%2 == 1 {
						from, to = to, from
					}
					params = `{"name":"edit_file","arguments":{"path":"edit/file.go","old_text":"` + from + `","new_text":"` + to + `"}}`
				}
				replyBytes = s.call(b, `{"jsonrpc":"2.0","id":`+strconv.Itoa(id)+`,"method":"`+c.method+`","params":`+params+`}`, c.method == "no_such_method")
			}
			b.ReportMetric(float64(replyBytes), "reply-B")
		})
	}
	if rss, ok := vmRSS(s.cmd.Process.Pid); ok {
		b.Logf("server VmRSS after the run: %.1f MB", float64(rss)/1024)
	}
}

// call is roundTrip that returns the reply's size and may expect an error reply.
func (s *serveProc) call(b *testing.B, line string, wantError bool) int {
	if _, err := s.in.Write([]byte(line + "\n")); err != nil {
		b.Fatal(err)
	}
	reply, err := s.out.ReadString('\n')
	if err != nil || isErrorReply(reply) != wantError {
		b.Fatalf("reply %q: %v", reply, err)
	}
	return len(reply)
}

// vmRSS reads a process's resident set size in KB (Linux).
func vmRSS(pid int) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return n, err == nil
		}
	}
	return 0, false
}
