//go:build unix

package engine

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// BenchmarkAuditCall is the audit log's own cost per call, in process (no pipes, no JSON-RPC):
// the same calls with the log off, on, and on with Sync, one after the other:
//
//	go test ./engine -run '^$' -bench AuditCall -count 5
func BenchmarkAuditCall(b *testing.B) {
	fx := makeFixture(b, "a.txt: "+strings.Repeat("line of text\\n", 1000))
	calls := []struct {
		name, tool string
		args       func(i int) any
	}{
		{"file_info", "file_info", func(int) any { return map[string]any{"path": "a.txt"} }},
		{"read_file", "read_file", func(int) any { return map[string]any{"path": "a.txt"} }},
		{"write_file-1KB", "write_file", func(i int) any {
			return map[string]any{"path": "w.txt", "content": strings.Repeat(string(rune('a'+i%26)), 1024)}
		}},
	}
	for _, c := range calls {
		for _, mode := range []string{"off", "on", "on-sync"} {
			b.Run(c.name+"/audit-"+mode, func(b *testing.B) {
				opts := Options{}
				if mode != "off" {
					l, err := OpenAuditLog(AuditOptions{Path: filepath.Join(b.TempDir(), "audit.jsonl"), Sync: mode == "on-sync"})
					if err != nil {
						b.Fatal(err)
					}
					defer l.Close()
					opts.Audit = l.Session()
				}
				e, err := New(schema.Config{RootDir: fx.root}, opts)
				if err != nil {
					b.Fatal(err)
				}
				defer e.Close()
				raw := make([]json.RawMessage, 26)
				for i := range raw {
					raw[i], _ = json.Marshal(c.args(i))
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, err := e.Call(context.Background(), c.tool, raw[i%26], Hooks{}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
