package main

// Per-call cost of the audit log (fsbox serve --audit), BenchmarkPipe's way: the real binary
// over pipes, each case with the log off, on, and on with --audit-sync, one after the other in
// the same run, so the differences are the log's:
//
//	go test ./cmd/fsbox -run '^$' -bench PipeAudit -benchtime 2000x -count 3
//
// It measures; it asserts nothing about time.

import (
	"bytes"
	"path/filepath"
	"testing"
)

func startPipeArgs(b *testing.B, root string, extra ...string) *pipeServer {
	b.Helper()
	args := append([]string{"serve", "--root", root, "--tools", "read_file,file_info,write_file,edit_file"}, extra...)
	return spawnPipe(b, `{"protocol_version":"1"}`, args...)
}

func BenchmarkPipeAudit(b *testing.B) {
	root := pipeCorpus(b)
	edit := func(i int) any {
		from, to := "// FSBENCH-MARKER-A", "// FSBENCH-MARKER-B"
		if i%2 == 1 {
			from, to = to, from
		}
		return map[string]any{"path": "scratch/edit_1000.go", "old_text": from, "new_text": to}
	}
	cases := []struct {
		name   string
		body   func(i int) string
		expect string
	}{
		{"file_info", func(int) string { return toolCall("file_info", map[string]any{"path": "src/fmt/doc.go"}) }, `doc.go`},
		{"read_file-15.8KB", func(int) string { return toolCall("read_file", map[string]any{"path": "src/fmt/doc.go"}) }, `Package fmt implements formatted I/O`},
		{"write_file-1KB", func(i int) string {
			return toolCall("write_file", map[string]any{"path": "scratch/audit_write.txt", "content": string(bytes.Repeat([]byte{'a' + byte(i%26)}, 1024))})
		}, `Wrote`},
		{"edit_file-1000", func(i int) string { return toolCall("edit_file", edit(i)) }, `Edited`},
	}
	modes := []struct {
		name  string
		flags func(dir string) []string
	}{
		{"off", func(string) []string { return nil }},
		{"on", func(dir string) []string { return []string{"--audit", filepath.Join(dir, "audit.jsonl")} }},
		{"on-sync", func(dir string) []string {
			return []string{"--audit", filepath.Join(dir, "audit.jsonl"), "--audit-sync"}
		}},
	}
	for _, c := range cases {
		for _, m := range modes {
			b.Run(c.name+"/audit-"+m.name, func(b *testing.B) {
				p := startPipeArgs(b, root, m.flags(b.TempDir())...)
				for i := 0; i < 10; i++ {
					p.roundTrip(b, c.body(i))
				}
				cpu0 := p.cpuTime()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					r := p.roundTrip(b, c.body(i))
					if i == 0 && (!bytes.Contains(r, []byte(c.expect)) || bytes.Contains(r, []byte(`"error"`))) {
						b.Fatalf("unexpected reply: %.300s", r)
					}
				}
				b.StopTimer()
				b.ReportMetric(float64((p.cpuTime()-cpu0).Microseconds())/float64(b.N), "srv-cpu-µs/op")
			})
		}
	}
}
