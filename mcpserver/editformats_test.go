package mcpserver

import (
	"context"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// TestEditFormatsInBothModes: apply_patch and str_replace_based_edit_tool, once enabled, are
// listed and work under their own names in fsbox's own mode and in the reference mode.
func TestEditFormatsInBothModes(t *testing.T) {
	for _, mode := range []Compat{"", CompatReference} {
		t.Run(string(mode)+"mode", func(t *testing.T) {
			f := newFixture(t)
			cfg := schema.Config{Tools: []string{schema.ToolReadFile, schema.ToolWriteFile, schema.ToolEditFile, schema.ToolApplyPatch, schema.ToolStrReplaceBasedEditTool}}
			cs := f.connect(t, Options{Compat: mode, Config: cfg}, nil, modern)
			list, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			found := 0
			for _, tool := range list.Tools {
				if tool.Name == schema.ToolApplyPatch || tool.Name == schema.ToolStrReplaceBasedEditTool {
					found++
					if tool.InputSchema == nil || tool.Annotations == nil || tool.Annotations.ReadOnlyHint {
						t.Errorf("%s: schema or annotations wrong", tool.Name)
					}
				}
			}
			if found != 2 {
				t.Fatalf("listed %d of the two edit-format tools", found)
			}
			res := callTool(t, cs, schema.ToolApplyPatch, map[string]any{"input": "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+TWO\n*** Add File: b.txt\n+bee\n*** End Patch"})
			if res.IsError || f.read(t, "a.txt") != "one\nTWO\nthree\nfour\nfive\n" || f.read(t, "b.txt") != "bee\n" {
				t.Fatalf("apply_patch: %q", text(t, res))
			}
			res = callTool(t, cs, schema.ToolApplyPatch, map[string]any{"operation": map[string]any{"type": "update_file", "path": "../secret.txt", "diff": "@@\n-outside canary\n+x\n"}})
			if errorKind(t, res) != "outside_root" {
				t.Fatalf("traversal: %q", text(t, res))
			}
			f.noHostPath(t, res)
			res = callTool(t, cs, schema.ToolStrReplaceBasedEditTool, map[string]any{"command": "str_replace", "path": "a.txt", "old_str": "three", "new_str": "THREE"})
			if res.IsError || !strings.Contains(f.read(t, "a.txt"), "THREE") || !strings.Contains(text(t, res), "has been edited") {
				t.Fatalf("str_replace: %q", text(t, res))
			}
			res = callTool(t, cs, schema.ToolStrReplaceBasedEditTool, map[string]any{"command": "view", "path": "a.txt", "view_range": []int{2, 3}})
			if res.IsError || !strings.HasSuffix(text(t, res), "     2\tTWO\n     3\tTHREE\n") {
				t.Fatalf("view: %q", text(t, res))
			}
		})
	}
}
