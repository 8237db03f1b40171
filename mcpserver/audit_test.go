//go:build unix

package mcpserver

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsbox/fsbox/engine"
	"github.com/fsbox/fsbox/schema"
)

func auditLog(t *testing.T) (*engine.AuditLog, string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := engine.OpenAuditLog(engine.AuditOptions{Path: p})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l, p
}

// decisions reads the log as "outcome answer/by" per line.
func decisions(t *testing.T, p string) []string {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r schema.AuditRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		d := "-"
		if r.Decision != nil {
			d = r.Decision.Answer + "/" + r.Decision.By
		}
		out = append(out, r.Outcome+" "+d)
	}
	return out
}

// TestAuditRecordsWhoDecided: over MCP the log says who decided each change: the user through an
// elicitation (round one pending, round two the answer), the host through --changes, or the
// policy when nobody could be asked.
func TestAuditRecordsWhoDecided(t *testing.T) {
	cases := []struct {
		name    string
		opts    Options
		elicits bool
		want    []string
	}{
		{"elicitation", Options{}, true, []string{"pending pending/client", "ok approved/client"}},
		{"changes allow", Options{Changes: ChangesAllow}, true, []string{"ok approved/host"}},
		{"changes refuse", Options{Changes: ChangesRefuse}, false, []string{"refused refused/host"}},
		{"nobody to ask", Options{}, false, []string{"ok approved/policy-auto"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			l, p := auditLog(t)
			c.opts.Audit = l
			var copts *mcp.ClientOptions
			if c.elicits {
				el := &elicitor{action: "accept", approve: true}
				copts = &mcp.ClientOptions{ElicitationHandler: el.handle}
			}
			cs := f.connect(t, c.opts, copts, modern)
			if res := callTool(t, cs, "write_file", map[string]any{"path": "n.txt", "content": "x"}); res.IsError {
				t.Fatal(text(t, res))
			}
			if got := decisions(t, p); strings.Join(got, "; ") != strings.Join(c.want, "; ") {
				t.Errorf("log %q, want %q", got, c.want)
			}
		})
	}
}
