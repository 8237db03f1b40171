package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/net/netutil"

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
	var af auditFlags
	af.register(fs)
	maxBytes := fs.Int("max-message-bytes", mcpserver.DefaultMaxMessageBytes, "largest accepted message, in `BYTES`: a longer stdio line is answered with -32600 "+
		"and skipped, a longer HTTP body with 413")
	changes := fs.String("changes", "ask", "what happens to a change: `ask|allow|refuse` (ask: elicit when the client can, else allow; "+
		"refuse: elicit when the client can, else refuse; an interrupt rule always needs an approval)")
	compat := fs.String("compat", "", "present another server's tools: `reference` (@modelcontextprotocol/server-filesystem's names and arguments)")
	httpAddr := fs.String("http", "", "serve streamable HTTP on `ADDR` (host:port, loopback only) instead of stdio")
	public := fs.Bool("http-allow-remote", false, "allow --http on a non-loopback address (plain HTTP, no TLS: anyone on the path sees the token and the files)")
	var ho httpFlags
	ho.register(fs)
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
	if err := ho.check(fs, *httpAddr); err != nil {
		return usageErrorf("%v", err)
	}
	cfg, err := cf.load()
	if err != nil {
		return errorf("%v", err)
	}
	// The host's token file lies outside the root: read it before the process is confined.
	var tok, shownTok string
	if *httpAddr != "" {
		if tok, shownTok, err = ho.token(); err != nil {
			return usageErrorf("%v", err)
		}
	}
	// mcpserver.New opens the root and mounts, and the engine then confines the process
	// (Landlock), before the first message is read.
	if err := sb.apply(cfg); err != nil {
		return usageErrorf("%v", err)
	}
	logf := func(format string, args ...any) { fmt.Fprintf(os.Stderr, "fsbox: "+format+"\n", args...) }
	auditLog, code := af.openFor(cfg, logf)
	if code != 0 {
		return code
	}
	if auditLog != nil {
		defer auditLog.Close()
	}
	srv, err := mcpserver.New(mcpserver.Options{DefaultRoot: cf.root, Config: cfg, Changes: mcpserver.ChangePolicy(*changes),
		Compat: mcpserver.Compat(*compat), Version: version, Audit: auditLog, Logf: logf})
	if err != nil {
		return usageErrorf("%v", err)
	}
	defer srv.Close()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *httpAddr != "" {
		return serveMCPHTTP(ctx, srv, *httpAddr, *public, ho, tok, shownTok, int64(*maxBytes), logf)
	}
	// Keep the real stdout for the protocol and point os.Stdout at stderr, so a stray print anywhere
	// in the process can never corrupt the stream.
	out := os.Stdout
	os.Stdout = os.Stderr
	err = srv.Run(ctx, &mcpserver.StdioTransport{Reader: os.Stdin, Writer: out, MaxMessageBytes: *maxBytes, Logf: logf})
	if err != nil && ctx.Err() == nil && !errors.Is(err, mcp.ErrConnectionClosed) {
		return errorf("%v", err)
	}
	return 0
}

// httpFlags are the --http guard's settings (mcpserver/http.go has what each protects against).
type httpFlags struct {
	tokenFile   string
	tokenEnv    string
	origins     []string
	maxSessions int
	idle        time.Duration
}

func (h *httpFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&h.tokenFile, "http-token-file", "", "with --http: the bearer token is this `FILE`'s content (one line; "+
		"the file must not be readable by group or others); default: a fresh token, printed on stderr")
	fs.StringVar(&h.tokenEnv, "http-token-env", "", "with --http: the bearer token is in environment variable `NAME` "+
		"(removed from the environment once read, so hooks do not inherit it)")
	fs.Func("http-allow-origin", "with --http: also accept requests whose Origin header is `ORIGIN` (scheme://host[:port]; repeatable); "+
		"by default a request carrying any Origin is refused", func(v string) error {
		if _, err := mcpserver.ParseOrigin(v); err != nil {
			return err
		}
		h.origins = append(h.origins, v)
		return nil
	})
	fs.IntVar(&h.maxSessions, "http-max-sessions", mcpserver.DefaultMaxSessions, "with --http: the most live sessions (`N`); "+
		"a new one beyond it gets 503")
	fs.DurationVar(&h.idle, "http-idle-timeout", mcpserver.DefaultIdleTimeout, "with --http: end a session after this long (`DURATION`) without a request")
}

// check refuses guard flags without --http (a host that sets them expects HTTP) and bad values.
func (h *httpFlags) check(fs *flag.FlagSet, addr string) error {
	if addr == "" {
		var set []string
		fs.Visit(func(f *flag.Flag) {
			if strings.HasPrefix(f.Name, "http-") {
				set = append(set, "--"+f.Name)
			}
		})
		if len(set) > 0 {
			return fmt.Errorf("%s only apply with --http ADDR", strings.Join(set, ", "))
		}
		return nil
	}
	switch {
	case h.tokenFile != "" && h.tokenEnv != "":
		return fmt.Errorf("give the token as --http-token-file or --http-token-env, not both")
	case h.maxSessions <= 0:
		return fmt.Errorf("--http-max-sessions must be a positive integer, got %d", h.maxSessions)
	case h.idle <= 0:
		return fmt.Errorf("--http-idle-timeout must be a positive duration, got %s", h.idle)
	}
	return nil
}

// token returns the bearer token: the host's, from a file or an environment variable, or a fresh
// one from crypto/rand, which is then also returned as shown (the only way the user learns it).
func (h *httpFlags) token() (tok, shown string, err error) {
	switch {
	case h.tokenFile != "":
		f, err := os.Open(h.tokenFile)
		if err != nil {
			return "", "", fmt.Errorf("--http-token-file: %v", err)
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return "", "", fmt.Errorf("--http-token-file: %v", err)
		}
		if runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
			return "", "", fmt.Errorf("--http-token-file %s is readable by other users (mode %04o); chmod 600 it", h.tokenFile, fi.Mode().Perm())
		}
		data, err := io.ReadAll(io.LimitReader(f, 4096))
		if err != nil {
			return "", "", fmt.Errorf("--http-token-file: %v", err)
		}
		tok = strings.TrimRight(string(data), "\r\n")
		if err := mcpserver.CheckToken(tok); err != nil {
			return "", "", fmt.Errorf("--http-token-file %s: %v", h.tokenFile, err)
		}
		return tok, "", nil
	case h.tokenEnv != "":
		tok, ok := os.LookupEnv(h.tokenEnv)
		if !ok {
			return "", "", fmt.Errorf("--http-token-env: the environment has no %s", h.tokenEnv)
		}
		os.Unsetenv(h.tokenEnv)
		if err := mcpserver.CheckToken(tok); err != nil {
			return "", "", fmt.Errorf("--http-token-env %s: %v", h.tokenEnv, err)
		}
		return tok, "", nil
	}
	tok = mcpserver.NewToken()
	return tok, tok, nil
}

// The HTTP server's own bounds: a connection that does not send its headers in time, or idles
// between requests, is closed; at most maxConns connections are served at once (more wait in
// the kernel's backlog), so a flood of connections cannot grow the process without bound.
const (
	maxConns       = 256
	maxHeaderBytes = 64 << 10
)

// serveMCPHTTP serves streamable HTTP on addr until ctx is done. A non-loopback address is
// refused unless allowRemote: the transport is plain HTTP.
// tok is the bearer token and shown what the log line prints of it ("" for the host's own).
func serveMCPHTTP(ctx context.Context, srv *mcpserver.Server, addr string, allowRemote bool, ho httpFlags, tok, shown string, maxBody int64, logf func(string, ...any)) int {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return usageErrorf("--http %q: want host:port, e.g. 127.0.0.1:8765", addr)
	}
	if ip := net.ParseIP(host); !allowRemote && host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return usageErrorf("--http %q is not a loopback address; use 127.0.0.1 or [::1] (or add --http-allow-remote)", addr)
	}
	handler, err := srv.HTTPHandler(mcpserver.HTTPOptions{Token: tok, AllowedOrigins: ho.origins,
		MaxSessions: ho.maxSessions, IdleTimeout: ho.idle, MaxBodyBytes: maxBody})
	if err != nil {
		return usageErrorf("%v", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return errorf("%v", err)
	}
	ln = netutil.LimitListener(ln, maxConns)
	if shown != "" {
		logf("serving MCP over streamable HTTP on http://%s/ ; clients send the header \"Authorization: Bearer %s\"", ln.Addr(), shown)
	} else {
		logf("serving MCP over streamable HTTP on http://%s/ ; clients send the header \"Authorization: Bearer <token>\" with the host's token", ln.Addr())
	}
	hs := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute, MaxHeaderBytes: maxHeaderBytes}
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
