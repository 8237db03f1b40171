package engine

import (
	"context"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// BenchmarkLockParent measures what the cross-process lock adds to one write or edit: opening
// and verifying the parent directory, flock, and the release; the edit and write benchmarks
// include it, but their cost is dominated by fsync.
func BenchmarkLockParent(b *testing.B) {
	fx := makeFixture(b, "d/f.txt: x\n")
	e := fx.engine(schema.Config{})
	r, rerr := e.resolve("edit_file", "d/f.txt")
	if rerr != nil {
		b.Fatal(rerr)
	}
	c := &call{ctx: context.Background(), tool: schema.ToolEditFile}
	b.ReportAllocs()
	for b.Loop() {
		l, err := e.lockParent(c, r)
		if err != nil {
			b.Fatal(err)
		}
		l.Unlock()
	}
}
