package textdiff

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkUnified measures diffs at the sizes edit_file produces: a one-line change in a file at
// the source bound (the prefix/suffix trim leaves a tiny window), and a rewrite of every line at
// the line-pair bound (the Myers worst case the bounds allow).
func BenchmarkUnified(b *testing.B) {
	var lines []string
	for i := range 250 { // 250 lines of 128 characters: both bounds nearly reached
		lines = append(lines, fmt.Sprintf("line %3d %s\n", i, strings.Repeat("x", 118)))
	}
	old := strings.Join(lines, "")
	oneLine := strings.Replace(old, "line 125 ", "LINE 125 ", 1)
	a := strings.Repeat("a\n", 255)
	z := strings.Repeat("b\n", 255)
	for _, bc := range []struct{ name, old, new string }{
		{"one_line_in_32k", old, oneLine},
		{"rewrite_255x255", a, z},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Unified("f.go", bc.old, bc.new)
			}
		})
	}
}
