package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"

	"github.com/fsbox/fsbox/schema"
)

func init() {
	register(subcommand{name: "version", summary: "print the version, protocol and schema hash", run: runVersion})
	register(subcommand{name: "schema", summary: "print the JSON Schema bundle of the protocol", run: runSchema})
}

func runVersion(args []string) int {
	fs := flag.NewFlagSet("fsbox version", flag.ContinueOnError)
	if err := fs.Parse(args); err != nil {
		return flagExit(err)
	}
	fmt.Printf("fsbox %s (protocol %s, schema %s, %s)\n", version, schema.ProtocolVersion, schema.Hash(), runtime.Version())
	return 0
}

func runSchema(args []string) int {
	fs := flag.NewFlagSet("fsbox schema", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: fsbox schema\n\nPrints the JSON Schema (draft 2020-12) bundle of every method, tool, result, event and config.")
	}
	if err := fs.Parse(args); err != nil {
		return flagExit(err)
	}
	if _, err := os.Stdout.Write(schema.Bundle); err != nil {
		return errorf("writing the schema: %v", err)
	}
	return 0
}

// flagExit maps a flag parsing error to an exit status: 0 for --help, 2 for a usage error (the flag
// package has already printed the message and usage).
func flagExit(err error) int {
	if err == flag.ErrHelp {
		return 0
	}
	return 2
}
