package hostpolicy

import (
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// Merge lays over's set fields over base's but cannot switch read_only back off: a host's
// read-only server stays read-only whatever a client asks.
func TestMergeKeepsReadOnly(t *testing.T) {
	two := 2
	got := Merge(schema.Config{ReadOnly: true, RootDir: "/a", MaxReadLines: &two}, schema.Config{RootDir: "/b", Tools: []string{"read_file"}})
	if !got.ReadOnly || got.RootDir != "/b" || *got.MaxReadLines != 2 || got.Tools[0] != "read_file" {
		t.Fatalf("Merge = %+v", got)
	}
}
