package engine

import (
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// BenchmarkNew is engine.New with the default policy, which every session's initialize pays
// (spawn to initialize, bench/README.md). Landlock is not part of it: tests configure no sandbox.
func BenchmarkNew(b *testing.B) {
	root := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		e, err := New(schema.Config{RootDir: root}, Options{})
		if err != nil {
			b.Fatal(err)
		}
		e.Close()
	}
}
