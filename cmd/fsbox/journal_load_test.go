package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// journalServer spawns `fsbox serve` on root with write_file and edit_file, the journal in jdir
// ("" for none) bounded by maxBytes (0 for the default), and initializes it.
func journalServer(tb testing.TB, root, jdir string, maxBytes int64) *pipeServer {
	tb.Helper()
	args := []string{"serve", "--root", root, "--tools", "write_file,edit_file,delete,read_file"}
	if jdir != "" {
		args = append(args, "--journal-dir", jdir)
	}
	params := `{"protocol_version":"1"}`
	if maxBytes > 0 {
		params = `{"protocol_version":"1","config":{"journal":{"max_bytes":` + strconv.FormatInt(maxBytes, 10) + `}}}`
	}
	return spawnPipe(tb, params, args...)
}

// dirBytes sums the sizes of the files below dir.
func dirBytes(dir string) int64 {
	var n int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

// TestServe_JournalBoundAndFlatRSS: a 200 MB file deleted and 10,000 small edits in one session
// keep the journal within journal.max_bytes and the server's resident memory flat (the
// before-image of the big file is streamed to the journal, never held).
func TestServe_JournalBoundAndFlatRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 200 MB and makes 10,000 calls")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("needs /proc to measure RSS")
	}
	base := t.TempDir()
	root, jdir := filepath.Join(base, "root"), filepath.Join(base, "journal")
	os.Mkdir(root, 0o755)
	big, err := os.Create(filepath.Join(root, "big.bin"))
	if err != nil {
		t.Fatal(err)
	}
	chunk := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	for i := 0; i < 200; i++ {
		big.Write(chunk)
	}
	big.Close()
	os.WriteFile(filepath.Join(root, "small.txt"), []byte("counter 0\n"), 0o644)
	const bound = 256 << 20
	p := journalServer(t, root, jdir, bound)
	p.roundTrip(t, `"method":"checkpoint/create","params":{"label":"start"}`)
	rss0 := p.rssMB(nil)
	if r := p.roundTrip(t, toolCall("delete", map[string]any{"path": "big.bin"})); bytes.Contains(r, []byte(`"error"`)) {
		t.Fatalf("delete: %.300s", r)
	}
	rssBig := p.rssMB(nil)
	for i := 0; i < 10000; i++ {
		r := p.roundTrip(t, toolCall("edit_file", map[string]any{"path": "small.txt", "old_text": fmt.Sprintf("counter %d\n", i), "new_text": fmt.Sprintf("counter %d\n", i+1)}))
		if i == 0 && bytes.Contains(r, []byte(`"error"`)) {
			t.Fatalf("edit: %.300s", r)
		}
	}
	rssEnd := p.rssMB(nil)
	held := dirBytes(jdir)
	t.Logf("RSS: %.1f MB at the start, %.1f MB after the 200 MB delete, %.1f MB after 10,000 edits; journal %d bytes (bound %d)", rss0, rssBig, rssEnd, held, bound)
	if held > bound {
		t.Errorf("journal holds %d bytes, over its bound %d", held, bound)
	}
	if rssBig > rss0+64 || rssEnd > rss0+64 {
		t.Errorf("resident memory grew: %.1f → %.1f → %.1f MB", rss0, rssBig, rssEnd)
	}
	// Everything since the checkpoint restores: the 200 MB file included.
	r := p.roundTrip(t, `"method":"checkpoint/restore","params":{"id":"cp-1"}`)
	if !bytes.Contains(r, []byte(`"complete":true`)) {
		t.Fatalf("restore: %.500s", r)
	}
	if fi, err := os.Stat(filepath.Join(root, "big.bin")); err != nil || fi.Size() != 200<<20 {
		t.Fatalf("big.bin not restored: %v", err)
	}
}

// BenchmarkPipeJournal is BenchmarkPipe's per-call cost of a small write_file with the journal
// off and on, in the same run (bench/README.md).
func BenchmarkPipeJournal(b *testing.B) {
	for _, on := range []bool{false, true} {
		name := "write_file-1KB/journal-off"
		if on {
			name = "write_file-1KB/journal-on"
		}
		b.Run(name, func(b *testing.B) {
			base := b.TempDir()
			root := filepath.Join(base, "root")
			os.Mkdir(root, 0o755)
			jdir := ""
			if on {
				jdir = filepath.Join(base, "journal")
			}
			p := journalServer(b, root, jdir, 0)
			if on {
				p.roundTrip(b, `"method":"checkpoint/create","params":{}`)
			}
			content := string(bytes.Repeat([]byte("x"), 1023)) + "\n"
			body := func(i int) string {
				return toolCall("write_file", map[string]any{"path": fmt.Sprintf("f%d.txt", i%64), "content": content[:1000] + strconv.Itoa(i)})
			}
			for i := 0; i < 10; i++ {
				p.roundTrip(b, body(i))
			}
			cpu0 := p.cpuTime()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if r := p.roundTrip(b, body(i)); i == 0 && bytes.Contains(r, []byte(`"error"`)) {
					b.Fatalf("write: %.300s", r)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64((p.cpuTime()-cpu0).Microseconds())/float64(b.N), "srv-cpu-µs/op")
			b.ReportMetric(p.rssMB(nil), "rss-MB")
		})
	}
}
