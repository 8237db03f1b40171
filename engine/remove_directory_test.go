package engine

import (
	"testing"

	"github.com/fsbox/fsbox/schema"
)

func TestRemoveDirectory(t *testing.T) {
	fx := makeFixture(t, "empty/", "full/x", "hid/.h", "f", "link => empty", "$OUTSIDE/o/")
	fx.add("out => $OUTSIDE/o")
	e := fx.engine(schema.Config{Tools: changeTools})
	var rec recorder
	for _, c := range []struct {
		path string
		kind schema.ErrorKind
	}{
		{"full", schema.KindDirectoryNotEmpty},
		{"hid", schema.KindDirectoryNotEmpty}, // a dot-entry counts
		{"f", schema.KindNotADirectory},
		{"link", schema.KindNotADirectory}, // the link itself, never its target
		{"out", schema.KindNotADirectory},
		{"../outside/o", schema.KindOutsideRoot},
		{".", schema.KindInvalidArguments},
		{fx.root, schema.KindInvalidArguments},
		{"missing", schema.KindNotFound},
	} {
		_, err := tryCall(t, e, schema.ToolRemoveDirectory, map[string]any{"path": c.path}, rec.hooks(false))
		wantKind(t, "remove_directory "+c.path, err, c.kind)
	}
	if len(rec.events) != 0 || !exists(fx, "full/x") || !exists(fx, "empty") || !exists(fx, "$OUTSIDE/o") {
		t.Fatalf("a refused remove changed something: events %v", rec.events)
	}
	mustCall(t, e, schema.ToolRemoveDirectory, map[string]any{"path": "empty"}, rec.hooks(false))
	if exists(fx, "empty") || len(rec.events) != 1 {
		t.Fatalf("empty directory not removed, events %s", jsonOf(rec.events))
	}
	if ev, ok := rec.events[0].(*schema.DirectoryRemovedEvent); !ok || ev.Path != "empty" || ev.Kind != schema.KindDirectoryRemoved {
		t.Fatalf("event %s", jsonOf(rec.events[0]))
	}
}
