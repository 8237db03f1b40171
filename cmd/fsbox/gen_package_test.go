package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/codegen"
	"github.com/fsbox/fsbox/schema"
)

// genInEmptyDir runs the built binary's `fsbox gen` with args in a fresh directory outside the
// checkout, with nothing of the checkout reachable (no --schema), and returns that directory.
func genInEmptyDir(t *testing.T, args ...string) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(fsboxBin, append([]string{"gen"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("fsbox gen %v in %s: %v\n%s", args, dir, err, out)
	}
	return dir
}

func runIn(t *testing.T, dir string, env []string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s in %s: %v\n%s", name, strings.Join(args, " "), dir, err, out)
	}
}

// TestGenPackageFromTheBinary: the released binary alone writes, into an empty directory outside
// the checkout, a package of each language that builds: go vet (which type-checks) for Go,
// cargo build for Rust, an import for Python, tsc for TypeScript when the checkout's TypeScript
// toolchain is installed.
func TestGenPackageFromTheBinary(t *testing.T) {
	t.Run("go", func(t *testing.T) {
		pkg := filepath.Join(genInEmptyDir(t, "--lang", "go", "--out", "fsboxclient"), "fsboxclient")
		for _, f := range []string{"go.mod", "client.go", "transport.go", "types_gen.go", "client_gen.go"} {
			if _, err := os.Stat(filepath.Join(pkg, f)); err != nil {
				t.Errorf("the package lacks %s", f)
			}
		}
		runIn(t, pkg, []string{"GOWORK=off", "GOFLAGS=-mod=mod"}, "go", "vet", ".")
	})
	t.Run("python", func(t *testing.T) {
		pkg := filepath.Join(genInEmptyDir(t, "--lang", "python", "--out", "py"), "py")
		runIn(t, pkg, []string{"PYTHONPATH=" + filepath.Join(pkg, "src")}, "python3", "-c",
			"import fsbox, sys; assert fsbox.SCHEMA_HASH == sys.argv[1], fsbox.SCHEMA_HASH; fsbox.Client; fsbox.ReadFileArgs", schema.Hash())
	})
	t.Run("rust", func(t *testing.T) {
		if _, err := exec.LookPath("cargo"); err != nil {
			t.Skip("cargo is not on PATH")
		}
		pkg := filepath.Join(genInEmptyDir(t, "--lang", "rust", "--out", "fsbox-rs"), "fsbox-rs")
		runIn(t, pkg, []string{"CARGO_TARGET_DIR=" + filepath.Join(os.TempDir(), "fsbox-cargo-target")}, "cargo", "build", "--quiet")
	})
	t.Run("typescript", func(t *testing.T) {
		modules, _ := filepath.Abs("../../sdks/typescript/node_modules")
		if _, err := os.Stat(filepath.Join(modules, ".bin", "tsc")); err != nil {
			t.Skip("the TypeScript SDK's toolchain is not installed (scripts/test-typescript.sh)")
		}
		pkg := filepath.Join(genInEmptyDir(t, "--lang", "typescript", "--out", "ts"), "ts")
		if err := os.Symlink(modules, filepath.Join(pkg, "node_modules")); err != nil {
			t.Fatal(err)
		}
		runIn(t, pkg, nil, filepath.Join(modules, ".bin", "tsc"), "-p", "tsconfig.json")
		if _, err := os.Stat(filepath.Join(pkg, "dist", "index.js")); err != nil {
			t.Error(err)
		}
	})
}

// TestGenPackageIsNotTheRepoLayout: outside a checkout the files land at the package root, never
// at repository paths, and the adapters' dispatch tables are not part of a package.
func TestGenPackageIsNotTheRepoLayout(t *testing.T) {
	dir := genInEmptyDir(t, "--lang", "rust", "--out", ".")
	var got []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			got = append(got, filepath.ToSlash(rel))
		}
		return err
	})
	want := []string{"Cargo.toml", "README.md", "src/base64.rs", "src/client.rs", "src/client_gen.rs", "src/error.rs", "src/lib.rs", "src/types_gen.rs"}
	if !slices.Equal(got, want) {
		t.Errorf("files: %v, want %v", got, want)
	}
	// --check compares the package, too.
	cmd := exec.Command(fsboxBin, "gen", "--check", "--lang", "rust", "--out", ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("--check on a fresh package: %v\n%s", err, out)
	}
}

// TestGenModelJSON: --lang model prints the model the emitters work from, every reference by a
// name the document defines, with every type, tool, method, event and error kind of the bundle.
func TestGenModelJSON(t *testing.T) {
	cmd := exec.Command(fsboxBin, "gen", "--lang", "model")
	cmd.Dir = t.TempDir()
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		ModelVersion int    `json:"model_version"`
		SchemaHash   string `json:"schema_hash"`
		Types        []struct {
			Name, Kind string
			Fields     []struct {
				Name     string
				Required bool
				Type     json.RawMessage
			}
			Values []string
		}
		Tools []struct {
			Name, Arguments, Result string
			ReadOnly                bool `json:"read_only"`
		}
		Methods    []struct{ Name string }
		Events     []struct{ Kind, Type string }
		ErrorKinds []struct {
			Kind  string
			Retry bool
		} `json:"error_kinds"`
		ErrorCodes map[string]int `json:"error_codes"`
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(out, &members); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range members {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	// The members docs/sdk-authors.md documents, no more and no fewer.
	documented := []string{"description", "error_codes", "error_kinds", "events", "methods", "model_version", "protocol_version", "reserved_tools", "schema_hash", "title", "tools", "types"}
	if !slices.Equal(keys, documented) {
		t.Errorf("model members %v, documented %v", keys, documented)
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("the model JSON does not have the documented shape: %v", err)
	}
	m, err := codegen.Parse(schema.Bundle)
	if err != nil {
		t.Fatal(err)
	}
	if doc.ModelVersion != codegen.ModelVersion || doc.SchemaHash != schema.Hash() {
		t.Errorf("model_version %d, schema_hash %s", doc.ModelVersion, doc.SchemaHash)
	}
	if len(doc.Types) != len(m.Types) || len(doc.Tools) != len(m.Tools) || len(doc.Methods) != len(m.Methods) ||
		len(doc.Events) != len(m.Events) || len(doc.ErrorKinds) != len(m.ErrorKinds) || len(doc.ErrorCodes) != len(m.ErrorCodes) {
		t.Fatalf("the model JSON leaves something out: %d types, %d tools, %d methods, %d events, %d kinds, %d codes",
			len(doc.Types), len(doc.Tools), len(doc.Methods), len(doc.Events), len(doc.ErrorKinds), len(doc.ErrorCodes))
	}
	defined := map[string]bool{}
	for _, ty := range doc.Types {
		defined[ty.Name] = true
	}
	var refs func(raw json.RawMessage, where string)
	refs = func(raw json.RawMessage, where string) {
		var r struct {
			Kind, Name string
			Elem       json.RawMessage
		}
		if err := json.Unmarshal(raw, &r); err != nil || r.Kind == "" {
			t.Errorf("%s: type %s", where, raw)
			return
		}
		if r.Kind == "named" && !defined[r.Name] {
			t.Errorf("%s: refers to undefined %q", where, r.Name)
		}
		if r.Elem != nil {
			refs(r.Elem, where+"[]")
		}
	}
	for i, ty := range doc.Types {
		if ty.Name != m.Types[i].Name || len(ty.Fields) != len(m.Types[i].Fields) || len(ty.Values) != len(m.Types[i].Enum) {
			t.Errorf("type %s differs from the model", ty.Name)
		}
		for _, f := range ty.Fields {
			refs(f.Type, ty.Name+"."+f.Name)
		}
	}
	for i, tool := range doc.Tools {
		if !defined[tool.Arguments] || !defined[tool.Result] || tool.ReadOnly != m.Tools[i].ReadOnly {
			t.Errorf("tool %s: %+v", tool.Name, tool)
		}
	}
	for i, k := range doc.ErrorKinds {
		if k.Kind != m.ErrorKinds[i].Kind || k.Retry != m.ErrorKinds[i].Retry {
			t.Errorf("error kind %d: %+v", i, k)
		}
	}
}

// TestGenDefaultLayout: in a checkout the default is the repository layout CI checks; anywhere
// else, a package.
func TestGenDefaultLayout(t *testing.T) {
	if !isCheckout("../..") || isCheckout(".") || isCheckout(t.TempDir()) {
		t.Error("isCheckout misjudges the checkout root, a package directory or an empty directory")
	}
	code, out := runGenTest(t, "--check", "--out", "../..")
	if code != 0 {
		t.Errorf("gen --check at the checkout root: exit %d\n%s", code, out)
	}
}
