package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

func TestReadMultipleFiles(t *testing.T) {
	fx := makeFixture(t, seedTree...)
	fx.add("creds.secret: x")
	e := fx.engine(allWalkers(schema.Config{DeniedPatterns: &[]string{"*.secret"}}))
	var rec recorder
	res := mustCall(t, e, "read_multiple_files", map[string]any{"paths": []string{"hello.txt", "creds.secret", "subdir", "multi.txt"}}, rec.hooks(false)).(*schema.ReadMultipleFilesResult)
	if len(res.Files) != 4 {
		t.Fatalf("files %+v", res.Files)
	}
	kinds := []string{}
	for _, f := range res.Files {
		switch {
		case f.Result != nil && f.Error == nil:
			kinds = append(kinds, "ok")
		case f.Error != nil && f.Result == nil:
			kinds = append(kinds, string(f.Error.Kind))
		}
	}
	if fmt.Sprint(kinds) != "[ok denied not_a_file ok]" {
		t.Errorf("outcomes %v", kinds)
	}
	if !strings.Contains(res.Text, "[creds.secret: Path 'creds.secret' is denied by pattern '*.secret'.]\n") {
		t.Errorf("text lacks the failure line:\n%s", res.Text)
	}
	if len(rec.events) != 2 {
		t.Errorf("events %d; want one file_read per file read", len(rec.events))
	}
	for _, ev := range rec.events {
		if fr, ok := ev.(*schema.FileReadEvent); !ok || fr.Tool != "read_multiple_files" {
			t.Errorf("event %+v", ev)
		}
	}
	if _, err := tryCall(t, e, "read_multiple_files", map[string]any{"paths": []string{}}, Hooks{}); err == nil || err.Kind != schema.KindInvalidArguments {
		t.Errorf("empty paths = %v", err)
	}
}
