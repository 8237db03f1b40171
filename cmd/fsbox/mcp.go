package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsbox/fsbox/mcpserver"
)

func init() {
	register(subcommand{name: "mcp", summary: "serve the file tools as an MCP server (stdio, or streamable HTTP)", run: runMCP})
}

func runMCP(args []string) int {
	fs := flag.NewFlagSet("fsbox mcp", flag.ContinueOnError)
	var cf configFlags
	cf.register(fs)
	var sb sandboxFlags
	sb.register(fs)
	maxBytes := fs.Int("max-message-bytes", 16<<20, "largest accepted message line on stdio, in `BYTES`")
	changes := fs.String("changes", "ask", "what happens to a change: `ask|allow|refuse` (ask: elicit when the client can, else allow; "+
		"refuse: elicit when the client can, else refuse; an interrupt rule always needs an approval)")
	compat := fs.String("compat", "", "present another server's tools: `reference` (@modelcontextprotocol/server-filesystem's names and arguments)")
	httpAddr := fs.String("http", "", "serve streamable HTTP on `ADDR` (host:port, loopback only) instead of stdio")
	public := fs.Bool("http-allow-remote", false, "allow --http on a non-loopback address (no authentication: anyone who reaches it gets the tools)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: fsbox mcp [--root DIR] [--config FILE] [flags] [DIR]\n\n"+
			"Serves the file tools over the Model Context Protocol on stdin/stdout (or --http).\n"+
			"DIR, if given, is the root (as --root; the reference server's command-line shape).\n"+
			"Logs go to stderr; nothing but protocol messages is ever written to stdout.\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return flagExit(err)
	}
	switch {
	case fs.NArg() > 1:
		return usageErrorf("mcp serves one root directory, got %d; give one DIR (or --root)", fs.NArg())
	case fs.NArg() == 1 && cf.root != "":
		return usageErrorf("give the root as --root or as DIR, not both")
	case fs.NArg() == 1:
		cf.root = fs.Arg(0)
	}
	if *maxBytes <= 0 {
		return usageErrorf("--max-message-bytes must be a positive integer, got %d", *maxBytes)
	}
	cfg, err := cf.load()
	if err != nil {
		return errorf("%v", err)
	}
	// mcpserver.New opens the root and mounts, and the engine then confines the process
	// (Landlock), before the first message is read.
	if err := sb.apply(cfg); err != nil {
		return usageErrorf("%v", err)
	}
	logf := func(format string, args ...any) { fmt.Fprintf(os.Stderr, "fsbox: "+format+"\n", args...) }
	srv, err := mcpserver.New(mcpserver.Options{DefaultRoot: cf.root, Config: cfg, Changes: mcpserver.ChangePolicy(*changes),
		Compat: mcpserver.Compat(*compat), Version: version, Logf: logf})
	if err != nil {
		return usageErrorf("%v", err)
	}
	defer srv.Close()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *httpAddr != "" {
		return serveMCPHTTP(ctx, srv, *httpAddr, *public, logf)
	}
	// Keep the real stdout for the protocol and point os.Stdout at stderr, so a stray print anywhere
	// in the process can never corrupt the stream.
	out := os.Stdout
	os.Stdout = os.Stderr
	err = srv.Run(ctx, &mcp.IOTransport{Reader: os.Stdin, Writer: out, MaxLineLength: *maxBytes})
	if err != nil && ctx.Err() == nil && !errors.Is(err, mcp.ErrConnectionClosed) {
		return errorf("%v", err)
	}
	return 0
}

// serveMCPHTTP serves streamable HTTP on addr until ctx is done. A non-loopback address is
// refused unless allowRemote: the transport has no authentication of its own.
func serveMCPHTTP(ctx context.Context, srv *mcpserver.Server, addr string, allowRemote bool, logf func(string, ...any)) int {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return usageErrorf("--http %q: want host:port, e.g. 127.0.0.1:8765", addr)
	}
	if ip := net.ParseIP(host); !allowRemote && host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return usageErrorf("--http %q is not a loopback address; use 127.0.0.1 or [::1] (or add --http-allow-remote)", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return errorf("%v", err)
	}
	logf("serving MCP over streamable HTTP on http://%s/", ln.Addr())
	hs := &http.Server{Handler: srv.HTTPHandler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(shut)
	}()
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return errorf("%v", err)
	}
	return 0
}
