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
	"strings"

	"github.com/hexops/gotextdiff"
	"github.com/hexops/gotextdiff/myers"
	"github.com/hexops/gotextdiff/span"

	"github.com/fsbox/fsbox/codegen"
)

func init() {
	register(subcommand{name: "gen", summary: "generate the typed clients from the schema bundle", run: runGen})
}

const genUsage = `Usage: fsbox gen [--lang LANG] [--out DIR] [--schema FILE] [--check]

Generate the typed clients (Go, Python, TypeScript) and the conformance adapters' dispatch
tables from the JSON Schema bundle. Paths are relative to --out, the repository root.

With --check nothing is written: every generated file is compared with the one on disk, a
unified diff is printed for each stale or missing file, and the exit status is 1 if any is.

Flags:
`

func runGen(args []string) int { return gen(args, os.Stdout) }

// gen is runGen with its output (file list, usage, diffs) going to stdout; errors go to stderr.
func gen(args []string, stdout io.Writer) int {
	fl := flag.NewFlagSet("gen", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	lang := fl.String("lang", "", "generate only this language ("+strings.Join(codegen.Languages(), ", ")+"); default all")
	out := fl.String("out", ".", "repository root the generated paths are relative to")
	schemaFile := fl.String("schema", "schema/fsbox.schema.json", "the schema bundle to read")
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
	langs := codegen.Languages()
	if *lang != "" {
		known := false
		for _, l := range langs {
			known = known || l == *lang
		}
		if !known {
			return usageErrorf("gen: unknown language %q; known: %s", *lang, strings.Join(langs, ", "))
		}
		langs = []string{*lang}
	}
	schemaJSON, err := os.ReadFile(*schemaFile)
	if err != nil {
		return errorf("gen: %v", err)
	}
	var files []codegen.File
	for _, l := range langs {
		generated, err := codegen.Generate(schemaJSON, l)
		if err != nil {
			return errorf("gen: %v", err)
		}
		files = append(files, generated...)
	}
	if *check {
		return checkGenerated(*out, files, stdout)
	}
	return writeGenerated(*out, files, stdout)
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
