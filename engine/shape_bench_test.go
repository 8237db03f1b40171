package engine

import "testing"

// read_file of GOROOT/src/fmt/doc.go (15.8 KB, the shared kit's read_small) with and without the
// typed content: what the "text" result shape saves in the engine. Before Hooks.TextOnly both
// cases did the typed case's work.
func BenchmarkReadFileShape(b *testing.B) {
	b.Run("typed/gosrc/fmt/doc.go", func(b *testing.B) {
		benchCall(b, goSrc(b), "read_file", map[string]any{"path": "fmt/doc.go"})
	})
	b.Run("text-only/gosrc/fmt/doc.go", func(b *testing.B) {
		benchCallHooks(b, goSrc(b), "read_file", map[string]any{"path": "fmt/doc.go"}, Hooks{TextOnly: true})
	})
}
