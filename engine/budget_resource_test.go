package engine

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fsbox/fsbox/schema"
)

// Resource tests: a hostile tree per tool, the reply's size and the heap's growth measured while
// the call runs. Files are hard links of one file, so the tree holds hundreds of megabytes of
// matching text on a few megabytes of disk. FSBOX_RESOURCE_SCALE (a percentage, default 100)
// scales the counts, to measure an older build without exhausting the machine.

// maxHeapGrowth is the bound on the heap's high-water mark above its level before the call:
// generous (a search worker holds one line of up to 10 MiB, two workers at least), and two
// orders of magnitude below what the unbounded tools used (gigabytes).
const maxHeapGrowth = 96 << 20

func resourceScale(n int) int {
	if s, err := strconv.Atoi(os.Getenv("FSBOX_RESOURCE_SCALE")); err == nil && s > 0 {
		return max(n*s/100, 1)
	}
	return n
}

// heapPeak samples HeapInuse until stop is called and returns the peak above the starting level.
func heapPeak() (stop func() uint64) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		runtime.ReadMemStats(&ms) // a call shorter than one sampling period
		if ms.HeapInuse > peak.Load() {
			peak.Store(ms.HeapInuse)
		}
		if p := peak.Load(); p > base {
			return p - base
		}
		return 0
	}
}

// linked writes content once as name and links it under each of names.
func linked(t *testing.T, dir, name string, content []byte, names []string) {
	t.Helper()
	src := filepath.Join(dir, name)
	if err := os.WriteFile(src, content, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if err := os.Link(src, filepath.Join(dir, n)); err != nil {
			t.Fatal(err)
		}
	}
}

// measure runs one call and checks the reply's size (JSON, as on the wire) and the heap growth.
func measure(t *testing.T, e *Engine, tool string, args any, limit int) any {
	t.Helper()
	stop := heapPeak()
	start := time.Now()
	res := mustCall(t, e, tool, args, Hooks{})
	secs := time.Since(start).Seconds()
	peak := stop()
	wire, _ := json.Marshal(res)
	text := resultText(res)
	t.Logf("%s: text %d chars, reply %d bytes, heap peak +%.1f MB, %.2f s", tool, len([]rune(text)), len(wire), float64(peak)/(1<<20), secs)
	wantWithin(t, tool, text, limit)
	// The typed fields repeat the text's entries: the wire carries about twice the text.
	if len(wire) > 3*(limit+noticeSlack)+4096 {
		t.Errorf("%s: reply is %d bytes on the wire; budget %d characters", tool, len(wire), limit)
	}
	if peak > maxHeapGrowth {
		t.Errorf("%s: heap grew by %d MB during the call; bound %d MB", tool, peak>>20, maxHeapGrowth>>20)
	}
	return res
}

// TestResource_SearchHugeLines: 40 one-line files of 9.5 MB that all match (380 MB of matching
// text), then one 10 MB minified file.
func TestResource_SearchHugeLines(t *testing.T) {
	if testing.Short() {
		t.Skip("resource test")
	}
	fx := makeFixture(t, "many/", "one/")
	line := []byte(strings.Repeat("abcdefgh", 9_500_000/8))
	copy(line[4_000_000:], "needle")
	var names []string
	for i := range resourceScale(40) {
		names = append(names, fmt.Sprintf("f%02d.js", i))
	}
	linked(t, filepath.Join(fx.root, "many"), "base.js", line, names)
	mini := []byte(strings.Repeat("x=needle;", 10_000_000/9))
	os.WriteFile(filepath.Join(fx.root, "one", "app.min.js"), mini, 0o644)
	e := fx.engine(schema.Config{})
	res := measure(t, e, "search_files", map[string]any{"pattern": "needle", "path": "many"}, schema.DefaultMaxOutputChars).(*schema.SearchFilesResult)
	if len(res.Matches) != len(names)+1 { // base.js and every link
		t.Errorf("matches = %d, want %d (each line cut to fit)", len(res.Matches), len(names)+1)
	}
	res = measure(t, e, "search_files", map[string]any{"pattern": "needle", "path": "one"}, schema.DefaultMaxOutputChars).(*schema.SearchFilesResult)
	if len(res.Matches) != 1 || !strings.Contains(res.Matches[0].Text, "[... line cut:") {
		t.Errorf("minified file: %d matches", len(res.Matches))
	}
}

// TestResource_ReadMultipleFiles: 100 paths (the cap) naming 1 MB files.
func TestResource_ReadMultipleFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("resource test")
	}
	fx := makeFixture(t)
	var names []string
	for i := range resourceScale(100) {
		names = append(names, fmt.Sprintf("f%03d.txt", i))
	}
	linked(t, fx.root, "base.txt", []byte(strings.Repeat(strings.Repeat("r", 99)+"\n", 10_000)), names)
	e := fx.engine(schema.Config{Tools: allTools})
	res := measure(t, e, "read_multiple_files", map[string]any{"paths": names}, schema.DefaultMaxOutputChars).(*schema.ReadMultipleFilesResult)
	if len(res.Files) == 0 || len(res.Files)+len(res.NotRead) != len(names) {
		t.Errorf("%d read, %d not read, of %d", len(res.Files), len(res.NotRead), len(names))
	}
}

// TestResource_Walkers: a chain of 1,100 directories with 255-character names (paths up to
// 281 k characters) through find_files and directory_tree, and a directory of 3,000 long names
// through list_directory.
func TestResource_Walkers(t *testing.T) {
	if testing.Short() {
		t.Skip("resource test")
	}
	fx := makeFixture(t, "wide/")
	deepChain(t, fx.root, resourceScale(1100), func(i int) string { return fmt.Sprintf("%04d", i) + strings.Repeat("d", 251) })
	for i := range resourceScale(3000) {
		os.WriteFile(filepath.Join(fx.root, "wide", fmt.Sprintf("%04d", i)+strings.Repeat("n", 251)), nil, 0o644)
	}
	e := fx.engine(schema.Config{Tools: allTools, MaxListResults: intp(100_000), MaxFindResults: intp(100_000)})
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"find_files", map[string]any{"pattern": "**"}},
		{"directory_tree", map[string]any{}},
		{"list_directory", map[string]any{"path": "wide"}},
	} {
		res := measure(t, e, call.tool, call.args, schema.DefaultMaxOutputChars)
		if !strings.Contains(jsonOf(res), `"truncated":true`) {
			t.Errorf("%s: not truncated", call.tool)
		}
	}
}
