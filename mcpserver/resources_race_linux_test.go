package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// A resource read races a directory swapped, atomically (RENAME_EXCHANGE), between the real
// directory and a symlink to the outside: the bytes of the outside file never reach the client,
// because the read is the engine's read_file, which holds containment at I/O time.
func TestFileResourceSymlinkSwapRace(t *testing.T) {
	f := newFixture(t)
	outside := filepath.Join(filepath.Dir(f.root), "outside")
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(f.root, "dir"), 0o755))
	must(os.WriteFile(filepath.Join(f.root, "dir", "f.txt"), []byte("inside\n"), 0o644))
	must(os.MkdirAll(outside, 0o755))
	must(os.WriteFile(filepath.Join(outside, "f.txt"), []byte("OUTSIDE canary\n"), 0o644))
	must(os.Symlink(outside, filepath.Join(f.root, "swap")))

	var stop atomic.Bool
	var flips atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			if err := unix.Renameat2(unix.AT_FDCWD, filepath.Join(f.root, "dir"), unix.AT_FDCWD, filepath.Join(f.root, "swap"), unix.RENAME_EXCHANGE); err != nil {
				t.Errorf("exchange: %v", err)
				return
			}
			flips.Add(1)
		}
	}()
	cs := f.connect(t, Options{}, nil, modern)
	uri := fileURI(filepath.Join(f.root, "dir", "f.txt"))
	read := 0
	for i := 0; i < 600; i++ {
		res, err := readResource(cs, uri)
		if err != nil {
			if strings.Contains(err.Error(), "canary") {
				t.Fatalf("outside bytes in an error: %v", err)
			}
			continue
		}
		for _, c := range res.Contents {
			if strings.Contains(c.Text, "canary") || strings.Contains(string(c.Blob), "canary") {
				t.Fatalf("read the outside file through a swapped directory: %q", c.Text)
			}
		}
		read++
	}
	stop.Store(true)
	wg.Wait()
	t.Logf("%d reads served, %d flips", read, flips.Load())
	if flips.Load() == 0 {
		t.Error("the swap never ran")
	}
}
