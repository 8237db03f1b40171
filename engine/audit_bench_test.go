//go:build unix

package engine

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fsbox/fsbox/schema"
)

// BenchmarkAuditCall is the audit log's own cost per call, in process (no pipes, no JSON-RPC).
// Each iteration makes the same call on three engines over one root, the log off, on, and on with
// Sync, in turn, so the three see the same machine load; the metrics are their times per call:
//
//	go test ./engine -run '^$' -bench AuditCall -benchtime 3000x -count 3
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
	modes := []string{"off", "on", "sync"}
	for _, c := range calls {
		b.Run(c.name, func(b *testing.B) {
			var engines []*Engine
			for _, mode := range modes {
				opts := Options{}
				if mode != "off" {
					l, err := OpenAuditLog(AuditOptions{Path: filepath.Join(b.TempDir(), "audit.jsonl"), Sync: mode == "sync"})
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
				engines = append(engines, e)
			}
			raw := make([]json.RawMessage, 26)
			for i := range raw {
				raw[i], _ = json.Marshal(c.args(i))
			}
			spent := make([]time.Duration, len(modes))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for k := range modes {
					j := (i + k) % len(modes) // rotate who goes first
					start := time.Now()
					if _, err := engines[j].Call(context.Background(), c.tool, raw[i%26], Hooks{}); err != nil {
						b.Fatal(err)
					}
					spent[j] += time.Since(start)
				}
			}
			b.StopTimer()
			for j, mode := range modes {
				b.ReportMetric(float64(spent[j].Nanoseconds())/1000/float64(b.N), mode+"-µs/call")
			}
		})
	}
}
