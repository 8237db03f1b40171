//go:build unix

package engine

import (
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/fsbox/fsbox/engine/internal/text"
	"github.com/fsbox/fsbox/schema"
)

// watchdog is how long a call may take before the test declares it blocked. It is a failure
// detector, not synchronisation: a healthy call returns in microseconds.
const watchdog = 10 * time.Second

// noBlock runs fn and fails the test if it does not return within the watchdog.
func noBlock(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(watchdog):
		t.Fatalf("%s blocked", what)
	}
}

func TestFIFO_NeverBlocks(t *testing.T) {
	fx := makeFixture(t, "pipe |", "link => pipe")
	e := fx.engine(schema.Config{})
	calls := []struct {
		tool string
		args map[string]any
		kind schema.ErrorKind
	}{
		{"read_file", map[string]any{"path": "pipe"}, "not_regular_file"},
		{"read_file", map[string]any{"path": "link"}, "not_regular_file"},
		{"write_file", map[string]any{"path": "pipe", "content": "x"}, "not_regular_file"},
		{"write_file", map[string]any{"path": "link", "content": "x"}, "not_regular_file"},
		{"edit_file", map[string]any{"path": "pipe", "old_text": "a", "new_text": "b"}, "not_regular_file"},
		{"file_info", map[string]any{"path": "pipe"}, ""},
	}
	for _, c := range calls {
		noBlock(t, c.tool, func() {
			var rec recorder
			res, err := tryCall(t, e, c.tool, c.args, rec.hooks(true))
			if c.kind == "" {
				if err != nil {
					t.Errorf("%s = %v", c.tool, err)
					return
				}
				r := res.(*schema.FileInfoResult)
				if r.Type != "other" || r.Text != "path: pipe\ntype: file\nsize: 0 bytes" {
					t.Errorf("file_info = %+v", r)
				}
				return
			}
			wantKind(t, c.tool, err, c.kind)
		})
	}
	if fi, err := os.Lstat(fx.abs("pipe")); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("pipe is no longer a FIFO: %v %v", fi, err)
	}
}

// A regular file swapped for a FIFO after resolution is refused on the descriptor without
// blocking (open is O_NONBLOCK, the fstat check runs before any read).
func TestFIFO_SwappedInAfterResolution(t *testing.T) {
	fx := makeFixture(t, "f.txt: text\n")
	e := fx.engine(schema.Config{})
	r, err := e.resolve("read_file", "f.txt")
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(fx.abs("f.txt"))
	if err := mkfifo(fx.abs("f.txt")); err != nil {
		t.Fatal(err)
	}
	noBlock(t, "openRegular", func() {
		f, _, oerr := e.openRegular("read_file", r)
		if oerr == nil {
			f.Close()
			t.Errorf("openRegular opened a FIFO")
			return
		}
		if oerr.Kind != "not_regular_file" && oerr.Kind != "changed_during_request" {
			t.Errorf("kind = %s", oerr.Kind)
		}
	})
	// The same swap while a write is being announced.
	fx.add("g.txt: old\n")
	rec := recorder{answer: func(*schema.FileChangeRequest) (bool, string, error) {
		os.Remove(fx.abs("g.txt"))
		mkfifo(fx.abs("g.txt"))
		return true, "", nil
	}}
	noBlock(t, "write_file", func() {
		_, werr := tryCall(t, e, "write_file", map[string]any{"path": "g.txt", "content": "new"}, rec.hooks(true))
		wantKind(t, "write to swapped FIFO", werr, "not_regular_file")
	})
}

// A one-line window of a multi-GB file is rendered in a bounded amount of memory: the scan
// never holds more than the window and one read buffer.
func TestReadFile_HugeFileBoundedMemory(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("reads 2 GiB twice; skipped with -short and -race")
	}
	fx := makeFixture(t)
	p := fx.abs("huge.txt")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	// Text (no NUL) in the sniffed prefix, then a sparse hole: one 2 GiB line of NUL bytes.
	head := make([]byte, 2*text.SniffBytes)
	for i := range head {
		head[i] = 'x'
	}
	head[len(head)-1] = '\n'
	f.Write(head)
	const size = 2 << 30
	if err := f.Truncate(size); err != nil {
		t.Skipf("no sparse files here: %v", err)
	}
	f.Close()
	e := fx.engine(schema.Config{})
	for _, offset := range []int{0, 1} {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		res, cerr := tryCall(t, e, "read_file", map[string]any{"path": "huge.txt", "offset": offset, "limit": 1}, Hooks{})
		runtime.ReadMemStats(&after)
		if cerr != nil {
			t.Fatalf("read_file offset %d: %v", offset, cerr)
		}
		r := res.(*schema.ReadFileResult)
		if r.TotalLines != 2 || r.Size != size {
			t.Errorf("offset %d: lines %d size %d", offset, r.TotalLines, r.Size)
		}
		allocated := after.TotalAlloc - before.TotalAlloc
		t.Logf("offset %d: allocated %d KiB during the call, heap in use %d KiB", offset, allocated>>10, after.HeapInuse>>10)
		if allocated > 32<<20 {
			t.Errorf("offset %d: the call allocated %d MiB; want it bounded by the window", offset, allocated>>20)
		}
	}
}
