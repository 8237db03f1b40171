package schema

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite fsbox.schema.json from the Go types")

// TestBundle fails when the committed bundle drifts from the Go types and their doc comments.
func TestBundle(t *testing.T) {
	got, err := Generate(".")
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("fsbox.schema.json", got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(got, Bundle) {
		t.Fatal("schema/fsbox.schema.json is stale; run: go test ./schema -run TestBundle -update")
	}
}

func TestDescriptorsInlineAndHideHashes(t *testing.T) {
	ds, err := Descriptors([]string{ToolEditFile, ToolReadFile}, false)
	if err != nil {
		t.Fatal(err)
	}
	if ds[0].Name != ToolEditFile || ds[1].Name != ToolReadFile {
		t.Fatalf("order = %s, %s; want edit_file, read_file", ds[0].Name, ds[1].Name)
	}
	b, _ := json.Marshal(ds)
	for _, bad := range []string{`"$ref"`, `"expected_hash"`, `"hash"`} {
		if bytes.Contains(b, []byte(bad)) {
			t.Errorf("descriptors contain %s: %s", bad, b)
		}
	}
	with, _ := Descriptors([]string{ToolWriteFile}, true)
	if _, ok := with[0].InputSchema["properties"].(map[string]any)["expected_hash"]; !ok {
		t.Error("write_file lost expected_hash with content hashes on")
	}
	if with[0].InputSchema["additionalProperties"] != false {
		t.Error("tool arguments must be closed")
	}
}

// TestDescriptorsHaveNoRefs: a tool descriptor is handed to model APIs and MCP clients as is, so
// every $ref is inlined, those with sibling keywords (a field's description) included.
func TestDescriptorsHaveNoRefs(t *testing.T) {
	var names []string
	for _, tool := range Tools {
		names = append(names, tool.Name)
	}
	descs, err := Descriptors(names, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range descs {
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), `"$ref"`) {
			t.Errorf("%s: descriptor still holds a $ref: %s", d.Name, b)
		}
	}
}
