package mcpserver

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkReadFile is one read_file call through the SDK client and server in memory: the cost
// MCP adds over the engine, without a process or pipes.
func BenchmarkReadFile(b *testing.B) {
	for _, version := range []string{modern, legacy} {
		b.Run(version, func(b *testing.B) {
			f := newFixture(b)
			cs := f.connect(b, Options{Logf: func(string, ...any) {}}, nil, version)
			params := &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "a.txt"}}
			for b.Loop() {
				if res, err := cs.CallTool(context.Background(), params); err != nil || res.IsError {
					b.Fatal(err)
				}
			}
		})
	}
}
