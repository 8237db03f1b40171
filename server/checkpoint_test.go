package server

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// TestCheckpointDroppedNotification: past journal.max_bytes the oldest checkpoint goes, and the
// host hears of it through a checkpoint/dropped notification sent before the reply of the call
// that pushed the journal over its bound; checkpoint/list no longer names it.
func TestCheckpointDroppedNotification(t *testing.T) {
	root := t.TempDir()
	w := newWire(t, Options{})
	w.onRequest = func(map[string]any) any { return map[string]any{"approve": true} }
	_, resp := w.request(1, "initialize", initParams(root, map[string]any{"journal": map[string]any{"max_bytes": 64 << 10}}))
	if resp["error"] != nil {
		t.Fatalf("initialize: %v", resp["error"])
	}
	_, resp = w.request(2, "checkpoint/create", map[string]any{"label": "first"})
	first := resp["result"].(map[string]any)["id"].(string)
	var dropped []map[string]any
	chunk := strings.Repeat("x", 16<<10)
	for i := 0; i < 12; i++ {
		w.request(10+2*i, "checkpoint/create", map[string]any{})
		before, resp := w.request(11+2*i, "tools/call", map[string]any{"name": "write_file",
			"arguments": map[string]any{"path": "f.txt", "content": fmt.Sprintf("%s%d", chunk, i)}})
		if resp["error"] != nil {
			t.Fatalf("write: %v", resp["error"])
		}
		for _, m := range before {
			if m["method"] == "checkpoint/dropped" {
				dropped = append(dropped, m["params"].(map[string]any))
			}
		}
	}
	if len(dropped) == 0 || dropped[0]["id"] != first || dropped[0]["label"] != "first" {
		t.Fatalf("want %s dropped with a notification, got %v", first, dropped)
	}
	_, resp = w.request(99, "checkpoint/list", nil)
	for _, cp := range resp["result"].(map[string]any)["checkpoints"].([]any) {
		if cp.(map[string]any)["id"] == first {
			t.Errorf("checkpoint/list still names the dropped %s", first)
		}
	}
	// Params are decoded strictly.
	_, resp = w.request(100, "checkpoint/restore", map[string]any{"ID": first})
	if code, data := errorCode(t, resp); code != schema.CodeInvalidParams || data["kind"] != string(schema.KindInvalidArguments) {
		t.Errorf("misspelt params: code %v data %v", code, data)
	}
	if _, err := os.Stat(filepath.Join(root, "f.txt")); err != nil {
		t.Fatal(err)
	}
}
