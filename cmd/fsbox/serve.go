package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
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
			"Logs go to stderr; nothing but protocol messages is ever written to stdout.\n\nFlags:")
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
	if err := checkRoot(cfg.RootDir); err != nil {
		return usageErrorf("%v", err)
	}
	// Keep the real stdout for the protocol and point os.Stdout at stderr, so a stray print anywhere
	// in the process can never corrupt the stream.
	out := os.Stdout
	os.Stdout = os.Stderr

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv := server.New(server.Options{DefaultRoot: cf.root, Config: cfg, MaxMessageBytes: *maxBytes, Version: version,
		Logf: func(format string, args ...any) { fmt.Fprintf(os.Stderr, "fsbox: "+format+"\n", args...) }})
	if err := srv.Serve(ctx, os.Stdin, out); err != nil && ctx.Err() == nil {
		return errorf("%v", err)
	}
	return 0
}

// checkRoot refuses, before anything is served, a root given by --root or --config that is not an
// existing directory: the mistake is reported once on stderr with exit status 2, instead of as an
// error at every initialize. An empty root (the working directory, or one a client will send in
// initialize) is not checked here. The check does not protect against the root changing later:
// the session resolves it again at initialize.
func checkRoot(root string) error {
	if root == "" {
		return nil
	}
	fi, err := os.Stat(root)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("serve %s: root directory does not exist; create it or pass an existing --root", root)
	case err != nil:
		return fmt.Errorf("serve %s: cannot use as root: %v", root, unwrapPathError(err))
	case !fi.IsDir():
		return fmt.Errorf("serve %s: root is a file, not a directory; pass its parent directory (--root %s) or another directory", root, filepath.Dir(root))
	}
	return nil
}

// unwrapPathError drops the *PathError's own "op path:" prefix, which checkRoot already says.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
