package codegen

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var updatePython = flag.Bool("update-python", false, "rewrite codegen/testdata/python/*.golden from the Python emitter's output")

// TestPythonGolden compares the Python emitter's output for the small test schema with the golden
// files; go test ./codegen -run TestPythonGolden -update-python rewrites them.
func TestPythonGolden(t *testing.T) {
	schema, err := os.ReadFile("testdata/small.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	files, err := Generate(schema, "python")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{pyTypesPath: true, pyClientPath: true, pyDispatchPath: true}
	for _, f := range files {
		if !want[f.Path] {
			t.Errorf("unexpected file %s", f.Path)
			continue
		}
		delete(want, f.Path)
		golden := filepath.Join("testdata", "python", filepath.Base(f.Path)+".golden")
		if *updatePython {
			if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(golden, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		old, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run: go test ./codegen -run TestPythonGolden -update-python)", err)
		}
		if !bytes.Equal(old, f.Data) {
			t.Errorf("%s differs from %s (run: go test ./codegen -run TestPythonGolden -update-python, then review the diff)", f.Path, golden)
		}
	}
	for p := range want {
		t.Errorf("missing file %s", p)
	}
}

// TestPythonDeterministic checks that two runs give the same bytes: no map order leaks out.
func TestPythonDeterministic(t *testing.T) {
	schema, err := os.ReadFile("../schema/fsbox.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	first, err := Generate(schema, "python")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		again, err := Generate(schema, "python")
		if err != nil {
			t.Fatal(err)
		}
		for j := range first {
			if !bytes.Equal(first[j].Data, again[j].Data) {
				t.Fatalf("run %d: %s differs", i, first[j].Path)
			}
		}
	}
}

// TestPythonLineLength checks that the code generated from the real schema keeps to the SDK's
// line length, as ruff format would leave it.
func TestPythonLineLength(t *testing.T) {
	schema, err := os.ReadFile("../schema/fsbox.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	files, err := Generate(schema, "python")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		for i, line := range strings.Split(string(f.Data), "\n") {
			if i > 1 && len([]rune(line)) > pyMaxLine { // the two header lines carry the hash
				t.Errorf("%s:%d is %d characters long: %s", f.Path, i+1, len([]rune(line)), line)
			}
		}
	}
}

// TestPythonLongStrings checks that a description too long for one line is split into an
// implicit concatenation that keeps to the line length and spells the description exactly.
func TestPythonLongStrings(t *testing.T) {
	schema, err := os.ReadFile("testdata/small.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("The text cannot be echoed, because \"reasons\" apply here. ", 4)
	quoted, _ := json.Marshal(long)
	mutated := strings.Replace(string(schema), `"The text cannot be echoed."`, string(quoted), 1)
	files, err := Generate([]byte(mutated), "python")
	if err != nil {
		t.Fatal(err)
	}
	var src string
	for _, f := range files {
		if f.Path == pyTypesPath {
			src = string(f.Data)
		}
	}
	start := strings.Index(src, "description=(\n")
	if start < 0 {
		t.Fatalf("the long description was not split:\n%s", src)
	}
	end := strings.Index(src[start:], "),\n")
	var joined strings.Builder
	for _, line := range strings.Split(src[start:start+end], "\n")[1:] {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if len(line) > pyMaxLine-12 {
			t.Errorf("piece too long (%d): %s", len(line), line)
		}
		piece, err := strconv.Unquote(line)
		if err != nil {
			t.Fatalf("piece %s: %v", line, err)
		}
		joined.WriteString(piece)
	}
	if joined.String() != long {
		t.Errorf("pieces spell %q, want %q", joined.String(), long)
	}
}

// TestPythonRefuses feeds the emitter models it cannot render faithfully and checks that each is
// refused with an error naming the offending element.
func TestPythonRefuses(t *testing.T) {
	schema, err := os.ReadFile("testdata/small.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, old, new, want string
	}{
		{"tool named like a client member", `"name": "echo"`, `"name": "call"`, "tool call"},
		{"tool named like a keyword", `"name": "echo"`, `"name": "import"`, "tool import"},
		{"field shadowing a builtin", `"times": {`, `"int": {`, `field "int"`},
		{"type named like a package name", `Part`, `Client`, "type Client"},
		{"result without text", `"text": {
          "type": "string",
          "description": "Exactly what the model should see."
        },`, ``, "no required string field text"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mutated := strings.ReplaceAll(string(schema), c.old, c.new)
			if mutated == string(schema) {
				t.Fatalf("mutation %q did not apply", c.old)
			}
			if c.name == "result without text" {
				mutated = strings.Replace(mutated, `"required": [
        "text",
        "mode",`, `"required": [
        "mode",`, 1)
			}
			m, err := Parse([]byte(mutated))
			if err != nil {
				t.Fatalf("mutated schema does not parse: %v", err)
			}
			_, err = emitPython(m)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("emitPython error = %v, want one containing %q", err, c.want)
			}
		})
	}
}

// TestPythonKeywordField checks that a wire name which is a Python keyword gets a trailing
// underscore in Python while the wire keeps its name.
func TestPythonKeywordField(t *testing.T) {
	schema, err := os.ReadFile("testdata/small.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	mutated := strings.ReplaceAll(string(schema), `"loud": {`, `"from": {`)
	files, err := Generate([]byte(mutated), "python")
	if err != nil {
		t.Fatal(err)
	}
	src := map[string]string{}
	for _, f := range files {
		src[f.Path] = string(f.Data)
	}
	for path, want := range map[string][]string{
		pyTypesPath:    {`from_: bool | None = None`, `from_=_w.opt(data, "from", _w.boolean),`, `out["from"] = self.from_`},
		pyClientPath:   {`from_: bool | None = None,`, `from_=from_,`},
		pyDispatchPath: {`from_=args.from_,`},
	} {
		for _, w := range want {
			if !strings.Contains(src[path], w) {
				t.Errorf("%s lacks %q", path, w)
			}
		}
	}
}
