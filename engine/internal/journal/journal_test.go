package journal

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReopenAfterTornAppend: a journal killed mid-append (a torn last line) opens again with
// every whole entry and checkpoint; a second session on the directory is refused while the first
// holds it; a journal of another root is refused.
func TestReopenAfterTornAppend(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "j")
	j, err := Open(Options{Dir: dir, Root: "/r"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(Options{Dir: dir, Root: "/r"}); err != ErrBusy {
		t.Errorf("second session: %v, want ErrBusy", err)
	}
	cp, _ := j.Create("start")
	big, _ := j.Capture(bytes.NewReader(bytes.Repeat([]byte("x"), 10000)), 10000, 0o644)
	if big.Blob == "" {
		t.Fatal("a 10 KB before-image was not stored as a blob")
	}
	if _, err := j.Record(Entry{Group: 1, Path: "a", Before: big, After: State{Kind: Absent}}); err != nil {
		t.Fatal(err)
	}
	orphan, _ := j.Capture(bytes.NewReader(bytes.Repeat([]byte("o"), 10000)), 10000, 0o644) // never recorded
	j.Close()
	f, _ := os.OpenFile(filepath.Join(dir, indexName), os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"t":"e","e":{"seq":9,"p":"torn`)
	f.Close()
	j2, err := Open(Options{Dir: dir, Root: "/r"})
	if err != nil {
		t.Fatal(err)
	}
	defer j2.Close()
	ch := j2.Since(cp.Seq)
	if len(ch) != 1 || ch[0].Path != "a" || ch[0].Target.Blob != big.Blob {
		t.Fatalf("after reopening: %+v", ch)
	}
	if b, err := j2.Content(ch[0].Target); err != nil || len(b) != 10000 {
		t.Errorf("content: %d bytes, %v", len(b), err)
	}
	if _, err := os.Stat(filepath.Join(dir, blobDir, orphan.Blob)); err == nil {
		t.Error("a blob no entry refers to survived reopening")
	}
	// What is appended after the torn line is read again too.
	cp2, _ := j2.Create("after the crash")
	j2.Close()
	j3, err := Open(Options{Dir: dir, Root: "/r"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := j3.Lookup(cp2.ID); !ok {
		t.Error("a checkpoint made after a torn append was lost on reopening")
	}
	j3.Close()
	if _, err := Open(Options{Dir: dir, Root: "/other"}); err == nil || !strings.Contains(err.Error(), "another root") {
		t.Errorf("another root: %v", err)
	}
}

// TestAlteredBlobIsRefused: a blob changed on disk is not written back by a restore.
func TestAlteredBlobIsRefused(t *testing.T) {
	j, err := Open(Options{Root: "/r"})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	s, _ := j.Capture(bytes.NewReader(bytes.Repeat([]byte("y"), 9000)), 9000, 0o644)
	os.WriteFile(filepath.Join(j.Path(), blobDir, s.Blob), bytes.Repeat([]byte("z"), 9000), 0o600)
	if _, err := j.Content(s); err == nil {
		t.Error("an altered blob was accepted")
	}
}
