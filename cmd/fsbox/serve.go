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
	"runtime/debug"
	"runtime/pprof"
	"sync"
	"syscall"
	"time"

	"github.com/fsbox/fsbox/schema"
	"github.com/fsbox/fsbox/server"
)

func init() {
	register(subcommand{name: "serve", summary: "serve the protocol on stdin/stdout", run: runServe})
}

func runServe(args []string) int {
	fs := flag.NewFlagSet("fsbox serve", flag.ContinueOnError)
	var cf configFlags
	cf.register(fs)
	var sb sandboxFlags
	sb.register(fs)
	var af auditFlags
	af.register(fs)
	maxBytes := fs.Int("max-message-bytes", 16<<20, "largest accepted request line, in `BYTES`")
	journalDir := fs.String("journal-dir", "", "keep the journal of checkpoints in `DIR` (outside the root), kept after exit so a restore can finish after a restart")
	maxInflight := fs.Int("max-inflight", 0, "requests at work at once (`N`; 0: twice the CPUs, 8 to 64); more wait in a bounded queue")
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
	if *maxInflight < 0 {
		return usageErrorf("--max-inflight must be 0 (the default) or a positive integer, got %d", *maxInflight)
	}
	cfg, err := cf.load()
	if err != nil {
		return errorf("%v", err)
	}
	if *journalDir != "" {
		abs, err := filepath.Abs(*journalDir)
		if err != nil {
			return usageErrorf("--journal-dir: %v", err)
		}
		if cfg.Journal == nil {
			cfg.Journal = &schema.JournalConfig{}
		}
		cfg.Journal.Dir = abs
	}
	if err := checkRoot(cfg.RootDir); err != nil {
		return usageErrorf("%v", err)
	}
	logf := func(format string, args ...any) { fmt.Fprintf(os.Stderr, "fsbox: "+format+"\n", args...) }
	// The log lies outside the root: opened before the process is confined.
	auditLog, code := af.openFor(cfg, logf)
	if code != 0 {
		return code
	}
	if auditLog != nil {
		defer auditLog.Close()
	}
	// The server confines itself (Landlock) once the session's engine has opened the root and
	// mounts, while answering initialize and before reading another request: the root may come
	// from initialize itself.
	if err := sb.apply(cfg); err != nil {
		return usageErrorf("%v", err)
	}
	// Keep the real stdout for the protocol and point os.Stdout at stderr, so a stray print anywhere
	// in the process can never corrupt the stream.
	out := os.Stdout
	os.Stdout = os.Stderr

	tuneGC()
	if stopProfile := startProfile(); stopProfile != nil {
		defer stopProfile()
	}
	ctx, stop := onSignal()
	defer stop()
	srv := server.New(server.Options{DefaultRoot: cf.root, Config: cfg, FixedPolicy: cf.fixed(), MaxMessageBytes: *maxBytes,
		MaxInFlight: *maxInflight, Version: version, ReleaseWhenIdle: idleRelease, Audit: auditLog, Logf: logf})
	if err := srv.Serve(ctx, os.Stdin, out); err != nil && ctx.Err() == nil {
		return errorf("%v", err)
	}
	return 0
}

// GC tuning of fsbox serve, unless GOGC or GOMEMLIMIT says otherwise. A call allocates a few
// times its reply (the file read, the text rendered, the encoded line) and keeps nothing, over a
// live heap of a few MB; at the default GOGC=100 the collector ran every few dozen calls and took
// a quarter of the CPU (bench/README.md). gcPercent makes it run a quarter as often; the soft
// memoryLimit makes it collect harder, whatever GOGC, before the process's Go memory passes it
// (the largest requests, 16 MiB lines, still fit); idleRelease gives the memory back once the
// server is idle, so an idle server stays small.
const (
	gcPercent   = 400
	memoryLimit = 96 << 20
	idleRelease = time.Second
)

func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
}

// startProfile writes a CPU profile of the whole session to $FSBOX_CPUPROFILE, if set, for
// profiling the server as a client drives it (bench/README.md). It returns the function that
// ends the profile, or nil. A session ended by a signal's grace timeout loses its profile.
func startProfile() func() {
	path := os.Getenv("FSBOX_CPUPROFILE")
	if path == "" {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fsbox: FSBOX_CPUPROFILE: %v\n", err)
		return nil
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintf(os.Stderr, "fsbox: FSBOX_CPUPROFILE: %v\n", err)
		f.Close()
		return nil
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}

// signalGrace is how long calls get to return after SIGTERM or SIGINT before the process exits
// regardless.
const signalGrace = 500 * time.Millisecond

// onSignal returns a context cancelled by the first SIGTERM or SIGINT, which cancels every call.
// A call that does not return within signalGrace (a loop that does not look at its context)
// does not keep the process alive: it exits with status 1 then, or at once on a second signal.
// What was written to stdout before stays written; a reply still queued is lost.
func onSignal() (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		var sig os.Signal
		select {
		case sig = <-sigs:
		case <-done:
			return
		}
		cancel()
		select {
		case <-time.After(signalGrace):
			fmt.Fprintf(os.Stderr, "fsbox: error: %v: calls still running %v later; exiting without them\n", sig, signalGrace)
		case sig = <-sigs:
			fmt.Fprintf(os.Stderr, "fsbox: error: second %v; exiting at once\n", sig)
		case <-done:
			return
		}
		os.Exit(1)
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			signal.Stop(sigs)
			close(done)
			cancel()
		})
	}
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
