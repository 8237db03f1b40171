package engine

import (
	"encoding/json"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// BenchmarkDecodeArgs is the per-call cost of decoding a tool's arguments strictly (see
// decodeArgs), for a small call and for an edit with nested replacements.
func BenchmarkDecodeArgs(b *testing.B) {
	for _, c := range []struct {
		name string
		raw  string
		dst  func() any
	}{
		{"read_file", `{"path":"src/fmt/doc.go","offset":10,"limit":200}`, func() any { return &schema.ReadFileArgs{} }},
		{"edit_file", `{"path":"scratch/edit_1000.go","replacements":[{"old_text":"// FSBENCH-MARKER-A","new_text":"// FSBENCH-MARKER-B"},{"old_text":"x := 1","new_text":"x := 2"}]}`,
			func() any { return &schema.EditFileArgs{} }},
	} {
		b.Run(c.name, func(b *testing.B) {
			raw := json.RawMessage(c.raw)
			b.ReportAllocs()
			for b.Loop() {
				if err := decodeArgs("x", raw, c.dst()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
