package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/fsbox/fsbox/server"
)

func init() {
	register(subcommand{name: "serve", summary: "serve the protocol on stdin/stdout", run: runServe})
}

func runServe(args []string) int {
	fs := flag.NewFlagSet("fsbox serve", flag.ContinueOnError)
	var cf configFlags
	cf.register(fs)
	maxBytes := fs.Int("max-message-bytes", 16<<20, "largest accepted request line, in `BYTES`")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: fsbox serve [--root DIR] [--config FILE] [flags]\n\n"+
			"Serves JSON-RPC 2.0, one message per line, on stdin/stdout until EOF or shutdown.\n"+
			"Logs go to stderr; nothing but protocol messages is ever written to stdout.\n\n"+
			"With --root, --config, --cwd, --tools or --read-only the host fixes the policy: the config\n"+
			"of initialize may then only narrow it (docs/protocol.md §3). Without any of them the\n"+
			"client configures everything.\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return flagExit(err)
	}
	if fs.NArg() > 0 {
		return usageErrorf("serve takes no arguments, got %q", fs.Arg(0))
	}
	if *maxBytes <= 0 {
		return usageErrorf("--max-message-bytes must be a positive integer, got %d", *maxBytes)
	}
	cfg, err := cf.load()
	if err != nil {
		return errorf("%v", err)
	}
	// Keep the real stdout for the protocol and point os.Stdout at stderr, so a stray print anywhere
	// in the process can never corrupt the stream.
	out := os.Stdout
	os.Stdout = os.Stderr

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv := server.New(server.Options{DefaultRoot: cf.root, Config: cfg, FixedPolicy: cf.fixed(), MaxMessageBytes: *maxBytes, Version: version,
		Logf: func(format string, args ...any) { fmt.Fprintf(os.Stderr, "fsbox: "+format+"\n", args...) }})
	if err := srv.Serve(ctx, os.Stdin, out); err != nil && ctx.Err() == nil {
		return errorf("%v", err)
	}
	return 0
}
