package codegen

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var updateTypeScript = flag.Bool("update-typescript", false, "rewrite codegen/testdata/typescript from the TypeScript emitter")

// TestTypeScriptGolden compares the emitter's output for the small test schema with the files in
// testdata/typescript (named by the base name of each generated path, plus .golden).
func TestTypeScriptGolden(t *testing.T) {
	schemaJSON, err := os.ReadFile("testdata/small.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	files, err := Generate(schemaJSON, "typescript")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		golden := filepath.Join("testdata", "typescript", path.Base(f.Path)+".golden")
		names = append(names, filepath.Base(golden))
		if *updateTypeScript {
			if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(golden, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run: go test ./codegen -run TestTypeScriptGolden -update-typescript)", err)
		}
		if !bytes.Equal(f.Data, want) {
			t.Errorf("%s differs from %s (run: go test ./codegen -run TestTypeScriptGolden -update-typescript)\n%s",
				f.Path, golden, firstDifference(string(want), string(f.Data)))
		}
	}
	entries, err := os.ReadDir(filepath.Join("testdata", "typescript"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(names) {
		t.Errorf("testdata/typescript holds %d files, the emitter writes %v", len(entries), names)
	}
}

// firstDifference shows the first line where two texts differ.
func firstDifference(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + wl + "\n  have: " + gl
		}
	}
	return "(no line differs)"
}

// TestTypeScriptShapes checks the constructs the golden files are there to pin, so a golden
// update that loses one fails here too.
func TestTypeScriptShapes(t *testing.T) {
	schemaJSON, err := os.ReadFile("testdata/small.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	files, err := Generate(schemaJSON, "typescript")
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]string{}
	for _, f := range files {
		byPath[f.Path] = string(f.Data)
	}
	for _, c := range []struct{ file, want string }{
		{tsTypesPath, "export interface EchoArgs {\n"},
		{tsTypesPath, "  text: string;\n"},                                            // required: no ?
		{tsTypesPath, "  times?: number;\n"},                                          // optional integer
		{tsTypesPath, "  tags?: string[];\n"},                                         // array
		{tsTypesPath, "  id?: unknown;\n"},                                            // any value
		{tsTypesPath, "  mode: \"plain\" | \"loud\";\n"},                              // inline enum
		{tsTypesPath, "  counts?: Record<string, number>;\n"},                         // map with typed values
		{tsTypesPath, "  extra?: Record<string, unknown>;\n"},                         // free-form object
		{tsTypesPath, "  first?: Part;\n"},                                            // named reference
		{tsTypesPath, "  kind: \"demo.echoed\";\n"},                                   // discriminant
		{tsTypesPath, "export type ErrorKind =\n  | \"bad_text\"\n  | \"broken\";\n"}, // named enum
		{tsTypesPath, "export type Event = EchoedEvent;\n"},
		{tsTypesPath, "  bad_text: true,\n"},
		{tsTypesPath, "  broken: false,\n"},
		{tsTypesPath, "export const ERROR_KIND_RETRY: Readonly<Record<ErrorKind, boolean>> = {\n"},
		{tsTypesPath, "  initialize: { params: InitializeParams; result: unknown };\n"},
		{tsTypesPath, "  \"tools/call\": { params: undefined; result: ToolResult };\n"},
		{tsTypesPath, "  event: Event;\n"},
		{tsClientPath, "  echo(args: EchoArgs, options?: CallOptions): Promise<EchoResult> {\n"},
		{tsDispatchPath, "  echo: (client, args) => client.echo(args as unknown as EchoArgs),\n"},
	} {
		got, ok := byPath[c.file]
		if !ok {
			t.Fatalf("no file %s", c.file)
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("%s lacks %q", c.file, c.want)
		}
	}
	if !strings.Contains(byPath[tsTypesPath], "   * How often to repeat it. Default 1.\n   *\n   * Minimum 1.\n") {
		t.Errorf("the minimum of EchoArgs.times is not documented")
	}
}

// mutateSchema decodes the small schema, lets edit change it and returns it encoded again.
func mutateSchema(t *testing.T, edit func(root map[string]any)) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/small.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var root map[string]any
	if err := json.Unmarshal(data, &root); err != nil {
		t.Fatal(err)
	}
	edit(root)
	out, err := json.Marshal(root)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTypeScriptRefuses checks that names the generated code cannot hold are refused with an error
// that says which, instead of TypeScript that does not compile.
func TestTypeScriptRefuses(t *testing.T) {
	defs := func(root map[string]any) map[string]any { return root["$defs"].(map[string]any) }
	tools := func(root map[string]any) []any { return root["x-fsbox"].(map[string]any)["tools"].([]any) }
	for _, c := range []struct {
		name, want string
		edit       func(root map[string]any)
	}{
		{"type named like a generated declaration", "$defs/ToolName", func(root map[string]any) {
			defs(root)["ToolName"] = map[string]any{"type": "object", "description": "x"}
		}},
		{"tool method shadowing a Client member", "method name close", func(root map[string]any) {
			tools(root)[0].(map[string]any)["name"] = "close"
		}},
		{"two tools with one method name", "both become method echo2", func(root map[string]any) {
			tools(root)[0].(map[string]any)["name"] = "echo2"
			second := map[string]any{}
			for k, v := range tools(root)[0].(map[string]any) {
				second[k] = v
			}
			second["name"] = "echo_2"
			root["x-fsbox"].(map[string]any)["tools"] = append(tools(root), second)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Generate(mutateSchema(t, c.edit), "typescript")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want one mentioning %q", err, c.want)
			}
		})
	}
}

func TestTypeScriptHelpers(t *testing.T) {
	for in, want := range map[string]string{
		"read_file":           "readFile",
		"read_multiple_files": "readMultipleFiles",
		"grep":                "grep",
	} {
		if got := tsCamel(in); got != want {
			t.Errorf("tsCamel(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"plain":             `"plain"`,
		"<a & b>":           `"<a & b>"`,
		"quote \" and \\":   `"quote \" and \\"`,
		"line\nbreak\u2028": `"line\nbreak\u2028"`,
	} {
		if got := tsString(in); got != want {
			t.Errorf("tsString(%q) = %s, want %s", in, got, want)
		}
	}
	for in, want := range map[string]string{"name": "name", "tools/list": `"tools/list"`, "$/cancel_request": `"$/cancel_request"`} {
		if got := tsKey(in); got != want {
			t.Errorf("tsKey(%q) = %s, want %s", in, got, want)
		}
	}
	w := &tsWriter{}
	w.doc(0, "ends a comment */ early")
	if got := w.b.String(); got != "/** ends a comment *\\/ early */\n" {
		t.Errorf("doc did not escape */: %q", got)
	}
}
