package server

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// TestEncodedResultsMatchSchema pins the pre-encoded initialize and tools/list results to the
// schema's types: the same members in the same order (a member added to the schema type and not
// here fails), and, for every tool and both content-hash variants, the same bytes as encoding
// the schema type with freshly built descriptors.
func TestEncodedResultsMatchSchema(t *testing.T) {
	mirror := func(want, got reflect.Type) {
		if want.NumField() != got.NumField() {
			t.Fatalf("%v has %d fields, %v %d", got, got.NumField(), want, want.NumField())
		}
		for i := range want.NumField() {
			w, g := want.Field(i), got.Field(i)
			if w.Name != g.Name || w.Tag != g.Tag || (w.Name != "Tools" && w.Type != g.Type) {
				t.Errorf("%v field %d is %s %v %q; want %s %v %q", got, i, g.Name, g.Type, g.Tag, w.Name, w.Type, w.Tag)
			}
		}
	}
	mirror(reflect.TypeFor[schema.InitializeResult](), reflect.TypeFor[initializeResult]())
	mirror(reflect.TypeFor[schema.ToolsListResult](), reflect.TypeFor[toolsListResult]())

	encode := func(v any) string {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	var all []string
	for _, tool := range schema.Tools {
		all = append(all, tool.Name)
	}
	for _, names := range [][]string{all, all[:1], {all[len(all)-1], all[0]}, {}} {
		for _, hashes := range []bool{true, false} {
			fresh, err := schema.Descriptors(names, hashes)
			if err != nil {
				t.Fatal(err)
			}
			pre, err := encodedDescriptors(names, hashes)
			if err != nil {
				t.Fatal(err)
			}
			info := schema.Implementation{Name: "fsbox", Version: "v<1>&"}
			want := encode(schema.InitializeResult{ProtocolVersion: "1", ServerInfo: info, RootDir: "/r", Cwd: ".", Tools: fresh, SchemaHash: "h", ResultShape: "text"})
			got := encode(initializeResult{ProtocolVersion: "1", ServerInfo: info, RootDir: "/r", Cwd: ".", Tools: pre, SchemaHash: "h", ResultShape: "text"})
			if got != want {
				t.Errorf("initialize, tools %v, hashes %v: pre-encoded result differs from the schema type's encoding", names, hashes)
			}
			if got, want := encode(toolsListResult{Tools: pre}), encode(schema.ToolsListResult{Tools: fresh}); got != want {
				t.Errorf("tools/list, tools %v, hashes %v: pre-encoded result differs", names, hashes)
			}
		}
	}
	if _, err := encodedDescriptors([]string{"no_such_tool"}, true); err == nil {
		t.Error("an unknown tool name must be an error")
	}
}

// TestEncodeMatchesEncodingJSON pins the results' own encoders (sent as rpc.Encoded, appended
// without encoding/json) to what encoding/json writes for the same values without HTML escaping:
// strings that need escapes or hold invalid UTF-8, HTML characters, nil, empty and full tool
// lists, an empty element, a zero and a set sandbox.
func TestEncodeMatchesEncodingJSON(t *testing.T) {
	encode := func(v any) string {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		return strings.TrimSuffix(buf.String(), "\n")
	}
	var all []string
	for _, tool := range schema.Tools {
		all = append(all, tool.Name)
	}
	full, err := encodedDescriptors(all, true)
	if err != nil {
		t.Fatal(err)
	}
	toolLists := [][]json.RawMessage{nil, {}, full[:1], full, {full[0], nil, full[1]}}
	strs := []string{"", "/r", `/a "quoted" \ dir`, "/tmp/<b>&amp;", "/caf\u00e9/\u2028/\x01", "/bad\xff\xfeutf8"}
	sandboxes := []schema.Sandbox{{}, {Landlock: "abi 7", Hooks: "none"}}
	n := 0
	for i, tools := range toolLists {
		for j, str := range strs {
			r := initializeResult{ProtocolVersion: "1", ServerInfo: schema.Implementation{Name: "fsbox", Version: str},
				RootDir: str, Cwd: strs[(j+1)%len(strs)], Tools: tools, SchemaHash: "sha256:" + str, ResultShape: "both", Sandbox: sandboxes[(i+j)%2]}
			got, err := r.encode()
			if err != nil {
				t.Fatal(err)
			}
			if want := encode(r); string(got) != want {
				t.Errorf("initialize (tools %d, string %q): encode gives\n%s\nencoding/json\n%s", i, str, got, want)
			}
			n++
		}
		if got, want := string(toolsListResult{Tools: tools}.encode()), encode(toolsListResult{Tools: tools}); got != want {
			t.Errorf("tools/list (tools %d): encode gives %s, encoding/json %s", i, got, want)
		}
	}
	if n == 0 {
		t.Fatal("no case ran")
	}
}
