package codegen

import (
	"bytes"
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/dave/jennifer/jen"
)

var updateGo = flag.Bool("update-go", false, "rewrite codegen/testdata/go/*.golden from the Go emitter's output")

// TestGoGolden compares the Go emitter's output on the small test schema with the golden files.
// After an intended change: go test ./codegen -run TestGoGolden -update-go, and review the diff.
func TestGoGolden(t *testing.T) {
	files, err := Generate(readFile(t, "testdata/small.schema.json"), "go")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		golden := filepath.Join("testdata", "go", path.Base(f.Path)+".golden")
		names = append(names, path.Base(f.Path))
		if *updateGo {
			if err := os.WriteFile(golden, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run: go test ./codegen -run TestGoGolden -update-go)", err)
		}
		if !bytes.Equal(f.Data, want) {
			t.Errorf("%s differs from %s; run: go test ./codegen -run TestGoGolden -update-go, and review the diff", f.Path, golden)
		}
	}
	if got := strings.Join(names, ","); got != "dispatch_gen.go,client_gen.go,types_gen.go" {
		t.Errorf("files = %s", got)
	}
}

// TestGoOutputIsGeneratedCode checks what tools look for in every Go file the emitter writes: the
// generated-code marker (go/ast.IsGenerated) and source that parses.
func TestGoOutputIsGeneratedCode(t *testing.T) {
	for _, in := range []string{"../schema/fsbox.schema.json", "testdata/small.schema.json"} {
		files, err := Generate(readFile(t, in), "go")
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			parsed, err := parser.ParseFile(token.NewFileSet(), f.Path, f.Data, parser.ParseComments)
			if err != nil {
				t.Fatalf("%s: %v", f.Path, err)
			}
			if !ast.IsGenerated(parsed) {
				t.Errorf("%s: go/ast.IsGenerated is false", f.Path)
			}
		}
	}
}

// TestGoTablesUsed fails on an override in tables.go the real schema no longer needs.
func TestGoTablesUsed(t *testing.T) {
	m, err := Parse(readFile(t, "../schema/fsbox.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := newGoEmitter(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, out := range []func() (*jen.File, error){g.typesFile, g.clientFile, g.dispatchFile} {
		if _, err := out(); err != nil {
			t.Fatal(err)
		}
	}
	if unused := g.unusedTables(); len(unused) > 0 {
		t.Errorf("unused entries in codegen/tables.go: %s", strings.Join(unused, ", "))
	}
}

func TestGoNames(t *testing.T) {
	g := &goEmitter{used: map[string]bool{}}
	for wire, want := range map[string]string{
		"read_file":             "ReadFile",
		"id":                    "ID",
		"io_error":              "IOError",
		"$/cancel_request":      "CancelRequest",
		"tools/list":            "ToolsList",
		"file_system.file_read": "FileSystemFileRead",
		"max_read_lines":        "MaxReadLines",
		"read_multiple_files":   "ReadMultipleFiles",
		"parent_not_directory":  "ParentNotDirectory",
		"directory_tree":        "DirectoryTree",
	} {
		if got := g.ident(wire); got != want {
			t.Errorf("ident(%q) = %q, want %q", wire, got, want)
		}
	}
	if got := g.typeName(&Type{Name: "ReadFileArgs"}); got != "ReadFileParams" {
		t.Errorf("typeName(ReadFileArgs) = %s", got)
	}
}

// TestGoRefuses covers schemas the Go emitter cannot map faithfully: it must say so, not emit code
// that does not compile or means something else.
func TestGoRefuses(t *testing.T) {
	small := readFile(t, "testdata/small.schema.json")
	for _, tc := range []struct {
		name, ptr string
		value     any
		want      string
	}{
		{"type named like hand-written code", "/$defs/Client", map[string]any{"type": "object"},
			"$defs/Client: Go name Client collides with a hand-written declaration"},
		{"two types one Go name", "/$defs/EchoParams", map[string]any{"type": "object"},
			"$defs/EchoParams: Go name EchoParams collides with $defs/EchoArgs"},
		{"tool named like a client method", "/x-fsbox/tools/0/name", "close",
			"tool close: method name Close collides with a hand-written method of Client"},
		{"enum value not an identifier", "/$defs/Mode", map[string]any{"type": "string", "enum": []any{"half-on"}},
			`$defs/Mode value "half-on": "ModeHalf-on" is not an exported Go identifier`},
		{"enum constant like a type", "/$defs/KindBroken", map[string]any{"type": "object"},
			`$defs/ErrorKind value "broken": Go name KindBroken collides with $defs/KindBroken`},
		{"field named like an event method", "/$defs/EchoedEvent/properties/event_kind", map[string]any{"type": "string"},
			"$defs/EchoedEvent/properties/event_kind: Go field name EventKind collides with another field or method of EchoedEvent"},
		{"const outside an event", "/$defs/Part/properties/tag", map[string]any{"type": "string", "const": "x"},
			"$defs/Part/properties/tag: the Go emitter supports const only as the kind of an event"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := edit(t, small, tc.ptr, tc.value)
			if strings.Contains(tc.ptr, "/properties/tag") {
				data = edit(t, data, "/$defs/Part/required", []any{"value", "tag"})
			}
			_, err := Generate(data, "go")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v\nwant it to contain %q", err, tc.want)
			}
		})
	}
	noKinds := edit(t, edit(t, small, "/$defs/ErrorKind", nil), "/$defs/Part/properties/kind", nil)
	if _, err := Generate(noKinds, "go"); err == nil || !strings.Contains(err.Error(), "needs a string enum $defs/ErrorKind") {
		t.Errorf("without ErrorKind: err = %v", err)
	}
}

func TestGoComment(t *testing.T) {
	long := strings.Repeat("word ", 30) + "end"
	got := goComment("First line.\n" + long)
	for _, line := range strings.Split(got, "\n") {
		if !strings.HasPrefix(line, "//") || len(line) > 103 || strings.HasSuffix(line, " ") {
			t.Errorf("bad comment line %q", line)
		}
	}
	if !strings.HasPrefix(got, "// First line.\n// word word") || !strings.HasSuffix(got, " end") {
		t.Errorf("goComment = %q", got)
	}
}

// TestGoHandWrittenNames keeps goHandWritten and goClientMethods equal to what the hand-written
// files of the SDK declare, so the collision checks guard the real names.
func TestGoHandWrittenNames(t *testing.T) {
	files, err := filepath.Glob("../" + goSDKDir + "/*.go")
	if err != nil {
		t.Fatal(err)
	}
	var decls, methods []string
	for _, path := range files {
		if strings.HasSuffix(path, "_gen.go") || strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv == nil {
					decls = append(decls, d.Name.Name)
				} else if star, ok := d.Recv.List[0].Type.(*ast.StarExpr); ok && star.X.(*ast.Ident).Name == "Client" {
					methods = append(methods, d.Name.Name)
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch spec := spec.(type) {
					case *ast.TypeSpec:
						if spec.Name.IsExported() {
							decls = append(decls, spec.Name.Name)
						}
					case *ast.ValueSpec:
						for _, n := range spec.Names {
							if n.IsExported() {
								decls = append(decls, n.Name)
							}
						}
					}
				}
			}
		}
	}
	sort.Strings(decls)
	sort.Strings(methods)
	if got, want := strings.Join(decls, ","), strings.Join(goHandWritten, ","); got != want {
		t.Errorf("hand-written declarations: %s\ngoHandWritten:               %s", got, want)
	}
	if got, want := strings.Join(methods, ","), strings.Join(goClientMethods, ","); got != want {
		t.Errorf("hand-written Client methods: %s\ngoClientMethods:             %s", got, want)
	}
}

// TestGoSmallOutputCompiles builds the emitter's output for the small schema, which uses every
// construct the model accepts, in a scratch module with stand-ins for the hand-written code. (The
// real schema's output is compiled as the SDK itself.)
func TestGoSmallOutputCompiles(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH")
	}
	files, err := Generate(readFile(t, "testdata/small.schema.json"), "go")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, content string) {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range files {
		write(f.Path, string(f.Data))
	}
	write("go.mod", "module github.com/fsbox/fsbox\n\ngo 1.26\n")
	write(goSDKDir+"/stub.go", `package fsboxclient

import "context"

type Client struct{}

func (c *Client) callTool(ctx context.Context, name string, args, result any) error { return nil }

var _ = []any{methodInitialize, methodToolsCall, methodEvent, retryKinds}
`)
	write(goAdapterDir+"/stub.go", `package main

import (
	"context"
	"encoding/json"

	"github.com/fsbox/fsbox/sdks/go/fsboxclient"
)

type handler func(context.Context, *fsboxclient.Client, json.RawMessage) (any, error)

func typed[P, R any](func(*fsboxclient.Client, context.Context, P) (*R, error)) handler { return nil }

func main() { _ = dispatch }
`)
	cmd := exec.Command(goTool, "vet", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOPROXY=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("go vet of the generated code failed: %v\n%s", err, out)
	}
}
