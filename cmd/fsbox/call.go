package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/fsbox/fsbox/engine"
	"github.com/fsbox/fsbox/schema"
)

func init() {
	register(subcommand{name: "call", summary: "run one tool call and print what the model would see", run: runCall})
}

const callUsage = `Usage: fsbox call TOOL [key=value ...] [--root DIR] [--json] [flags]

Runs one tool call in-process and prints the model-facing text (or, with --json, the whole
result object). Each key=value is one argument; a value is taken as a string when the tool's
schema says string, and as JSON otherwise (limit=5, paths='["a","b"]').

Without a tools list (--tools or a config file's tools), the tool named is enabled for the call,
opt-in tools included: "fsbox call delete path=x recursive=true" deletes. An opt-in tool that
changes files (delete, remove_directory, move_file) prints a note on stderr saying so.

Examples:
  fsbox call read_file path=README.md limit=20
  fsbox call search_files pattern='func main' path=cmd
  fsbox call find_files pattern='**/*_test.go' --json

Flags:`

func runCall(args []string) int {
	fs := flag.NewFlagSet("fsbox call", flag.ContinueOnError)
	var cf configFlags
	cf.register(fs)
	asJSON := fs.Bool("json", false, "print the JSON result object instead of its text")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), callUsage)
		fs.PrintDefaults()
	}
	// Flags may come before or after the tool and its arguments.
	var positional []string
	rest := args
	for len(rest) > 0 {
		if err := fs.Parse(rest); err != nil {
			return flagExit(err)
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(positional) == 0 {
		fs.Usage()
		return 2
	}
	tool := positional[0]
	if _, ok := schema.ToolByName(tool); !ok {
		return usageErrorf("unknown tool %q; tools: %s", tool, strings.Join(toolNames(), ", "))
	}
	callArgs, err := parseToolArgs(tool, positional[1:])
	if err != nil {
		return usageErrorf("%v", err)
	}
	cfg, err := cf.load()
	if err != nil {
		return errorf("%v", err)
	}
	if len(cfg.Tools) == 0 {
		// A person trying one tool should not first have to enable it; one that changes files
		// and is off by default is named, so enabling it is never silent.
		cfg.Tools = []string{tool}
		if spec, _ := schema.ToolByName(tool); !spec.Default && !spec.ReadOnly {
			fmt.Fprintf(os.Stderr, "fsbox: note: %s is an opt-in tool that changes files; fsbox call enabled it for this call "+
				"(give --tools or a config's tools to choose the tools)\n", tool)
		}
	}
	eng, err := engine.New(cfg, engine.Options{DefaultRoot: cf.root})
	if err != nil {
		return errorf("%v", describe(err))
	}
	defer eng.Close()
	res, err := eng.Call(context.Background(), tool, callArgs, engine.Hooks{})
	if err != nil {
		return errorf("%v", describe(err))
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return errorf("writing the result: %v", err)
		}
		return 0
	}
	var withText struct {
		Text string `json:"text"`
	}
	b, _ := json.Marshal(res)
	_ = json.Unmarshal(b, &withText)
	fmt.Print(withText.Text)
	if !strings.HasSuffix(withText.Text, "\n") {
		fmt.Println()
	}
	return 0
}

// describe renders an engine error as its model-facing message and kind.
func describe(err error) string {
	var ee *engine.Error
	if errors.As(err, &ee) {
		return fmt.Sprintf("%s (%s)", ee.Msg, ee.Kind)
	}
	return err.Error()
}

// parseToolArgs turns key=value words into the tool's JSON arguments, typed by its input schema.
func parseToolArgs(tool string, words []string) (json.RawMessage, error) {
	ds, err := schema.Descriptors([]string{tool}, true)
	if err != nil {
		return nil, err
	}
	props, _ := ds[0].InputSchema["properties"].(map[string]any)
	args := map[string]any{}
	for _, w := range words {
		key, value, ok := strings.Cut(w, "=")
		if !ok || key == "" {
			return nil, fmt.Errorf("argument %q is not key=value", w)
		}
		prop, known := props[key].(map[string]any)
		if !known {
			return nil, fmt.Errorf("%s has no argument %q", tool, key)
		}
		if prop["type"] == "string" {
			args[key] = value
			continue
		}
		var v any
		if err := json.Unmarshal([]byte(value), &v); err != nil {
			return nil, fmt.Errorf("argument %s: %q is not valid JSON (%v)", key, value, err)
		}
		args[key] = v
	}
	return json.Marshal(args)
}

func toolNames() []string {
	names := make([]string, 0, len(schema.Tools))
	for _, t := range schema.Tools {
		names = append(names, t.Name)
	}
	return names
}
