//go:build unix

package audit

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

type line struct {
	Seq    uint64 `json:"seq"`
	Writer int    `json:"writer"`
	N      int    `json:"n"`
	Pad    string `json:"pad"`
}

func readLines(t *testing.T, path string) []line {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []line
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s: torn or invalid line %q: %v", path, sc.Text(), err)
		}
		out = append(out, l)
	}
	return out
}

func rest(writer, n int, pad int) []byte {
	return fmt.Appendf(nil, `"writer":%d,"n":%d,"pad":%q}`, writer, n, strings.Repeat("x", pad))
}

// TestConcurrentAppendsAreNumberedInFileOrder: many goroutines append at once; every line is
// whole and the sequence numbers run 1..N in the order of the file.
func TestConcurrentAppendsAreNumberedInFileOrder(t *testing.T) {
	p := filepath.Join(t.TempDir(), "audit.log")
	w, err := Open(Options{Path: p})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				if _, err := w.Append(rest(g, i, 100)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	lines := readLines(t, p)
	if len(lines) != 1600 {
		t.Fatalf("%d lines, want 1600", len(lines))
	}
	for i, l := range lines {
		if l.Seq != uint64(i+1) {
			t.Fatalf("line %d has seq %d", i+1, l.Seq)
		}
	}
}

// TestTwoWritersOfOneFileNeverTearALine: two Writers on one file (as two processes would be)
// append concurrently, lines of 3 KiB: each line is one write(2) on an O_APPEND descriptor, so
// no line is ever split by the other writer's.
func TestTwoWritersOfOneFileNeverTearALine(t *testing.T) {
	p := filepath.Join(t.TempDir(), "audit.log")
	var ws []*Writer
	for range 2 {
		w, err := Open(Options{Path: p})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		ws = append(ws, w)
	}
	var wg sync.WaitGroup
	for g, w := range ws {
		wg.Go(func() {
			for i := range 400 {
				if _, err := w.Append(rest(g, i, 3000)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if n := len(readLines(t, p)); n != 800 {
		t.Fatalf("%d lines, want 800", n)
	}
}

// TestRotateBySize: the log rotates before a line would pass MaxBytes, FILE.1 is the newest
// rotated file, only Keep are kept, no file passes the bound, and the sequence runs on.
func TestRotateBySize(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "audit.log")
	const maxBytes = 1000
	w, err := Open(Options{Path: p, MaxBytes: maxBytes, Keep: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for i := range 100 {
		if _, err := w.Append(rest(0, i, 50)); err != nil {
			t.Fatal(err)
		}
	}
	names, _ := filepath.Glob(p + "*")
	if len(names) != 3 {
		t.Fatalf("files %v, want the log and 2 rotated", names)
	}
	var seqs []uint64
	for _, name := range []string{p + ".2", p + ".1", p} {
		fi, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > maxBytes {
			t.Errorf("%s has %d bytes, more than %d", name, fi.Size(), maxBytes)
		}
		for _, l := range readLines(t, name) {
			seqs = append(seqs, l.Seq)
		}
	}
	if seqs[len(seqs)-1] != 100 {
		t.Fatalf("the newest line is seq %d, want 100", seqs[len(seqs)-1])
	}
	for i := 1; i < len(seqs); i++ {
		if seqs[i] != seqs[i-1]+1 {
			t.Fatalf("sequence breaks across rotated files: %v", seqs)
		}
	}
	if seqs[0] == 1 {
		t.Fatal("nothing was dropped: Keep is not honoured")
	}
}

// TestOpenRefusesWhatIsNotThePlainFile: a symlink, a FIFO or a file with a second hard link at
// the name is refused, never written through.
func TestOpenRefusesWhatIsNotThePlainFile(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	os.WriteFile(target, nil, 0o600)
	link := filepath.Join(dir, "link.log")
	os.Symlink(target, link)
	fifo := filepath.Join(dir, "fifo.log")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "hard.log")
	os.WriteFile(hard, nil, 0o600)
	os.Link(hard, filepath.Join(dir, "second-name"))
	for _, p := range []string{link, fifo, hard} {
		if w, err := Open(Options{Path: p}); err == nil {
			w.Close()
			t.Errorf("%s was accepted as the audit log", filepath.Base(p))
		}
	}
	if b, _ := os.ReadFile(target); len(b) != 0 {
		t.Error("written through the symlink")
	}
}

// TestAFailedWriteLatches: once a line cannot be written (the reader of a pipe went away), every
// later Append fails too, so nothing is logged after a gap.
func TestAFailedWriteLatches(t *testing.T) {
	r, wf, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	w, err := Open(Options{File: wf})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Append(rest(0, 0, 1)); err != nil {
		t.Fatal(err)
	}
	r.Close()
	if _, err := w.Append(rest(0, 1, 1)); err == nil {
		t.Fatal("a write to a pipe nobody reads succeeded")
	}
	// A new reader would take lines again; the writer must not.
	if _, err := w.Append(rest(0, 2, 1)); err == nil || w.Err() == nil {
		t.Fatal("the failure did not latch")
	}
}

// TestRotationRefusesARenamedLog: a log renamed away by someone else is not rotated (its name
// may now be anything); the failure latches.
func TestRotationRefusesARenamedLog(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "audit.log")
	w, err := Open(Options{Path: p, MaxBytes: 200, Keep: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Append(rest(0, 0, 100)); err != nil {
		t.Fatal(err)
	}
	os.Rename(p, filepath.Join(dir, "elsewhere"))
	os.WriteFile(p, []byte("planted\n"), 0o600)
	if _, err := w.Append(rest(0, 1, 150)); err == nil {
		t.Fatal("rotated a log that was replaced")
	}
	if b, _ := os.ReadFile(p); string(b) != "planted\n" {
		t.Fatalf("the planted file was touched: %q", b)
	}
	if _, err := os.Stat(p + ".1"); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the planted file was rotated")
	}
}

// TestAdoptedDescriptorMustAppend: a host descriptor of a regular file not opened O_APPEND is
// refused (its writes would land at an offset, not at the end).
func TestAdoptedDescriptorMustAppend(t *testing.T) {
	f, err := os.OpenFile(filepath.Join(t.TempDir(), "a.log"), os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if w, err := Open(Options{File: f}); err == nil {
		w.Close()
		t.Fatal("a descriptor without O_APPEND was accepted")
	}
}
