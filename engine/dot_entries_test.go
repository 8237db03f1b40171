package engine

import (
	"strings"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// Config.ShowDotEntries (walk rule 2 off): every walker shows entries whose names start with
// ".", and still leaves out what a deny rule, the credential defaults or the ignore rules hide.

func TestShowDotEntries_EveryWalker(t *testing.T) {
	fx := makeFixture(t, "a.yml: push", ".github/workflows/ci.yml: push", ".env: SECRET=push", ".git/config: push",
		"src/.hidden.yml: push", ".envrc: push", "docs/.keys/id_rsa: push", ".gitignore: ignored.txt", "ignored.txt: push")
	on := true
	e := fx.engine(allWalkers(schema.Config{ShowDotEntries: &on}))
	for _, tc := range []struct {
		tool string
		args map[string]any
		want []string
	}{
		{"list_directory", map[string]any{}, []string{".github/"}},
		{"directory_tree", map[string]any{}, []string{".github/workflows/ci.yml", "src/.hidden.yml"}},
		{"find_files", map[string]any{"pattern": "**/*.yml"}, []string{".github/workflows/ci.yml", "src/.hidden.yml", "a.yml"}},
		{"find_files", map[string]any{"pattern": "*.yml"}, []string{"a.yml"}},
		{"search_files", map[string]any{"pattern": "push"}, []string{".github/workflows/ci.yml", "src/.hidden.yml"}},
		{"list_files", map[string]any{}, []string{".github/workflows/ci.yml"}},
		{"grep", map[string]any{"pattern": "push"}, []string{".github/workflows/ci.yml"}},
	} {
		res := mustCall(t, e, tc.tool, tc.args, Hooks{})
		got := resultText(res)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s(%v): %q missing from\n%s", tc.tool, tc.args, w, got)
			}
		}
		// Denied by the credential defaults, skipped by the ignore rules: never shown, dot or not.
		for _, never := range []string{".env\n", ".env  (", "SECRET", ".git/", "id_rsa", "ignored.txt"} {
			if strings.Contains(got, never) {
				t.Errorf("%s(%v) shows %q:\n%s", tc.tool, tc.args, never, got)
			}
		}
		if h := hiddenOf(t, res); h.Dot != 0 {
			t.Errorf("%s(%v) counts %d dot entries as hidden", tc.tool, tc.args, h.Dot)
		}
	}
}

func TestShowDotEntries_OffByDefault(t *testing.T) {
	fx := makeFixture(t, "a.yml: x", ".github/ci.yml: x")
	e := fx.engine(allWalkers(schema.Config{}))
	if got := resultText(mustCall(t, e, "list_directory", map[string]any{}, Hooks{})); strings.Contains(got, ".github") {
		t.Errorf("dot entry shown without show_dot_entries: %q", got)
	}
}
