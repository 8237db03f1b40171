package engine

import (
	"slices"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

func TestListFiles_Seed(t *testing.T) {
	_, e := rgEngine(t, schema.Config{}, "link.txt => $OUTSIDE/x", "inlink.txt => notes.txt")
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, "notes.txt\nsrc/app.py\n[2 hidden entries omitted; name a hidden path explicitly to include it]\n[1 entry ignored by .gitignore rules; name it explicitly to include it]"},
		{map[string]any{"glob": "*.py"}, "src/app.py\n[2 hidden entries omitted; name a hidden path explicitly to include it]\n[1 entry ignored by .gitignore rules; name it explicitly to include it]"},
		{map[string]any{"path": "src", "glob": "*.txt"}, "No files found."},
		{map[string]any{"glob": "*.log"}, "ignored.log\n[2 hidden entries omitted; name a hidden path explicitly to include it]"},
		{map[string]any{"glob": "**"}, "ignored.log\nnotes.txt\nsrc/app.py\n[2 hidden entries omitted; name a hidden path explicitly to include it]"},
		{map[string]any{"glob": "!*.py"}, "notes.txt\n[2 hidden entries omitted; name a hidden path explicitly to include it]\n[1 entry ignored by .gitignore rules; name it explicitly to include it]"},
		{map[string]any{"glob": "!src"}, "notes.txt\n[2 hidden entries omitted; name a hidden path explicitly to include it]\n[1 entry ignored by .gitignore rules; name it explicitly to include it]"},
	} {
		if got := resultText(mustCall(t, e, schema.ToolListFiles, tc.args, Hooks{})); got != tc.want {
			t.Errorf("list_files(%v) = %q\nwant %q", tc.args, got, tc.want)
		}
	}
	for _, p := range []string{"notes.txt", "missing", "..", "src/app.py"} {
		if _, err := tryCall(t, e, schema.ToolListFiles, map[string]any{"path": p}, Hooks{}); err == nil {
			t.Errorf("list_files(%q) succeeded", p)
		}
	}
	if _, err := tryCall(t, e, schema.ToolListFiles, map[string]any{"glob": "a[b"}, Hooks{}); err == nil || err.Kind != schema.KindInvalidPattern {
		t.Errorf("bad glob: %v", err)
	}
	deny := []string{"src/*"}
	_, d := rgEngine(t, schema.Config{DeniedPatterns: &deny})
	if got := resultText(mustCall(t, d, schema.ToolListFiles, map[string]any{}, Hooks{})); !strings.HasPrefix(got, "notes.txt\n[") || !strings.Contains(got, "access rules deny it") {
		t.Errorf("denied: %q", got)
	}
	one := 1
	_, capped := rgEngine(t, schema.Config{MaxFindResults: &one})
	res := mustCall(t, capped, schema.ToolListFiles, map[string]any{}, Hooks{}).(*schema.ListFilesResult)
	if !res.Truncated || !strings.HasPrefix(res.Text, "notes.txt\n[... truncated at 1 files]") {
		t.Errorf("cap: %q", res.Text)
	}
	denyNotes := []string{"notes.txt"}
	_, cappedDenied := rgEngine(t, schema.Config{MaxFindResults: &one, DeniedPatterns: &denyNotes})
	res = mustCall(t, cappedDenied, schema.ToolListFiles, map[string]any{}, Hooks{}).(*schema.ListFilesResult)
	if res.Truncated || !slices.Equal(res.Paths, []string{"src/app.py"}) {
		t.Errorf("cap counts permitted entries only: %q", res.Text)
	}
}
