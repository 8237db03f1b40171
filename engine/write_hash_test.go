package engine

import (
	"os"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// TestMalformedExpectedHash: a malformed expected_hash is a stale_hash conflict on an existing
// file (write_file and edit_file), which is left as it was, and invalid_arguments on a file that
// does not exist, which is not created; a huge one is not echoed whole.
func TestMalformedExpectedHash(t *testing.T) {
	fx := makeFixture(t, "a.txt: keep\n")
	e := fx.engine(schema.Config{})
	for _, c := range []struct {
		tool string
		args map[string]any
		kind schema.ErrorKind
	}{
		{"write_file", map[string]any{"path": "a.txt", "content": "x", "expected_hash": "any_hash_val"}, schema.KindStaleHash},
		{"write_file", map[string]any{"path": "a.txt", "content": "x", "expected_hash": "hash:"}, schema.KindStaleHash},
		{"write_file", map[string]any{"path": "a.txt", "content": "x", "expected_hash": strings.Repeat("z", 1<<20)}, schema.KindStaleHash},
		{"edit_file", map[string]any{"path": "a.txt", "old_text": "keep", "new_text": "x", "expected_hash": "any_hash_val"}, schema.KindStaleHash},
		{"write_file", map[string]any{"path": "new.txt", "content": "x", "expected_hash": "any_hash_val"}, schema.KindInvalidArguments},
		{"write_file", map[string]any{"path": "new.txt", "content": "x", "expected_hash": strings.Repeat("z", 1<<20)}, schema.KindInvalidArguments},
		{"edit_file", map[string]any{"path": "new.txt", "old_text": "keep", "new_text": "x", "expected_hash": "any_hash_val"}, schema.KindNotFound},
	} {
		_, err := tryCall(t, e, c.tool, c.args, Hooks{})
		wantKind(t, c.tool+" "+c.args["path"].(string), err, c.kind)
		if err != nil && len(err.Msg) > 300 {
			t.Errorf("%s: message of %d bytes echoes the argument", c.tool, len(err.Msg))
		}
		if c.kind == schema.KindStaleHash && (err == nil || !strings.Contains(err.Msg, "Re-read the file and retry")) {
			t.Errorf("%s: %v; want the usual conflict message", c.tool, err)
		}
	}
	if got := fx.read("a.txt"); got != "keep\n" {
		t.Errorf("a.txt = %q; want it unchanged", got)
	}
	if _, err := os.Stat(fx.abs("new.txt")); !os.IsNotExist(err) {
		t.Errorf("new.txt exists after refused writes (%v)", err)
	}
}
