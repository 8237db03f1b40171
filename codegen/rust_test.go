package codegen

import (
	"os"
	"strings"
	"testing"
)

const (
	rustTypesPath    = rustSDKDir + "/types_gen.rs"
	rustClientPath   = rustSDKDir + "/client_gen.rs"
	rustDispatchPath = rustAdapterDir + "/dispatch_gen.rs"
)

func rustFiles(t *testing.T, schemaJSON []byte) map[string]string {
	t.Helper()
	files, err := Generate(schemaJSON, "rust")
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]string{}
	for _, f := range files {
		byPath[f.Path] = string(f.Data)
	}
	return byPath
}

func wantAll(t *testing.T, byPath map[string]string, cases []struct{ file, want string }) {
	t.Helper()
	for _, c := range cases {
		if !strings.Contains(byPath[c.file], c.want) {
			t.Errorf("%s lacks %q", c.file, c.want)
		}
	}
}

// TestRustShapes pins the mapping emitRust documents, on the small test schema.
func TestRustShapes(t *testing.T) {
	schemaJSON, err := os.ReadFile("testdata/small.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	wantAll(t, rustFiles(t, schemaJSON), []struct{ file, want string }{
		{rustTypesPath, "pub struct EchoArgs {\n"},
		{rustTypesPath, "    pub text: String,\n"}, // required: plain
		{rustTypesPath, "    #[serde(default, skip_serializing_if = \"Option::is_none\")]\n    pub times: Option<i64>,\n"}, // optional
		{rustTypesPath, "    pub scale: Option<f64>,\n"},
		{rustTypesPath, "    pub tags: Option<Vec<String>>,\n"},
		{rustTypesPath, "    pub id: Option<serde_json::Value>,\n"},                      // any value
		{rustTypesPath, "    pub counts: Option<BTreeMap<String, i64>>,\n"},              // typed map
		{rustTypesPath, "    pub extra: Option<BTreeMap<String, serde_json::Value>>,\n"}, // free-form object
		{rustTypesPath, "    pub first: Option<Part>,\n"},                                // named reference
		{rustTypesPath, "    #[serde(with = \"crate::base64::option\", default, skip_serializing_if = \"Option::is_none\")]\n    pub raw: Option<Vec<u8>>,\n"},
		{rustTypesPath, "#[serde(tag = \"kind\", rename = \"demo.echoed\")]\n"}, // the event's kind is its tag, not a field
		{rustTypesPath, "pub enum ErrorKind {\n"},
		{rustTypesPath, "            ErrorKind::BadText => true,\n"}, // retry, from x-fsbox.error_kinds
		{rustTypesPath, "            ErrorKind::Broken => false,\n"},
		{rustTypesPath, "            _ => ErrorKind::Other(s.to_string()),\n"}, // unknown kinds survive
		{rustTypesPath, "            \"demo.echoed\" => Event::Echoed(serde_json::from_value(v)?),\n"},
		{rustTypesPath, "pub const CODE_RETRY: i64 = -32001;\n"},
		{rustTypesPath, "    ToolInfo { name: \"echo\", read_only: true, default: true },\n"},
		{rustClientPath, "    pub fn echo(&self, args: &EchoArgs) -> Result<EchoResult, Error> {\n        self.call_typed(\"echo\", args)\n"},
		{rustDispatchPath, "        \"echo\" => Some(typed(c, args, Client::echo)),\n"},
	})
	if strings.Contains(rustFiles(t, schemaJSON)[rustTypesPath], "pub kind: String") {
		t.Error("an event struct has a kind field that could carry the wrong kind")
	}
}

// TestRustFollowsTheModel: a tool and an error kind added to the bundle appear as a method, an
// adapter entry and an enum variant with its retry flag, with no change to the emitter: the Rust
// output is generated from the model, not shaped by hand around today's tools.
func TestRustFollowsTheModel(t *testing.T) {
	schemaJSON := mutateSchema(t, func(root map[string]any) {
		x := root["x-fsbox"].(map[string]any)
		tools := x["tools"].([]any)
		shout := map[string]any{}
		for k, v := range tools[0].(map[string]any) {
			shout[k] = v
		}
		shout["name"], shout["read_only"] = "shout_twice", false
		x["tools"] = append(tools, shout)
		x["error_kinds"] = append(x["error_kinds"].([]any), map[string]any{"kind": "too_loud", "retry": true, "counts_as_retry": false, "description": "Quieter."})
		kind := root["$defs"].(map[string]any)["ErrorKind"].(map[string]any)
		kind["enum"] = append(kind["enum"].([]any), "too_loud")
	})
	wantAll(t, rustFiles(t, schemaJSON), []struct{ file, want string }{
		{rustClientPath, "    pub fn shout_twice(&self, args: &EchoArgs) -> Result<EchoResult, Error> {\n        self.call_typed(\"shout_twice\", args)\n"},
		{rustDispatchPath, "        \"shout_twice\" => Some(typed(c, args, Client::shout_twice)),\n"},
		{rustTypesPath, "    ToolInfo { name: \"shout_twice\", read_only: false, default: true },\n"},
		{rustTypesPath, "    TooLoud,\n"},
		{rustTypesPath, "            \"too_loud\" => ErrorKind::TooLoud,\n"},
		{rustTypesPath, "    pub fn retry(&self) -> bool {\n        match self {\n            ErrorKind::BadText => true,\n            ErrorKind::Broken => false,\n            ErrorKind::TooLoud => true,\n"},
		{rustTypesPath, "    pub fn counts_as_retry(&self) -> bool {\n        match self {\n            ErrorKind::BadText => true,\n            ErrorKind::Broken => false,\n            ErrorKind::TooLoud => false,\n"},
	})
}

// TestRustRealSchema: on the real bundle, a field named by a Rust keyword keeps its wire name, and
// every tool has a typed method.
func TestRustRealSchema(t *testing.T) {
	byPath := rustFiles(t, readFile(t, "../schema/fsbox.schema.json"))
	if !strings.Contains(byPath[rustTypesPath], "    #[serde(rename = \"type\")]\n    pub r#type: String,\n") {
		t.Error("DirEntry.type is not r#type renamed to \"type\"")
	}
	m, err := Parse(readFile(t, "../schema/fsbox.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range m.Tools {
		if !strings.Contains(byPath[rustClientPath], "    pub fn "+tool.Name+"(&self, args: &"+tool.Args.Name+") -> Result<"+tool.Result.Name+", Error> {") {
			t.Errorf("no typed method for %s", tool.Name)
		}
	}
}

// TestRustRefuses: what the Rust output cannot hold is refused with the place named, not
// emitted as a crate that does not compile.
func TestRustRefuses(t *testing.T) {
	defs := func(root map[string]any) map[string]any { return root["$defs"].(map[string]any) }
	for _, c := range []struct {
		name, want string
		edit       func(root map[string]any)
	}{
		{"type named like a hand-written item", "$defs/Client: Rust name Client collides", func(root map[string]any) {
			defs(root)["Client"] = map[string]any{"type": "object", "description": "x"}
		}},
		{"const outside an event kind", "$defs/EchoArgs/properties/mode: the Rust emitter supports const only", func(root map[string]any) {
			args := defs(root)["EchoArgs"].(map[string]any)
			args["properties"].(map[string]any)["mode"] = map[string]any{"type": "string", "const": "x"}
			args["required"] = append(args["required"].([]any), "mode")
		}},
		{"a type that contains itself", "$defs/Part/properties/next: a type that contains itself", func(root map[string]any) {
			defs(root)["Part"].(map[string]any)["properties"].(map[string]any)["next"] = map[string]any{"$ref": "#/$defs/Part"}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Generate(mutateSchema(t, c.edit), "rust")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want one mentioning %q", err, c.want)
			}
		})
	}
}
