//go:build unix

package fsboxclient

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestAuditOption: Options.Audit starts the server with --audit; every call has its line in the
// log when the call returns, and the lines decode as the generated AuditRecord.
func TestAuditOption(t *testing.T) {
	root := t.TempDir()
	writeTestFile(t, root, "a.txt", "hello\n")
	logPath := filepath.Join(t.TempDir(), "audit.jsonl")
	c := start(t, Options{RootDir: root, Audit: &AuditLog{Path: logPath, MaxBytes: 1 << 20, Keep: 2}})
	ctx := context.Background()
	if _, err := c.Call(ctx, "read_file", map[string]any{"path": "a.txt"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Call(ctx, "read_file", map[string]any{"path": "missing.txt"}); err == nil {
		t.Fatal("reading a missing file succeeded")
	}
	f, err := os.Open(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []AuditRecord
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r AuditRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%q: %v", sc.Text(), err)
		}
		recs = append(recs, r)
	}
	if len(recs) != 2 || recs[0].Seq != 1 || recs[0].Tool == nil || *recs[0].Tool != "read_file" || recs[0].Outcome != "ok" ||
		recs[1].Seq != 2 || recs[1].Outcome != "error" || recs[1].ErrorKind == nil || *recs[1].ErrorKind != KindNotFound {
		t.Fatalf("audit records = %+v", recs)
	}
}
