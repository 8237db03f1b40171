package codegen

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
)

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func parseSmall(t *testing.T) *Model {
	t.Helper()
	m, err := Parse(readFile(t, "testdata/small.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestParseRealSchema(t *testing.T) {
	data := readFile(t, "../schema/fsbox.schema.json")
	m, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	if want := "sha256:" + hex.EncodeToString(sum[:]); m.SchemaHash != want {
		t.Errorf("SchemaHash = %s, want %s", m.SchemaHash, want)
	}
	for i := 1; i < len(m.Types); i++ {
		if m.Types[i-1].Name >= m.Types[i].Name {
			t.Errorf("Types not sorted: %s before %s", m.Types[i-1].Name, m.Types[i].Name)
		}
	}
	if m.Tools[0].Name != "read_file" || m.Tools[0].Args.Name != "ReadFileArgs" || !m.Tools[0].ReadOnly || !m.Tools[0].Default {
		t.Errorf("first tool = %+v", m.Tools[0])
	}
	var event, call *Method
	for _, me := range m.Methods {
		switch me.Name {
		case "event":
			event = me
		case "tools/call":
			call = me
		}
	}
	if event == nil || !event.ParamsIsEvent || len(event.ParamsOneOf) != 9 || event.ParamsOneOf[0].Name != "FileReadEvent" ||
		!event.Notification || event.Direction != "server_to_client" {
		t.Errorf("event method = %+v", event)
	}
	if call == nil || !call.ResultIsTool || call.Params.Name != "ToolsCallParams" {
		t.Errorf("tools/call method = %+v", call)
	}
	if m.ErrorCodes["retry"] != -32001 {
		t.Errorf("ErrorCodes = %v", m.ErrorCodes)
	}
}

func TestParseSmallSchema(t *testing.T) {
	m := parseSmall(t)
	args := m.Type("EchoArgs")
	var names []string
	for _, f := range args.Fields {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, ","); got != "text,times,scale,loud,tags,id" {
		t.Errorf("fields out of schema order: %s", got)
	}
	if !args.Closed || !args.Field("text").Required || args.Field("times").Required {
		t.Errorf("EchoArgs closed/required wrong: %+v", args)
	}
	if min := args.Field("times").Type.Minimum; min == nil || *min != 1 {
		t.Errorf("times minimum = %v", min)
	}
	if mi := args.Field("tags").Type.MinItems; mi == nil || *mi != 1 {
		t.Errorf("tags minItems = %v", mi)
	}
	if k := args.Field("id").Type.Kind; k != RefAny {
		t.Errorf("id kind = %v", k)
	}
	if args.Field("text").Description != "Text to echo back.\nA second line of the description." {
		t.Errorf("description = %q", args.Field("text").Description)
	}
	res := m.Type("EchoResult")
	if r := res.Field("counts").Type; r.Kind != RefMap || r.Elem.Kind != RefInteger {
		t.Errorf("counts = %+v", r)
	}
	if r := res.Field("extra").Type; r.Kind != RefMap || r.Elem.Kind != RefAny {
		t.Errorf("extra = %+v", r)
	}
	if r := res.Field("parts").Type; r.Kind != RefArray || r.Elem.Named != m.Type("Part") {
		t.Errorf("parts = %+v", r)
	}
	if r := res.Field("mode").Type; strings.Join(r.Enum, ",") != "plain,loud" {
		t.Errorf("mode enum = %v", r.Enum)
	}
	if f := m.Type("EchoedEvent").Field("kind"); f.Const != "demo.echoed" || !f.Required {
		t.Errorf("event kind = %+v", f)
	}
	if k := m.Type("ErrorKind"); !k.IsEnum() || k.Fields != nil {
		t.Errorf("ErrorKind = %+v", k)
	}
	if m.Events[0].Type != m.Type("EchoedEvent") || m.ErrorKinds[1] != (ErrorKind{"broken", false, false, "Something broke."}) {
		t.Errorf("manifest = %+v %+v", m.Events, m.ErrorKinds)
	}
	if strings.Join(m.ReservedTools, ",") != "shout" {
		t.Errorf("ReservedTools = %v", m.ReservedTools)
	}
}

// TestParseRefuses edits the small schema one way each and wants Parse to refuse it with an error
// naming the JSON pointer of the offending value.
func TestParseRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, ptr string
		value     any // nil deletes the member
		want      string
	}{
		{"unknown keyword on a property", "/$defs/EchoArgs/properties/text/format", "uri",
			`/$defs/EchoArgs/properties/text/format: unsupported keyword "format"`},
		{"unknown keyword on a type", "/$defs/EchoArgs/oneOf", []any{}, `/$defs/EchoArgs/oneOf: unsupported keyword "oneOf"`},
		{"unknown root keyword", "/definitions", map[string]any{}, `/definitions: unsupported keyword`},
		{"other dialect", "/$schema", "http://json-schema.org/draft-07/schema#", `/$schema: dialect`},
		{"nullable type list", "/$defs/EchoArgs/properties/text/type", []any{"string", "null"}, `/$defs/EchoArgs/properties/text/type: want a string`},
		{"unknown type", "/$defs/EchoArgs/properties/text/type", "null", `type "null" is not supported`},
		{"inline object", "/$defs/EchoArgs/properties/text", map[string]any{"type": "object", "properties": map[string]any{}},
			`/$defs/EchoArgs/properties/text/properties: inline object types are not supported`},
		{"dangling ref", "/$defs/EchoResult/properties/first/$ref", "#/$defs/Nope", `$ref to undefined type "Nope"`},
		{"foreign ref", "/$defs/EchoResult/properties/first/$ref", "other.json#/Part", `is not of the form #/$defs/<Name>`},
		{"ref with siblings", "/$defs/EchoResult/properties/first/type", "object", `unsupported keyword "type"`},
		{"open params", "/$defs/EchoArgs/additionalProperties", true, `allows only additionalProperties: false`},
		{"required unknown property", "/$defs/EchoArgs/required", []any{"text", "nope"}, `/$defs/EchoArgs/required/1: required property "nope"`},
		{"optional const", "/$defs/EchoedEvent/required", []any{"text"}, `const property "kind" must be required`},
		{"non-string const", "/$defs/EchoedEvent/properties/kind/type", "integer", `const is supported on strings only`},
		{"empty enum", "/$defs/ErrorKind/enum", []any{}, `/$defs/ErrorKind/enum: empty enum`},
		{"repeated enum value", "/$defs/ErrorKind/enum", []any{"bad_text", "bad_text"}, `/$defs/ErrorKind/enum/1: "bad_text" repeats`},
		{"string type without enum", "/$defs/ErrorKind/enum", nil, `a named string type needs an enum`},
		{"other content encoding", "/$defs/Part/properties/raw/contentEncoding", "base32", `contentEncoding "base32" is not supported (only base64)`},
		{"bytes with an enum", "/$defs/Part/properties/raw/enum", []any{"AA=="}, `/$defs/Part/properties/raw/enum: unsupported keyword "enum"`},
		{"fractional minimum", "/$defs/EchoArgs/properties/times/minimum", 1.5, `/$defs/EchoArgs/properties/times/minimum: want an integer`},
		{"camelCase property", "/$defs/Part/properties/someValue", map[string]any{"type": "string"}, `property name "someValue" is not snake_case`},
		{"bad type name", "/$defs/part_two", map[string]any{"type": "object"}, `type name "part_two" is not PascalCase`},
		{"missing manifest", "/x-fsbox", nil, `/x-fsbox: missing`},
		{"unknown manifest member", "/x-fsbox/notifications", []any{}, `/x-fsbox/notifications: unsupported keyword`},
		{"tool with open arguments", "/$defs/EchoArgs/additionalProperties", nil, `/x-fsbox/tools/0/arguments: arguments type EchoArgs must have additionalProperties: false`},
		{"tool result enum", "/x-fsbox/tools/0/result", "#/$defs/ErrorKind", `/x-fsbox/tools/0/result: ErrorKind is an enum`},
		{"tool without read_only", "/x-fsbox/tools/0/read_only", nil, `/x-fsbox/tools/0/read_only: missing`},
		{"event kind mismatch", "/x-fsbox/events/0/kind", "demo.other", `/x-fsbox/events/0/type: type EchoedEvent has no kind property with const "demo.other"`},
		{"oneOf of non-events", "/x-fsbox/methods/2/params/oneOf/0/$ref", "#/$defs/Part", `Part is not an event type`},
		{"bad direction", "/x-fsbox/methods/0/direction", "both", `/x-fsbox/methods/0/direction: direction "both"`},
		{"error kinds differ from enum", "/x-fsbox/error_kinds/1/kind", "shattered", `the kinds differ from the enum of /$defs/ErrorKind`},
		{"fractional error code", "/x-fsbox/error_codes/retry", -32001.5, `/x-fsbox/error_codes/retry: want an integer`},
		{"reserved name reused", "/x-fsbox/reserved_tools", []any{"echo"}, `reserved tool name "echo"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := edit(t, readFile(t, "testdata/small.schema.json"), tc.ptr, tc.value)
			_, err := Parse(data)
			if err == nil {
				t.Fatalf("Parse accepted the schema with %s = %v", tc.ptr, tc.value)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "codegen: schema: /") {
				t.Errorf("error = %q\nwant it to contain %q", err, tc.want)
			}
		})
	}
}

func TestParseRefusesMalformedJSON(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{`[]`, "(root): want an object, have an array"},
		{`{"$schema": "a", "$schema": "b"}`, "/$schema: repeated key"},
		{`{"$defs": {}} {}`, "trailing data"},
		{`{"$defs": `, "/$defs: "},
	} {
		_, err := Parse([]byte(tc.data))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%s) = %v, want an error containing %q", tc.data, err, tc.want)
		}
	}
}

// edit sets (or, for a nil value, deletes) the member at the JSON pointer ptr of a JSON document.
func edit(t *testing.T, data []byte, ptr string, value any) []byte {
	t.Helper()
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(ptr, "/")[1:]
	node := doc
	for _, p := range parts[:len(parts)-1] {
		switch n := node.(type) {
		case map[string]any:
			node = n[p]
		case []any:
			i, _ := strconv.Atoi(p)
			node = n[i]
		}
	}
	last := parts[len(parts)-1]
	switch n := node.(type) {
	case map[string]any:
		if value == nil {
			delete(n, last)
		} else {
			n[last] = value
		}
	case []any:
		i, _ := strconv.Atoi(last)
		n[i] = value
	default:
		t.Fatalf("no object or array at the parent of %s", ptr)
	}
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
