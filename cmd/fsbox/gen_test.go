package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/codegen"
)

const testSchema = "../../schema/fsbox.schema.json"

func runGenTest(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out strings.Builder
	code := gen(args, &out)
	return code, out.String()
}

func TestGenWritesThenChecks(t *testing.T) {
	dir := t.TempDir()
	code, out := runGenTest(t, "--schema", testSchema, "--out", dir)
	if code != 0 {
		t.Fatalf("gen exited %d:\n%s", code, out)
	}
	schemaJSON, err := os.ReadFile(testSchema)
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range codegen.Languages() {
		files, err := codegen.Generate(schemaJSON, lang)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if !strings.Contains(out, "wrote "+f.Path+"\n") {
				t.Errorf("output does not list %s", f.Path)
			}
			if b, err := os.ReadFile(filepath.Join(dir, f.Path)); err != nil || string(b) != string(f.Data) {
				t.Errorf("%s not written as generated: %v", f.Path, err)
			}
		}
	}
	// A second run changes nothing and says so by listing nothing.
	if code, out := runGenTest(t, "--schema", testSchema, "--out", dir); code != 0 || out != "" {
		t.Errorf("second run: exit %d, output %q", code, out)
	}
	if code, out := runGenTest(t, "--check", "--schema", testSchema, "--out", dir); code != 0 || out != "" {
		t.Errorf("--check on fresh files: exit %d, output %q", code, out)
	}

	stale := filepath.Join(dir, "sdks/go/fsboxclient/types_gen.go")
	b, _ := os.ReadFile(stale)
	if err := os.WriteFile(stale, []byte(strings.Replace(string(b), "KindStaleHash", "KindStale", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "sdks/go/fsboxclient/client_gen.go")); err != nil {
		t.Fatal(err)
	}
	code, out = runGenTest(t, "--check", "--schema", testSchema, "--out", dir)
	if code != 1 {
		t.Errorf("--check on stale files exited %d", code)
	}
	for _, want := range []string{
		"--- a/sdks/go/fsboxclient/types_gen.go\n+++ b/sdks/go/fsboxclient/types_gen.go\n",
		"\n-\tKindStale ErrorKind",
		"\n+\tKindStaleHash ErrorKind",
		"missing: sdks/go/fsboxclient/client_gen.go\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("--check output lacks %q:\n%s", want, out)
		}
	}
	// --check wrote nothing.
	if _, err := os.Stat(filepath.Join(dir, "sdks/go/fsboxclient/client_gen.go")); !os.IsNotExist(err) {
		t.Errorf("--check recreated a file: %v", err)
	}
}

func TestGenOneLanguage(t *testing.T) {
	dir := t.TempDir()
	if code, out := runGenTest(t, "--lang", "go", "--schema", testSchema, "--out", dir); code != 0 || strings.Contains(out, ".py") {
		t.Errorf("--lang go: exit %d, output %q", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "sdks/go/fsboxclient/types_gen.go")); err != nil {
		t.Error(err)
	}
}

func TestGenUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"--help"}, 0, "Usage: fsbox gen"},
		{[]string{"--lang", "cobol"}, 2, ""},
		{[]string{"extra"}, 2, ""},
		{[]string{"--bogus"}, 2, ""},
		{[]string{"--schema", "no/such/file.json"}, 1, ""},
	} {
		code, out := runGenTest(t, tc.args...)
		if code != tc.code || !strings.Contains(out, tc.out) {
			t.Errorf("gen %v: exit %d, output %q; want exit %d with %q", tc.args, code, out, tc.code, tc.out)
		}
	}
}

func TestGenRefusesBadSchema(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"$schema":"https://json-schema.org/draft/2020-12/schema","$defs":{"A":{"type":"object","patternProperties":{}}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if code, _ := runGenTest(t, "--schema", bad, "--out", dir); code != 1 {
		t.Errorf("gen on a bad schema exited %d", code)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("gen wrote files from a refused schema")
	}
}
