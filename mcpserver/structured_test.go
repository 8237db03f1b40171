package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsbox/fsbox/engine"
	"github.com/fsbox/fsbox/schema"
)

// allTools is a configuration enabling every tool of the bundle, the journal undo_last_change
// needs included.
func allTools() schema.Config {
	cfg := schema.Config{Journal: &schema.JournalConfig{}}
	for _, t := range schema.Tools {
		cfg.Tools = append(cfg.Tools, t.Name)
	}
	return cfg
}

// A successful call of every tool each presentation offers with allTools, in an order in which
// each one succeeds on a fresh fixture (undo_last_change after a change, delete after the file
// exists).
var (
	nativeStructuredCalls = []struct {
		tool string
		args map[string]any
	}{
		{"read_file", map[string]any{"path": "a.txt", "limit": 2}},
		{"read_file", map[string]any{"path": "img.png"}},
		{"read_multiple_files", map[string]any{"paths": []any{"a.txt", "src/main.go"}}},
		{"list_directory", map[string]any{"path": "src"}},
		{"directory_tree", map[string]any{"path": "."}},
		{"find_files", map[string]any{"pattern": "**/*.go"}},
		{"list_files", map[string]any{}},
		{"search_files", map[string]any{"pattern": "t.o"}},
		{"grep", map[string]any{"pattern": "package"}},
		{"file_info", map[string]any{"path": "a.txt"}},
		{"write_file", map[string]any{"path": "new.txt", "content": "new\n"}},
		{"edit_file", map[string]any{"path": "a.txt", "old_text": "two", "new_text": "TWO"}},
		{"undo_last_change", map[string]any{}},
		{"create_directory", map[string]any{"path": "made/deep"}},
		{"remove_directory", map[string]any{"path": "made/deep"}},
		{"move_file", map[string]any{"source": "new.txt", "destination": "moved.txt"}},
		{"delete", map[string]any{"path": "moved.txt"}},
		{"apply_patch", map[string]any{"input": "*** Begin Patch\n*** Add File: p.txt\n+pee\n*** End Patch"}},
		{"str_replace_based_edit_tool", map[string]any{"command": "view", "path": "a.txt"}},
	}
	referenceStructuredCalls = []struct {
		tool string
		args map[string]any
	}{
		{"read_text_file", map[string]any{"path": "a.txt", "tail": 2}},
		{"read_media_file", map[string]any{"path": "img.png"}},
		{"read_multiple_files", map[string]any{"paths": []any{"a.txt", "src/main.go"}}},
		{"list_directory", map[string]any{"path": "src"}},
		{"list_directory_with_sizes", map[string]any{"path": "src"}},
		{"directory_tree", map[string]any{"path": "."}},
		{"search_files", map[string]any{"path": ".", "pattern": "*.go", "excludePatterns": []any{"gen"}}},
		{"get_file_info", map[string]any{"path": "a.txt"}},
		{"write_file", map[string]any{"path": "new.txt", "content": "new\n"}},
		{"edit_file", map[string]any{"path": "a.txt", "edits": []any{map[string]any{"oldText": "two", "newText": "TWO"}}, "dryRun": true}},
		{"edit_file", map[string]any{"path": "a.txt", "edits": []any{map[string]any{"oldText": "two", "newText": "TWO"}}}},
		{"create_directory", map[string]any{"path": "made/deep"}},
		{"move_file", map[string]any{"source": "new.txt", "destination": "moved.txt"}},
		{"apply_patch", map[string]any{"input": "*** Begin Patch\n*** Add File: p.txt\n+pee\n*** End Patch"}},
		{"str_replace_based_edit_tool", map[string]any{"command": "view", "path": "a.txt"}},
		{"list_allowed_directories", map[string]any{}},
	}
)

// TestOutputSchemasHaveNoText: every tool of both presentations declares the bundle's result
// schema (list_allowed_directories: its own) without the text property, which the content block
// carries: not among the properties, not required, and every other property and requirement kept.
func TestOutputSchemasHaveNoText(t *testing.T) {
	for _, mode := range []Compat{CompatNone, CompatReference} {
		t.Run("mode="+string(mode), func(t *testing.T) {
			f := newFixture(t)
			cs := f.connect(t, Options{Compat: mode, Config: allTools()}, nil, modern)
			list, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			want := map[Compat]int{CompatNone: len(schema.Tools), CompatReference: len(compatTools)}[mode]
			if len(list.Tools) != want {
				t.Fatalf("%d tools listed, want %d", len(list.Tools), want)
			}
			for _, tool := range list.Tools {
				out := asMap(t, tool.OutputSchema)
				props, _ := out["properties"].(map[string]any)
				req, _ := out["required"].([]any)
				if props == nil || out["type"] != "object" {
					t.Errorf("%s: outputSchema %v is not an object schema", tool.Name, out)
					continue
				}
				if _, has := props["text"]; has || slices.Contains(req, any("text")) {
					t.Errorf("%s: outputSchema still has text: properties %v, required %v", tool.Name, keys(props), req)
				}
				full := bundleResultSchema(t, mode, tool.Name)
				fullProps := full["properties"].(map[string]any)
				if _, has := fullProps["text"]; !has {
					t.Errorf("%s: the result schema it derives from has no text", tool.Name)
				}
				if got, want := keys(props), without(keys(fullProps), "text"); !slices.Equal(got, want) {
					t.Errorf("%s: properties %v, want the result's %v", tool.Name, got, want)
				}
				if got, want := strs(req), without(strs(full["required"]), "text"); !slices.Equal(got, want) {
					t.Errorf("%s: required %v, want the result's %v", tool.Name, got, want)
				}
			}
		})
	}
}

// TestStructuredContentIsTheResultWithoutText: a successful call of every tool of both
// presentations returns structuredContent that validates against the tool's declared outputSchema
// (as a conforming client checks it) and has no text member, and the text as the first content
// block (the only one but for an image read); for the reading tools that text is the engine's own,
// unchanged.
func TestStructuredContentIsTheResultWithoutText(t *testing.T) {
	for _, mode := range []Compat{CompatNone, CompatReference} {
		t.Run("mode="+string(mode), func(t *testing.T) {
			calls := nativeStructuredCalls
			if mode == CompatReference {
				calls = referenceStructuredCalls
			}
			f := newFixture(t)
			if err := os.WriteFile(filepath.Join(f.root, "img.png"), pngBytes, 0o644); err != nil {
				t.Fatal(err)
			}
			cs := f.connect(t, Options{Compat: mode, Config: allTools(), Changes: ChangesAllow}, nil, modern)
			list, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			declared := map[string]*jsonschema.Resolved{}
			for _, tool := range list.Tools {
				declared[tool.Name] = resolve(t, tool.OutputSchema)
			}
			called := map[string]bool{}
			for _, c := range calls {
				called[c.tool] = true
				var want string
				if spec, ok := schema.ToolByName(c.tool); ok && spec.ReadOnly && mode == CompatNone {
					want = engineText(t, f.root, c.tool, c.args)
				}
				res := callTool(t, cs, c.tool, c.args)
				if res.IsError {
					t.Errorf("%s: %s", c.tool, text(t, res))
					continue
				}
				// The text block first; an image or PDF read adds its media block.
				blocks := 1
				if c.args["path"] == "img.png" {
					blocks = 2
				}
				tc, ok := res.Content[0].(*mcp.TextContent)
				if !ok || len(res.Content) != blocks {
					t.Errorf("%s: %d content blocks, the first a %T; want %d, the first text", c.tool, len(res.Content), res.Content[0], blocks)
					continue
				}
				got := tc.Text
				sc := structured(t, res)
				if _, has := sc["text"]; has {
					t.Errorf("%s: structuredContent carries the text: %v", c.tool, sc)
				}
				if err := declared[c.tool].Validate(sc); err != nil {
					t.Errorf("%s: structuredContent %v does not validate against its outputSchema: %v", c.tool, sc, err)
				}
				if got == "" || want != "" && got != want {
					t.Errorf("%s: content text %q, want the engine's %q", c.tool, got, want)
				}
			}
			for name := range declared {
				if !called[name] {
					t.Errorf("%s is listed but not called here", name)
				}
			}
		})
	}
}

func TestCutEmptyText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"text":"","a":1}`, `{"a":1}`},
		{`{"a":1,"text":""}`, `{"a":1}`},
		{`{"a":{"text":""},"text":"","b":[1,{"text":""}]}`, `{"a":{"text":""},"b":[1,{"text":""}]}`},
		{`{"text":""}`, `{}`},
		{`{"a":"\"text\":\"\"","text":""}`, `{"a":"\"text\":\"\""}`},
	} {
		got, ok := cutEmptyText([]byte(c.in))
		if !ok || string(got) != c.want {
			t.Errorf("cutEmptyText(%s) = %s, %v; want %s", c.in, got, ok, c.want)
		}
	}
	for _, in := range []string{``, `[]`, `{"a":1}`, `{"a":{"text":""}}`, `{"text":"x"}`, `{"text":""`, `{"a":"x`} {
		if got, ok := cutEmptyText([]byte(in)); ok || string(got) != in {
			t.Errorf("cutEmptyText(%s) = %s, %v; want it unchanged and not ok", in, got, ok)
		}
	}
}

// TestStructuredContentRefusesAResultWithoutText: a result type without a text field is a bug,
// reported as one, never sent with an empty content block.
func TestStructuredContentRefusesAResultWithoutText(t *testing.T) {
	for _, res := range []any{map[string]any{"text": "x"}, &struct{ A int }{1}, schema.ReadFileResult{Text: "x"}} {
		if _, _, err := structuredContent(res); err == nil {
			t.Errorf("%T: no error", res)
		}
	}
}

// bundleResultSchema is the schema tool's typed result has in the bundle (its backing engine
// tool's in the reference mode), text included.
func bundleResultSchema(t *testing.T, mode Compat, tool string) map[string]any {
	t.Helper()
	backing := tool
	if mode == CompatReference {
		i := slices.IndexFunc(compatTools, func(ct compatTool) bool { return ct.name == tool })
		if i < 0 {
			t.Fatalf("%s: not a reference tool", tool)
		}
		if compatTools[i].backing == "" {
			return allowedDirsSchema
		}
		backing = compatTools[i].backing
	}
	descs, err := schema.Descriptors([]string{backing}, true)
	if err != nil {
		t.Fatal(err)
	}
	return descs[0].OutputSchema
}

// engineText is the text the engine itself returns for the call, on a fresh engine over root.
func engineText(t *testing.T, root, tool string, args map[string]any) string {
	t.Helper()
	eng, err := engine.New(allTools(), engine.Options{DefaultRoot: root})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	raw, _ := json.Marshal(args)
	res, err := eng.Call(context.Background(), tool, raw, engine.Hooks{})
	if err != nil {
		t.Fatalf("%s on the engine: %v", tool, err)
	}
	s, _ := schema.ResultText(res)
	return s
}

func resolve(t *testing.T, s any) *jsonschema.Resolved {
	t.Helper()
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var js jsonschema.Schema
	if err := json.Unmarshal(data, &js); err != nil {
		t.Fatal(err)
	}
	r, err := js.Resolve(nil)
	if err != nil {
		t.Fatalf("resolving %s: %v", data, err)
	}
	return r
}

func asMap(t *testing.T, v any) map[string]any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// strs is a required list as strings, sorted ([]any from JSON, or []string).
func strs(v any) []string {
	var out []string
	switch x := v.(type) {
	case []any:
		for _, s := range x {
			out = append(out, s.(string))
		}
	case []string:
		out = append(out, x...)
	}
	slices.Sort(out)
	return out
}

func without(list []string, s string) []string {
	return slices.DeleteFunc(slices.Clone(list), func(x string) bool { return x == s })
}
