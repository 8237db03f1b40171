package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsbox/fsbox/engine"
	"github.com/fsbox/fsbox/schema"
)

// ChangePolicy says what happens to a change (write_file, edit_file, create_directory):
//
//  1. an interrupt permission rule always needs an approval: the client is asked through
//     elicitation when it declared the capability, otherwise the change is refused
//     (permission_denied), whatever the policy;
//  2. ChangesAsk (the default): a client that declared elicitation is asked about every change;
//     for any other client the change goes ahead;
//  3. ChangesAllow: changes go ahead unasked (only rule 1 asks);
//  4. ChangesRefuse: a client that declared elicitation is asked about every change; for any
//     other client every change is refused (a normal result with cancelled: true).
type ChangePolicy string

// The change policies; see [ChangePolicy].
const (
	ChangesAsk    ChangePolicy = "ask"
	ChangesAllow  ChangePolicy = "allow"
	ChangesRefuse ChangePolicy = "refuse"
)

// Compat selects the tool names and argument shapes the server presents.
type Compat string

// The presentations: fsbox's own tools, or the reference filesystem server's (see compat.go).
const (
	CompatNone      Compat = ""
	CompatReference Compat = "reference"
)

// Options configure a [Server].
type Options struct {
	// DefaultRoot is the root used when Config names none (the --root flag); "" means the
	// process's working directory.
	DefaultRoot string
	// Config is the host's configuration (--config file and flags). MCP clients cannot override it.
	Config schema.Config
	// Changes is the change policy; "" means ChangesAsk.
	Changes ChangePolicy
	// Compat selects the presented tools; "" means fsbox's own.
	Compat Compat
	// Version is reported in serverInfo.
	Version string
	// Audit is the host's audit log (fsbox mcp --audit): every engine of the server records its
	// calls there, each engine as a session of its own; nil records nothing.
	Audit *engine.AuditLog
	// Logf receives diagnostics; nil drops them.
	Logf func(format string, args ...any)
}

// Server is one MCP server over one engine. Every MCP session shares the host's engine; a session
// whose client names a root inside the host's root gets its own engine with that working
// directory (see roots.go).
type Server struct {
	opts  Options
	cfg   schema.Config // opts.Config with the compat defaults applied
	eng   *engine.Engine
	mcp   *mcp.Server
	tools []*toolDef

	mu       sync.Mutex
	sessions map[*mcp.ServerSession]*sessionState // guarded by mu; removed when the session ends
}

// New validates the options, opens the root and registers the tools. A bad configuration is an
// error whose text names the field (and never a host path the host did not give).
func New(opts Options) (*Server, error) {
	switch opts.Changes {
	case "":
		opts.Changes = ChangesAsk
	case ChangesAsk, ChangesAllow, ChangesRefuse:
	default:
		return nil, fmt.Errorf("mcp: changes must be ask, allow or refuse, got %q", opts.Changes)
	}
	if opts.Compat != CompatNone && opts.Compat != CompatReference {
		return nil, fmt.Errorf("mcp: compat must be reference or empty, got %q", opts.Compat)
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	cfg := opts.Config
	if opts.Compat == CompatReference && cfg.Tools == nil {
		// The reference server offers read_multiple_files and directory_tree by default. The
		// provider-shaped edit tools stay opt-in here too: the reference server has neither.
		for _, t := range schema.Tools {
			if t.Name != schema.ToolApplyPatch && t.Name != schema.ToolStrReplaceBasedEditTool {
				cfg.Tools = append(cfg.Tools, t.Name)
			}
		}
	}
	eng, err := engine.New(cfg, engine.Options{DefaultRoot: opts.DefaultRoot, Audit: auditSession(opts.Audit)})
	if err != nil {
		var ee *engine.Error
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("mcp: %s", ee.Msg)
		}
		return nil, fmt.Errorf("mcp: %w", err)
	}
	s := &Server{opts: opts, cfg: cfg, eng: eng, sessions: map[*mcp.ServerSession]*sessionState{}}
	if opts.Compat == CompatReference {
		s.tools, err = referenceTools(eng)
	} else {
		s.tools, err = nativeTools(eng)
	}
	if err != nil {
		eng.Close()
		return nil, err
	}
	caps := &mcp.ServerCapabilities{
		Logging: &mcp.LoggingCapabilities{},
		Tools:   &mcp.ToolCapabilities{},
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "fsbox", Version: opts.Version, Description: sandboxLine(eng.Sandbox())}, &mcp.ServerOptions{
		Instructions: "File tools confined to one directory. Paths are relative to the working directory; " +
			"absolute paths must lie inside the root.",
		Logger:                  slog.New(&logfHandler{logf: s.logf}),
		RootsListChangedHandler: func(_ context.Context, req *mcp.RootsListChangedRequest) { s.forgetRoots(req.Session) },
		Capabilities:            caps,
	})
	for _, t := range s.tools {
		s.mcp.AddTool(t.tool, s.handler(t))
	}
	s.addFileResources(caps)
	s.mcp.AddReceivingMiddleware(s.failedApprovals, s.auditUnrun)
	return s, nil
}

// failedApprovals turns a failed elicitation of an older client into the tool error serve gives a
// failed change_request (change_request_failed, nothing changed), instead of a protocol error.
// The SDK's bridge (which asks such clients during the call) runs inside this middleware and
// reports its failures as "multi-round-trip: …".
func (s *Server) failedApprovals(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil && method == "tools/call" && ctx.Err() == nil && strings.HasPrefix(err.Error(), "multi-round-trip: ") {
			s.logf("asking the client to approve a change: %v", err)
			return toolError(&engine.Error{Kind: schema.KindChangeRequestFailed, Msg: "The change request failed, so nothing was changed."}), nil
		}
		return res, err
	}
}

// MCP returns the SDK server, for transports this package does not wrap (an in-memory pair in
// tests, for one).
func (s *Server) MCP() *mcp.Server { return s.mcp }

// RootDir returns the host's resolved root; for the host, never shown to the model.
func (s *Server) RootDir() string { return s.eng.RootDir() }

// Run serves one session on t until the client disconnects or ctx is done. For stdio, t is a
// [StdioTransport] (fsbox serve's input rules: a bad line is answered, never fatal); HTTP goes
// through [Server.HTTPHandler] instead.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	return s.mcp.Run(ctx, t)
}

// Close releases the host's engine and every session's.
func (s *Server) Close() error {
	s.mu.Lock()
	for ss, st := range s.sessions {
		st.close()
		delete(s.sessions, ss)
	}
	s.mu.Unlock()
	return s.eng.Close()
}

func (s *Server) logf(format string, args ...any) {
	if s.opts.Logf != nil {
		s.opts.Logf(format, args...)
	}
}

// logfHandler sends the SDK's warnings and errors to Options.Logf; its info and debug chatter
// is dropped.
type logfHandler struct {
	logf  func(format string, args ...any)
	attrs []slog.Attr
}

func (h *logfHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }

func (h *logfHandler) Handle(_ context.Context, r slog.Record) error {
	msg := r.Message
	for _, a := range h.attrs {
		msg += " " + a.String()
	}
	r.Attrs(func(a slog.Attr) bool {
		msg += " " + a.String()
		return true
	})
	h.logf("mcp: %s", msg)
	return nil
}

func (h *logfHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &logfHandler{logf: h.logf, attrs: append(append([]slog.Attr(nil), h.attrs...), attrs...)}
}

func (h *logfHandler) WithGroup(string) slog.Handler { return h }

// sandboxLine is the server info's description: the kernel confinement in force, the way
// initialize's sandbox reports it in the fsbox protocol (docs/mcp.md).
func sandboxLine(sb schema.Sandbox) string {
	return "fsbox file tools; sandbox: landlock " + sb.Landlock + "; hooks " + sb.Hooks
}
