//go:build unix

package fsboxclient

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckpointRestore drives the host's checkpoint methods through a real server: a change
// after a checkpoint shows in its diff and is undone by its restore.
func TestCheckpointRestore(t *testing.T) {
	root := t.TempDir()
	writeTestFile(t, root, "a.txt", "before\n")
	c := start(t, Options{RootDir: root, Config: &Config{Journal: &JournalConfig{}}})
	ctx := context.Background()
	cp, err := c.CreateCheckpoint(ctx, "start")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.WriteFile(ctx, WriteFileParams{Path: "a.txt", Content: "after\n"}); err != nil {
		t.Fatal(err)
	}
	diff, err := c.DiffCheckpoint(ctx, cp.ID)
	if err != nil || !strings.Contains(diff.Diff, "+after") {
		t.Fatalf("diff: %v %+v", err, diff)
	}
	list, err := c.ListCheckpoints(ctx)
	if err != nil || len(list.Checkpoints) != 1 || list.Checkpoints[0].Changed != 1 {
		t.Fatalf("list: %v %+v", err, list)
	}
	res, err := c.RestoreCheckpoint(ctx, cp.ID, false)
	if err != nil || !res.Complete {
		t.Fatalf("restore: %v %+v", err, res)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(b) != "before\n" {
		t.Errorf("a.txt = %q after the restore", b)
	}
}
