package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hexops/gotextdiff"
	"github.com/hexops/gotextdiff/myers"
	"github.com/hexops/gotextdiff/span"

	"github.com/fsbox/fsbox/codegen"
	"github.com/fsbox/fsbox/schema"
)

func init() {
	register(subcommand{name: "gen", summary: "generate the typed clients from the schema bundle", run: runGen})
}

const genUsage = `Usage: fsbox gen [--lang LANG] [--out DIR] [--schema FILE] [--layout repo|package] [--check]

Generate the typed clients (Go, Python, TypeScript, Rust) and the conformance adapters' dispatch
tables from the JSON Schema bundle; in the repo layout without --lang, also the server's encoded
tool descriptors (schema/descriptors_gen.go).

Two layouts:
  repo     DIR (default .) is an fsbox checkout: the generated files go to their repository
           paths, and the bundle is DIR/schema/fsbox.schema.json. This is what the SDKs in the
           repository and CI's 'fsbox gen --check' use.
  package  DIR is any directory: --lang names one language and DIR receives a complete package
           of it (the generated files, the SDK's hand-written files and a manifest: go.mod,
           pyproject.toml, package.json or Cargo.toml), generated from the bundle embedded in this
           binary. This is how a project without the checkout gets an SDK matching its binary.
The default is repo when DIR's go.mod declares module github.com/fsbox/fsbox, else package.

--lang model prints the normalized model the generators work from, as JSON (to DIR/fsbox.model.json
with --out), for authors of an SDK in another language: see docs/sdk-authors.md.

With --check nothing is written: every generated file is compared with the one on disk, a
unified diff is printed for each stale or missing file, and the exit status is 1 if any is.

Flags:
`

// langModel is the --lang that prints the model instead of generating a client.
const langModel = "model"

func runGen(args []string) int { return gen(args, os.Stdout) }

// gen is runGen with its output (file list, usage, diffs) going to stdout; errors go to stderr.
func gen(args []string, stdout io.Writer) int {
	fl := flag.NewFlagSet("gen", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	lang := fl.String("lang", "", "generate only this language ("+strings.Join(codegen.Languages(), ", ")+"), or "+langModel+"; default all (repo layout)")
	out := fl.String("out", ".", "the checkout (repo layout) or the package directory (package layout)")
	schemaFile := fl.String("schema", "", "the schema bundle to read (default: the checkout's in the repo layout, this binary's own in the package layout)")
	layout := fl.String("layout", "", "repo or package (default: repo when --out is an fsbox checkout)")
	check := fl.Bool("check", false, "write nothing; print a diff and exit 1 if a generated file is stale")
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, genUsage)
			fl.SetOutput(stdout)
			fl.PrintDefaults()
			return 0
		}
		return usageErrorf("gen: %v (run 'fsbox gen --help')", err)
	}
	if fl.NArg() > 0 {
		return usageErrorf("gen: unexpected argument %q (run 'fsbox gen --help')", fl.Arg(0))
	}
	outSet := false
	fl.Visit(func(f *flag.Flag) { outSet = outSet || f.Name == "out" })
	langs := codegen.Languages()
	if *lang != "" && *lang != langModel && !slices.Contains(langs, *lang) {
		return usageErrorf("gen: unknown language %q; known: %s, %s", *lang, strings.Join(langs, ", "), langModel)
	}
	switch *layout {
	case "":
		*layout = "package"
		if isCheckout(*out) {
			*layout = "repo"
		}
	case "repo", "package":
	default:
		return usageErrorf("gen: --layout is repo or package, not %q", *layout)
	}
	if *layout == "package" && *lang == "" {
		return usageErrorf("gen: %s is not an fsbox checkout, so gen writes one package there: name its language with --lang (%s)", *out, strings.Join(langs, ", "))
	}
	schemaJSON, err := readBundle(*schemaFile, *layout, *out)
	if err != nil {
		return errorf("gen: %v", err)
	}
	if *lang == langModel {
		return genModel(schemaJSON, *out, outSet, *check, stdout)
	}
	if *lang != "" {
		langs = []string{*lang}
	}
	var files []codegen.File
	for _, l := range langs {
		generated, err := codegen.Generate(schemaJSON, l)
		if err != nil {
			return errorf("gen: %v", err)
		}
		if *layout == "package" {
			if generated, err = packageFiles(l, generated, schemaJSON); err != nil {
				return errorf("gen: %v", err)
			}
		}
		files = append(files, generated...)
	}
	if *layout == "repo" && *lang == "" {
		// The server's encoded tool descriptors (gen_descriptors.go): the checkout's, not a package's.
		d, err := genDescriptors(schemaJSON)
		if err != nil {
			return errorf("gen: %v", err)
		}
		files = append(files, d)
	}
	if *check {
		return checkGenerated(*out, files, stdout)
	}
	return writeGenerated(*out, files, stdout)
}

// isCheckout reports whether dir is the root of an fsbox checkout: its go.mod declares the module.
func isCheckout(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" && f[1] == "github.com/fsbox/fsbox" {
			return true
		}
	}
	return false
}

// readBundle reads the schema bundle: --schema when given, else the checkout's (repo layout, so
// a schema change is generated from before the binary is rebuilt) or the embedded one.
func readBundle(file, layout, out string) ([]byte, error) {
	switch {
	case file != "":
		return os.ReadFile(file)
	case layout == "repo":
		return os.ReadFile(filepath.Join(out, "schema", "fsbox.schema.json"))
	}
	return schema.Bundle, nil
}

// genModel prints the model as JSON, or writes it to out/fsbox.model.json (compared, with check).
func genModel(schemaJSON []byte, out string, outSet, check bool, stdout io.Writer) int {
	m, err := codegen.Parse(schemaJSON)
	if err != nil {
		return errorf("gen: %v", err)
	}
	doc, err := m.JSON()
	if err != nil {
		return errorf("gen: %v", err)
	}
	if !outSet {
		if check {
			return usageErrorf("gen: --check with --lang %s needs --out", langModel)
		}
		_, _ = stdout.Write(doc)
		return 0
	}
	files := []codegen.File{{Path: "fsbox.model.json", Data: doc}}
	if check {
		return checkGenerated(out, files, stdout)
	}
	return writeGenerated(out, files, stdout)
}

// writeGenerated writes each file that differs from what is on disk, so unchanged files keep their
// modification times.
func writeGenerated(root string, files []codegen.File, stdout io.Writer) int {
	for _, f := range files {
		path := filepath.Join(root, filepath.FromSlash(f.Path))
		if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, f.Data) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return errorf("gen: %v", err)
		}
		if err := os.WriteFile(path, f.Data, 0o644); err != nil {
			return errorf("gen: %v", err)
		}
		fmt.Fprintf(stdout, "wrote %s\n", f.Path)
	}
	return 0
}

// checkGenerated prints a unified diff (on disk → generated) for every stale or missing file.
func checkGenerated(root string, files []codegen.File, stdout io.Writer) int {
	stale := 0
	for _, f := range files {
		old, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f.Path)))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return errorf("gen: %v", err)
		}
		if bytes.Equal(old, f.Data) {
			continue
		}
		stale++
		if err != nil {
			fmt.Fprint(stdout, newFileDiff(f))
			continue
		}
		before, after := string(old), string(f.Data)
		edits := myers.ComputeEdits(span.URIFromPath(f.Path), before, after)
		fmt.Fprint(stdout, gotextdiff.ToUnified("a/"+f.Path, "b/"+f.Path, before, edits))
	}
	if stale > 0 {
		return errorf("gen: %d generated file(s) are stale; run: go run ./cmd/fsbox gen", stale)
	}
	return 0
}

// newFileDiff is the diff that creates f. gotextdiff gets the hunk header of an empty side wrong
// (-1 instead of -0,0), so it is written here.
func newFileDiff(f codegen.File) string {
	lines := strings.SplitAfter(string(f.Data), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n", f.Path, len(lines))
	for _, l := range lines {
		b.WriteString("+" + l)
	}
	if !strings.HasSuffix(string(f.Data), "\n") {
		b.WriteString("\n\\ No newline at end of file\n")
	}
	return b.String()
}
