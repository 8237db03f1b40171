package schema

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestDecodeRefusesWhatEncodingJSONLetsThrough: every row is accepted by encoding/json (a typo
// dropped, a name folded, a duplicate resolved, null taken for a required string), which is how
// a policy typo failed open. Decode refuses each, naming the member by its path.
func TestDecodeRefusesWhatEncodingJSONLetsThrough(t *testing.T) {
	for _, c := range []struct {
		name, in string
		into     any
		want     DecodeError
	}{
		{"typo in config", `{"protocol_version":"1","config":{"denid":["secret.txt"]}}`, &InitializeParams{},
			DecodeError{Problem: ProblemUnknown, Path: "config.denid", Suggestion: "denied_patterns"}},
		{"wrong case", `{"NAME":"read_file","Arguments":{}}`, &ToolsCallParams{},
			DecodeError{Problem: ProblemUnknown, Path: "NAME", Suggestion: "name"}},
		{"Kelvin sign folds to k in encoding/json", `{"protocol_version":"1","config":{"\u212aax_read_lines":1}}`, &InitializeParams{},
			DecodeError{Problem: ProblemUnknown, Path: "config.\u212aax_read_lines", Suggestion: "max_read_lines"}},
		{"camelCase", `{"protocol_version":"1","config":{"rootDir":"/x"}}`, &InitializeParams{},
			DecodeError{Problem: ProblemUnknown, Path: "config.rootDir", Suggestion: "root_dir"}},
		{"unknown in capabilities", `{"protocol_version":"1","capabilities":{"telepathy":true}}`, &InitializeParams{},
			DecodeError{Problem: ProblemUnknown, Path: "capabilities.telepathy"}},
		{"duplicate", `{"name":"read_file","name":"write_file"}`, &ToolsCallParams{},
			DecodeError{Problem: ProblemDuplicate, Path: "name"}},
		{"string for argv", `{"post_edit":[{"path":"*.go","cmd":"gofmt -w ${file}"}]}`, &Config{},
			DecodeError{Problem: ProblemType, Path: "post_edit[0].cmd", Expected: "an array of strings", Got: "a string"}},
		{"string for bool", `{"read_only":"true"}`, &Config{},
			DecodeError{Problem: ProblemType, Path: "read_only", Expected: "a boolean", Got: "a string"}},
		{"fraction for integer", `{"max_read_lines":1.5}`, &Config{},
			DecodeError{Problem: ProblemType, Path: "max_read_lines", Expected: "an integer", Got: "a fractional number"}},
		{"huge integer", `{"max_read_lines":99999999999999999999}`, &Config{},
			DecodeError{Problem: ProblemType, Path: "max_read_lines", Expected: "an integer", Got: "a number out of range"}},
		{"element type", `{"denied_patterns":["a",2]}`, &Config{},
			DecodeError{Problem: ProblemType, Path: "denied_patterns[1]", Expected: "a string", Got: "a number"}},
		{"missing required", `{"permissions":[{"operations":["read"],"paths":["/x"]}]}`, &Config{},
			DecodeError{Problem: ProblemMissing, Path: "permissions[0].mode"}},
		{"null for required", `{"approve":null}`, &ChangeRequestResult{},
			DecodeError{Problem: ProblemType, Path: "approve", Expected: "a boolean", Got: "null"}},
		{"unknown in answer", `{"approve":true,"aprove":true}`, &ChangeRequestResult{},
			DecodeError{Problem: ProblemUnknown, Path: "aprove", Suggestion: "approve"}},
		{"cancel", `{"id":1,"reason":"x"}`, &CancelParams{},
			DecodeError{Problem: ProblemUnknown, Path: "reason"}},
		{"not an object", `[1]`, &Config{},
			DecodeError{Problem: ProblemType, Expected: "an object", Got: "an array"}},
		{"arguments not an object", `{"name":"x","arguments":[1]}`, &struct {
			Name      string    `json:"name"`
			Arguments RawObject `json:"arguments,omitempty"`
		}{}, DecodeError{Problem: ProblemType, Path: "arguments", Expected: "an object", Got: "an array"}},
		{"nested replacement", `{"path":"a","replacements":[{"old_text":"x","new_txt":"y"}]}`, &EditFileArgs{},
			DecodeError{Problem: ProblemUnknown, Path: "replacements[0].new_txt", Suggestion: "new_text"}},
		{"syntax", `{"name":`, &ToolsCallParams{}, DecodeError{Problem: ProblemSyntax}},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := Decode([]byte(c.in), c.into)
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("Decode(%s) = %v, want a *DecodeError", c.in, err)
			}
			got := *de
			got.Members = nil
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("Decode(%s) = %+v\nwant %+v", c.in, got, c.want)
			}
			for _, goish := range []string{"Go ", "[]string", "struct", "int64", "*int", "schema."} {
				if strings.Contains(de.Error(), goish) {
					t.Errorf("message %q speaks Go (%q)", de.Error(), goish)
				}
			}
		})
	}
}

func TestDecodeMessages(t *testing.T) {
	for in, want := range map[string]string{
		`{"protocol_version":"1","config":{"denid":[]}}`:           "unknown member `config.denid`; did you mean `denied_patterns`?",
		`{"protocol_version":"1","config":{"xyz":1}}`:              "unknown member `config.xyz`; the members are root_dir, cwd,",
		`{"protocol_version":"1","config":{"max_read_lines":"9"}}`: "`config.max_read_lines`: expected an integer, got a string",
	} {
		err := Decode([]byte(in), &InitializeParams{})
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Decode(%s) = %v, want %q…", in, err, want)
		}
	}
}

// TestDecodeAcceptsWhatTheBundleAllows: optional members may be absent or null, any value goes
// in an any, and the result is what encoding/json would decode.
func TestDecodeAccepts(t *testing.T) {
	var p InitializeParams
	in := `{"protocol_version":"1","client_info":null,"config":{"root_dir":"/r","max_read_lines":7,"denied_patterns":[],"post_edit":[{"path":"*.go","cmd":["gofmt","-w","${file}"],"timeout":null}]},"capabilities":{"events":true}}`
	if err := Decode([]byte(in), &p); err != nil {
		t.Fatal(err)
	}
	if p.Config == nil || *p.Config.MaxReadLines != 7 || p.Config.DeniedPatterns == nil || len(*p.Config.DeniedPatterns) != 0 ||
		!slices.Equal(p.Config.PostEdit[0].Cmd, []string{"gofmt", "-w", "${file}"}) || !p.Capabilities.Events {
		t.Fatalf("decoded %+v", p)
	}
	var c CancelParams
	if err := Decode([]byte(`{"id":{"any":["thing"]}}`), &c); err != nil {
		t.Fatal(err)
	}
	var r ChangeRequestResult
	if err := Decode([]byte(`{"approve":false,"decision":"edit","arguments":{"path":"x","PATH":"y"}}`), &r); err != nil {
		t.Fatal(err) // a map's names are data; the tool's own decode checks the arguments
	}
	var call struct {
		Name      string    `json:"name"`
		Arguments RawObject `json:"arguments,omitempty"`
	}
	if err := Decode([]byte(` {"name":"read_file","arguments":{"path":"a"}} `), &call); err != nil || string(call.Arguments) != `{"path":"a"}` {
		t.Fatalf("call = %+v, %v", call, err)
	}
}

// TestDecodedTypesMatchTheBundle: the Go types Decode checks against are the ones the bundle was
// generated from; this holds each closed definition of the bundle to its Go type, member names
// and required members alike, so the decoder and the published contract cannot drift apart.
func TestDecodedTypesMatchTheBundle(t *testing.T) {
	var bundle struct {
		Defs map[string]struct {
			Properties           map[string]json.RawMessage `json:"properties"`
			Required             []string                   `json:"required"`
			AdditionalProperties *bool                      `json:"additionalProperties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(Bundle, &bundle); err != nil {
		t.Fatal(err)
	}
	roots := []reflect.Type{reflect.TypeFor[ChangeRequestResult]()}
	for _, m := range Methods {
		if m.Direction == "client_to_server" && m.Params != nil {
			roots = append(roots, m.Params)
		}
	}
	for _, tool := range Tools {
		roots = append(roots, tool.Args)
	}
	seen := map[reflect.Type]bool{}
	var visit func(reflect.Type)
	visit = func(rt reflect.Type) {
		for rt.Kind() == reflect.Pointer || rt.Kind() == reflect.Slice || rt.Kind() == reflect.Map {
			rt = rt.Elem()
		}
		if rt.Kind() != reflect.Struct || seen[rt] {
			return
		}
		seen[rt] = true
		def, ok := bundle.Defs[rt.Name()]
		if !ok {
			t.Errorf("%s: no definition in the bundle", rt.Name())
			return
		}
		if def.AdditionalProperties == nil || *def.AdditionalProperties {
			t.Errorf("%s is decoded strictly but open in the bundle", rt.Name())
		}
		ti := infoOf(rt)
		var names, required []string
		for _, f := range ti.fields {
			names = append(names, f.name)
			if f.required {
				required = append(required, f.name)
			}
		}
		var want []string
		for n := range def.Properties {
			want = append(want, n)
		}
		slices.Sort(names)
		slices.Sort(want)
		slices.Sort(required)
		wantReq := slices.Sorted(slices.Values(def.Required))
		if !slices.Equal(names, want) {
			t.Errorf("%s: decoder members %v, bundle %v", rt.Name(), names, want)
		}
		if !slices.Equal(required, wantReq) {
			t.Errorf("%s: decoder requires %v, bundle %v", rt.Name(), required, wantReq)
		}
		for i := 0; i < rt.NumField(); i++ {
			visit(rt.Field(i).Type)
		}
	}
	for _, r := range roots {
		visit(r)
	}
	if len(seen) < 10 {
		t.Fatalf("only %d types checked", len(seen))
	}
}

func TestSuggest(t *testing.T) {
	names := []string{"root_dir", "cwd", "allowed_patterns", "denied_patterns", "protected_patterns", "max_read_lines", "read_only", "tools"}
	for typed, want := range map[string]string{
		"denid": "denied_patterns", "denied": "denied_patterns", "DENIED_PATTERNS": "denied_patterns",
		"deniedPatterns": "denied_patterns", "readonly": "read_only", "tool": "tools", "max_read_line": "max_read_lines",
		"root": "root_dir", "xyz": "", "mode": "", "c": "",
	} {
		if got := Suggest(typed, names); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", typed, got, want)
		}
	}
}

func BenchmarkDecodeCallEnvelope(b *testing.B) {
	in := []byte(`{"name":"read_file","arguments":{"path":"src/main.go","offset":10,"limit":50}}`)
	var call struct {
		Name      string    `json:"name"`
		Arguments RawObject `json:"arguments,omitempty"`
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := Decode(in, &call); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUnmarshalCallEnvelope(b *testing.B) {
	in := []byte(`{"name":"read_file","arguments":{"path":"src/main.go","offset":10,"limit":50}}`)
	var call struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := json.Unmarshal(in, &call); err != nil {
			b.Fatal(err)
		}
	}
}
