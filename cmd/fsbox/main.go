// Command fsbox serves sandboxed file tools over JSON-RPC 2.0 on stdio, and carries the tools around
// that server: one-off calls, the schema bundle, the code generator and the conformance suite.
//
// Usage:
//
//	fsbox serve [--root DIR] [--config FILE] [flags]   serve the protocol on stdin/stdout
//	fsbox mcp [--root DIR] [--compat reference] [DIR]  serve the tools as an MCP server (stdio or --http)
//	fsbox call TOOL [key=value ...] [--root DIR] [--json]   run one tool call and print its result
//	fsbox schema                                       print the JSON Schema bundle
//	fsbox version                                      print version, commit and schema hash (also --version)
//
// Every subcommand takes --help. Errors are printed as "fsbox: error: …" with a non-zero exit:
// 1 for a failure at run time, 2 for a usage error.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// version is the fsbox release. It is the one version of the repository: the Python and
// TypeScript packages carry the same string (TestVersionsAgree), and scripts/package stamps it into
// every artifact.
var version = "0.1.0"

// subcommand is one verb of the CLI. Files that own a verb register it from init.
type subcommand struct {
	name    string
	summary string
	run     func(args []string) int
}

var subcommands = map[string]subcommand{}

func register(c subcommand) {
	if _, dup := subcommands[c.name]; dup {
		panic("fsbox: subcommand registered twice: " + c.name)
	}
	subcommands[c.name] = c
}

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(os.Stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	if args[0] == "--version" || args[0] == "-version" {
		args[0] = "version"
	}
	c, ok := subcommands[args[0]]
	if !ok {
		fmt.Fprintf(os.Stderr, "fsbox: error: unknown command %q\n", args[0])
		fmt.Fprintln(os.Stderr, "fsbox: hint: run 'fsbox --help' for the list of commands")
		return 2
	}
	return c.run(args[1:])
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "fsbox serves sandboxed file tools to agents over JSON-RPC 2.0 on stdio.")
	fmt.Fprintln(w, "\nUsage: fsbox COMMAND [flags]\n\nCommands:")
	names := make([]string, 0, len(subcommands))
	for n := range subcommands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, subcommands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'fsbox COMMAND --help' for a command's flags. Example:")
	fmt.Fprintln(w, "  fsbox call read_file path=README.md limit=20")
}

// errorf prints an error in the CLI's one format and returns exit status 1.
func errorf(format string, args ...any) int {
	msg := fmt.Sprintf(format, args...)
	fmt.Fprintln(os.Stderr, "fsbox: error: "+strings.TrimSpace(msg))
	return 1
}

// usageErrorf prints a usage error and returns exit status 2.
func usageErrorf(format string, args ...any) int {
	errorf(format, args...)
	return 2
}
