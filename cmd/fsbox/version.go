package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"

	"github.com/fsbox/fsbox/schema"
)

func init() {
	register(subcommand{name: "version", summary: "print the version, commit, protocol and schema hash", run: runVersion})
	register(subcommand{name: "schema", summary: "print the JSON Schema bundle of the protocol", run: runSchema})
}

// commit is the source revision the binary was built from. scripts/package sets it with
// -ldflags "-X main.commit=…"; empty, it is read from the build's VCS stamp (go build in a git
// checkout), else "unknown".
var commit = ""

// buildCommit is the commit to report. Precedence:
//
//  1. main.commit set at link time;
//  2. vcs.revision from the build info, shortened to 12 digits, with "-dirty" when vcs.modified;
//  3. "unknown" (go run, -buildvcs=false, or a build outside a checkout).
func buildCommit() string {
	if commit != "" {
		return commit
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev == "" {
		return "unknown"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	return rev + dirty
}

// versionLines is what `fsbox version` and `fsbox --version` print: the release on the first
// line, then one "key: value" line per fact, so scripts can grep for schema_hash.
func versionLines() string {
	return fmt.Sprintf("fsbox %s\ncommit: %s\nprotocol: %s\nschema_hash: %s\ngo: %s %s/%s\n",
		version, buildCommit(), schema.ProtocolVersion, schema.Hash(), runtime.Version(), runtime.GOOS, runtime.GOARCH) + sandboxVersionLine()
}

func runVersion(args []string) int {
	fs := flag.NewFlagSet("fsbox version", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: fsbox version (or fsbox --version)\n\nPrints the release, the commit it was built from, the protocol version and the schema_hash\nthe binary answers initialize with.")
	}
	if err := fs.Parse(args); err != nil {
		return flagExit(err)
	}
	if fs.NArg() > 0 {
		return usageErrorf("version takes no arguments, got %q", fs.Arg(0))
	}
	fmt.Print(versionLines())
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
