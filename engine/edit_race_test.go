package engine

import (
	"context"
	"os"
	"testing"

	"github.com/fsbox/fsbox/engine/internal/text"
	"github.com/fsbox/fsbox/schema"
)

// TestEditWithoutHashNeverStale changes the file while its edit waits for approval: without
// expected_hash the edit fails changed_during_request (retry), never stale_hash, whose text tells
// the model about a hash it never gave; with expected_hash it stays stale_hash.
func TestEditWithoutHashNeverStale(t *testing.T) {
	for _, withHash := range []bool{false, true} {
		fx := makeFixture(t, "f.txt: one\n")
		e := fx.engine(schema.Config{})
		h := Hooks{ChangeRequest: func(context.Context, *schema.FileChangeRequest) (schema.ChangeRequestResult, error) {
			os.WriteFile(fx.abs("f.txt"), []byte("one two\n"), 0o644)
			return Approve(), nil
		}}
		args := map[string]any{"path": "f.txt", "old_text": "one", "new_text": "three"}
		if withHash {
			args["expected_hash"] = text.ContentHash([]byte("one\n"))
		}
		_, err := tryCall(t, e, "edit_file", args, h)
		want := schema.KindChangedDuringRequest
		if withHash {
			want = schema.KindStaleHash
		}
		if err == nil || err.Kind != want {
			t.Errorf("expected_hash given=%v: edit_file = %v, want %s", withHash, err, want)
		}
		if got := fx.read("f.txt"); got != "one two\n" {
			t.Errorf("the other writer's content was overwritten: %q", got)
		}
	}
}
