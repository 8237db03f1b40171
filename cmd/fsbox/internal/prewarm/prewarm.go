// Package prewarm starts, for fsbox serve, the one piece of work every session's initialize
// needs (server.Prewarm: the tool descriptors) while the rest of the process is still starting.
//
// Go initializes every linked package before main runs: for this binary several milliseconds,
// most of it in packages serve never uses (the conformance runner's JSON Schema validator, the
// code generator, the MCP SDK). Package initialization picks, among the packages whose imports
// are done, the first by import path, so this package, imported by main, runs its init before
// those and the goroutine it starts works on the second core meanwhile. It looks at os.Args
// because flags are not parsed yet; for any other subcommand it does nothing.
package prewarm

import (
	"os"

	"github.com/fsbox/fsbox/server"
)

func init() {
	if len(os.Args) > 1 && os.Args[1] == "serve" {
		go server.Prewarm()
	}
}
