package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// Benchmarks of the walkers through Engine.Call, on a generated tree and, when it exists, on
// $(go env GOROOT)/src (read only). They measure; they assert nothing about time.
//
//	go test ./engine -run '^$' -bench 'List|Tree|Search|Find' -benchmem

var (
	benchTreeOnce sync.Once
	benchTreeDir  string
)

// benchTree builds (once per process) 40 directories of 25 Go-like files, about 4 KB each, with
// one in 50 files holding the needle line, plus a 300-entry flat directory.
func benchTree(b *testing.B) string {
	benchTreeOnce.Do(func() {
		dir, err := os.MkdirTemp("", "fsbox-bench-")
		if err != nil {
			b.Fatal(err)
		}
		var body strings.Builder
		for i := range 80 {
			fmt.Fprintf(&body, "func helper%d(r *Reader) (int, error) { return r.n + %d, nil }\n", i, i)
		}
		for d := range 40 {
			for f := range 25 {
				p := filepath.Join(dir, fmt.Sprintf("pkg%02d/sub%d/file%02d.go", d, f%3, f))
				os.MkdirAll(filepath.Dir(p), 0o755)
				content := "package p\n\n" + body.String()
				if (d*25+f)%50 == 0 {
					content += "// NEEDLE: the line search benchmarks look for\n"
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					b.Fatal(err)
				}
			}
		}
		for i := range 300 {
			os.MkdirAll(filepath.Join(dir, "flat"), 0o755)
			os.WriteFile(filepath.Join(dir, "flat", fmt.Sprintf("entry%03d.txt", i)), []byte("x\n"), 0o644)
		}
		benchTreeDir = dir
	})
	return benchTreeDir
}

// goSrc returns $(go env GOROOT)/src, or skips.
func goSrc(b *testing.B) string {
	src := filepath.Join(runtime.GOROOT(), "src")
	if fi, err := os.Stat(src); err != nil || !fi.IsDir() {
		b.Skip("GOROOT/src not present")
	}
	return src
}

// benchCall runs one tool call per iteration and reports the result's size.
func benchCall(b *testing.B, root, tool string, args map[string]any) {
	benchCallHooks(b, root, tool, args, Hooks{})
}

// benchCallHooks is benchCall with the calls' hooks (TextOnly for the "text" result shape).
func benchCallHooks(b *testing.B, root, tool string, args map[string]any, h Hooks) {
	big := 1 << 30
	e, err := New(allWalkers(schema.Config{RootDir: root, MaxListResults: &big, MaxSearchResults: &big, MaxFindResults: &big}), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	raw, _ := json.Marshal(args)
	ctx := context.Background()
	var res any
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		res, err = e.Call(ctx, tool, raw, h)
		if err != nil {
			b.Fatal(err)
		}
	}
	// CPU time per call (user + system, all threads): steadier than ns/op on a shared machine.
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
	b.ReportMetric(float64(strings.Count(resultText(res), "\n")+1), "lines")
}

func BenchmarkListDirectory(b *testing.B) {
	b.Run("flat300", func(b *testing.B) { benchCall(b, benchTree(b), "list_directory", map[string]any{"path": "flat"}) })
	b.Run("gosrc/net", func(b *testing.B) { benchCall(b, goSrc(b), "list_directory", map[string]any{"path": "net"}) })
	// The same listings stat'ed by one goroutine: whether the parallel stat pays on this machine.
	b.Run("serial-stat", func(b *testing.B) {
		defer func(n int) { maxStatWorkers = n }(maxStatWorkers)
		maxStatWorkers = 1
		b.Run("flat300", func(b *testing.B) { benchCall(b, benchTree(b), "list_directory", map[string]any{"path": "flat"}) })
		b.Run("gosrc/net", func(b *testing.B) { benchCall(b, goSrc(b), "list_directory", map[string]any{"path": "net"}) })
	})
	// The "text" result shape: no typed entries are built.
	b.Run("text-only/gosrc/net", func(b *testing.B) {
		benchCallHooks(b, goSrc(b), "list_directory", map[string]any{"path": "net"}, Hooks{TextOnly: true})
	})
	// Two goroutines stat even below minParallelWalkProcs: whether the idle second core of a
	// 2-core machine (the client waits while the server lists) pays for the hand-off.
	b.Run("parallel-stat-2", func(b *testing.B) {
		defer func(p, w int) { minParallelWalkProcs, maxStatWorkers = p, w }(minParallelWalkProcs, maxStatWorkers)
		minParallelWalkProcs, maxStatWorkers = 1, 2
		b.Run("gosrc/net", func(b *testing.B) { benchCall(b, goSrc(b), "list_directory", map[string]any{"path": "net"}) })
	})
}

func BenchmarkDirectoryTree(b *testing.B) {
	b.Run("generated", func(b *testing.B) { benchCall(b, benchTree(b), "directory_tree", map[string]any{}) })
	b.Run("gosrc/net/http", func(b *testing.B) {
		benchCall(b, goSrc(b), "directory_tree", map[string]any{"path": "net/http"})
	})
	b.Run("text-only/gosrc/net/http", func(b *testing.B) {
		benchCallHooks(b, goSrc(b), "directory_tree", map[string]any{"path": "net/http"}, Hooks{TextOnly: true})
	})
	// The same walks with no listing ahead: whether the prefetch pays on this machine.
	b.Run("no-prefetch", func(b *testing.B) {
		defer func(n int) { maxPrefetchers = n }(maxPrefetchers)
		maxPrefetchers = 0
		b.Run("generated", func(b *testing.B) { benchCall(b, benchTree(b), "directory_tree", map[string]any{}) })
		b.Run("gosrc/net/http", func(b *testing.B) {
			benchCall(b, goSrc(b), "directory_tree", map[string]any{"path": "net/http"})
		})
	})
}

func BenchmarkSearchFiles(b *testing.B) {
	b.Run("generated/literal", func(b *testing.B) { benchCall(b, benchTree(b), "search_files", map[string]any{"pattern": "NEEDLE"}) })
	b.Run("generated/regex", func(b *testing.B) {
		benchCall(b, benchTree(b), "search_files", map[string]any{"pattern": `helper7\d\(r \*Reader\)`})
	})
	b.Run("generated/noliteral", func(b *testing.B) {
		benchCall(b, benchTree(b), "search_files", map[string]any{"pattern": `^\w+ \d$`})
	})
	b.Run("gosrc/literal", func(b *testing.B) {
		benchCall(b, goSrc(b), "search_files", map[string]any{"pattern": `func \(\*Reader\)`})
	})
	b.Run("gosrc/regex", func(b *testing.B) {
		benchCall(b, goSrc(b), "search_files", map[string]any{"pattern": `func \(\w+ \*Reader\)`})
	})
	b.Run("gosrc/ignorecase", func(b *testing.B) {
		benchCall(b, goSrc(b), "search_files", map[string]any{"pattern": `(?i)func \(\w+ \*reader\)`})
	})
}

func BenchmarkFindFiles(b *testing.B) {
	b.Run("generated", func(b *testing.B) {
		benchCall(b, benchTree(b), "find_files", map[string]any{"pattern": "**/file1*.go"})
	})
	b.Run("gosrc/tests", func(b *testing.B) { benchCall(b, goSrc(b), "find_files", map[string]any{"pattern": "**/*_test.go"}) })
	b.Run("no-prefetch", func(b *testing.B) {
		defer func(n int) { maxPrefetchers = n }(maxPrefetchers)
		maxPrefetchers = 0
		b.Run("gosrc/tests", func(b *testing.B) {
			benchCall(b, goSrc(b), "find_files", map[string]any{"pattern": "**/*_test.go"})
		})
		b.Run("gosrc/net", func(b *testing.B) {
			benchCall(b, goSrc(b), "find_files", map[string]any{"pattern": "**/*_test.go", "path": "net"})
		})
	})
	b.Run("gosrc/net", func(b *testing.B) {
		benchCall(b, goSrc(b), "find_files", map[string]any{"pattern": "**/*_test.go", "path": "net"})
	})
}

func BenchmarkGrep(b *testing.B) {
	b.Run("gosrc/literal", func(b *testing.B) {
		benchCall(b, goSrc(b), "grep", map[string]any{"pattern": `func (r *Reader) Read(`, "literal": true})
	})
	b.Run("gosrc/regex", func(b *testing.B) {
		benchCall(b, goSrc(b), "grep", map[string]any{"pattern": `func \(\w+ \*Reader\)`})
	})
	b.Run("gosrc/context2", func(b *testing.B) {
		benchCall(b, goSrc(b), "grep", map[string]any{"pattern": `func \(\w+ \*Reader\)`, "context": 2})
	})
}

func BenchmarkListFiles(b *testing.B) {
	b.Run("gosrc/tests", func(b *testing.B) { benchCall(b, goSrc(b), "list_files", map[string]any{"glob": "*_test.go"}) })
}

// BenchmarkRg runs rg with the flags pydantic-ai-harness's tools give it, process start
// included, for a same-run comparison with BenchmarkGrep and BenchmarkListFiles.
func BenchmarkRg(b *testing.B) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		b.Skip("rg not installed")
	}
	src := goSrc(b)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"gosrc/literal", []string{"--line-number", "--with-filename", "--sort", "path", "--fixed-strings", "--regexp", `func (r *Reader) Read(`}},
		{"gosrc/regex", []string{"--line-number", "--with-filename", "--sort", "path", "--regexp", `func \(\w+ \*Reader\)`}},
		{"gosrc/context2", []string{"--line-number", "--with-filename", "--sort", "path", "--context", "2", "--regexp", `func \(\w+ \*Reader\)`}},
		{"gosrc/regex-unsorted", []string{"--line-number", "--with-filename", "--regexp", `func \(\w+ \*Reader\)`}},
		{"gosrc/files-tests", []string{"--files", "--sort", "path", "--glob", "*_test.go"}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command(rg, tc.args...)
				cmd.Dir = src
				if out, err := cmd.Output(); err != nil && len(out) == 0 {
					b.Fatal(err)
				}
			}
		})
	}
}
