package engine

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// runBench runs one tool call per iteration on raw JSON arguments.
func runBench(b *testing.B, e *Engine, tool string, args any) {
	b.Helper()
	raw, _ := json.Marshal(args)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := e.Call(ctx, tool, raw, Hooks{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadFile_Small(b *testing.B) {
	fx := makeFixture(b, "small.txt: "+strings.Repeat(`a line of ordinary source code\n`, 100))
	e := fx.engine(schema.Config{})
	b.SetBytes(int64(len(fx.read("small.txt"))))
	runBench(b, e, "read_file", map[string]any{"path": "small.txt"})
}

// BenchmarkReadFile_OneLineOfHuge reads the first line of a 256 MiB file: the cost is the
// streaming hash and line count of the whole file; memory stays bounded.
func BenchmarkReadFile_OneLineOfHuge(b *testing.B) {
	fx := makeFixture(b)
	line := strings.Repeat("x", 99) + "\n"
	f, _ := os.Create(fx.abs("huge.txt"))
	chunk := []byte(strings.Repeat(line, 1<<14))
	for written := 0; written < 256<<20; written += len(chunk) {
		f.Write(chunk)
	}
	fi, _ := f.Stat()
	f.Close()
	e := fx.engine(schema.Config{})
	b.SetBytes(fi.Size())
	runBench(b, e, "read_file", map[string]any{"path": "huge.txt", "limit": 1})
}

func BenchmarkWriteFile(b *testing.B) {
	fx := makeFixture(b, "w.txt: old\n")
	e := fx.engine(schema.Config{})
	content := strings.Repeat("a line of ordinary source code\n", 100)
	b.SetBytes(int64(len(content)))
	runBench(b, e, "write_file", map[string]any{"path": "w.txt", "content": content})
}

func BenchmarkEditFile(b *testing.B) {
	content := strings.Repeat(`a line of ordinary source code\n`, 100) + `marker\n`
	fx := makeFixture(b, "e.txt: "+content)
	e := fx.engine(schema.Config{})
	// Replacing the marker with itself keeps the file, and so each iteration, the same.
	runBench(b, e, "edit_file", map[string]any{"path": "e.txt", "old_text": "marker\n", "new_text": "marker\n"})
}
