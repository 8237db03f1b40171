package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsbox/fsbox/engine"
	"github.com/fsbox/fsbox/engine/hostpolicy"
	"github.com/fsbox/fsbox/rpc"
	"github.com/fsbox/fsbox/schema"
)

// Options configure a [Server].
type Options struct {
	// DefaultRoot is the root used when the config names none (the --root flag); "" means the
	// process's working directory.
	DefaultRoot string
	// Config is the server's own configuration (--config file and flags); initialize overrides
	// it, or with FixedPolicy only narrows it.
	Config schema.Config
	// FixedPolicy makes Config (over the built-in defaults) the ceiling of every session: the
	// config of initialize may only narrow it (see [Narrow]), and anything wider is refused with
	// -32602 invalid_arguments naming the field. fsbox serve sets it when --root, --config, --cwd,
	// --tools or --read-only is given. Without it the client configures everything, which is
	// right only when the client is the host (an SDK that spawned this process).
	FixedPolicy bool
	// MaxMessageBytes bounds one incoming line; 0 means the rpc default (16 MiB).
	MaxMessageBytes int
	// MaxInFlight bounds the tool calls at work at once (rpc.Options.MaxConcurrent); 0 means
	// the rpc default, rpc.DefaultMaxConcurrent().
	MaxInFlight int
	// ReleaseWhenIdle, if positive, returns freed memory to the operating system (a full
	// collection, debug.FreeOSMemory) once no request has been at work for that long: an idle
	// server stays small even when the GC is tuned to run rarely. fsbox serve sets it.
	ReleaseWhenIdle time.Duration
	// Version is reported in server_info.
	Version string
	// Audit is the host's audit log (fsbox serve --audit): each session records every
	// tools/call there, before its reply is sent (server/audit.go); nil records nothing.
	Audit *engine.AuditLog
	// Logf receives diagnostics; nil writes them to stderr.
	Logf func(format string, args ...any)
}

// Server serves fsbox sessions. It is safe to call Serve concurrently; each call is one session.
type Server struct {
	opts Options
	idle *idleRelease // nil unless ReleaseWhenIdle
}

// New returns a server with the given options.
func New(opts Options) *Server {
	if opts.Version == "" {
		opts.Version = "dev"
	}
	return &Server{opts: opts, idle: newIdleRelease(opts.ReleaseWhenIdle)}
}

// Serve runs one session: it reads requests from r and writes responses and notifications to w
// until EOF, shutdown, or ctx is done. It returns nil on a clean end.
func (s *Server) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	// The bundle's hash goes into the initialize reply and decides whether the generated tool
	// descriptors are served (schema.EncodedDescriptors): hashing its 84 KB takes about 0.1 ms,
	// done on the other core while the first request is read and its engine made.
	go schema.Hash()
	sess := &session{srv: s, audit: s.auditSession()}
	defer sess.close()
	return rpc.Serve(ctx, r, w, rpc.HandlerFunc(sess.handle), rpc.Options{
		MaxMessageBytes: s.opts.MaxMessageBytes,
		MaxConcurrent:   s.opts.MaxInFlight,
		// Until the session is initialized every request is handled in arrival order, so a request
		// that arrived before initialize is refused even if initialize completes first; after it,
		// only initialize and shutdown keep that order.
		Inline: func(method string) bool {
			return method == "initialize" || method == "shutdown" || !sess.initialized.Load()
		},
		// Events come at the end of a call, just before its reply: they go out in one write.
		HoldNotifications: true,
		Logf:              s.opts.Logf,
	})
}

// session is the state of one connection.
type session struct {
	srv *Server

	initialized atomic.Bool // set once eng is; read on the rpc read loop

	audit *engine.AuditSession // the session's audit recorder, nil without a log

	mu   sync.Mutex // guards eng and caps
	eng  *engine.Engine
	caps schema.ClientCapabilities
}

func (s *session) engine() (*engine.Engine, schema.ClientCapabilities) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.eng, s.caps
}

func (s *session) close() {
	if eng, _ := s.engine(); eng != nil {
		eng.Close()
	}
}

func (s *session) handle(ctx context.Context, c *rpc.Conn, req *rpc.Request) (any, error) {
	s.srv.idle.begin()
	defer s.srv.idle.end()
	if req.Method == "initialize" {
		return s.initialize(c, req)
	}
	eng, caps := s.engine()
	if eng == nil {
		if req.Notif {
			return nil, nil
		}
		if req.Method == "tools/call" {
			if aerr := s.auditUnrun(req.Params, schema.KindNotInitialized); aerr != nil {
				return nil, aerr
			}
		}
		return nil, &rpc.Error{Code: schema.CodeFatal, Message: "The session is not initialized: send initialize first.",
			Data: schema.ErrorData{Kind: schema.KindNotInitialized}}
	}
	switch req.Method {
	case "tools/list":
		tools, err := encodedDescriptors(eng.ToolNames(), eng.ContentHashes())
		if err != nil {
			return nil, s.internal(err)
		}
		return toolsListResult{Tools: tools}.encode(), nil
	case "tools/call":
		return s.call(ctx, c, eng, caps, req.Params)
	case "schema":
		return json.RawMessage(schema.Bundle), nil
	case "shutdown":
		c.Shutdown()
		return nil, nil
	}
	if strings.HasPrefix(req.Method, "checkpoint/") && !req.Notif {
		return s.checkpoint(ctx, eng, req) // checkpoint.go
	}
	if req.Notif {
		return nil, nil
	}
	return nil, &rpc.Error{Code: schema.CodeMethodNotFound, Message: fmt.Sprintf("method not found: %s", req.Method)}
}

func (s *session) initialize(c *rpc.Conn, req *rpc.Request) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.eng != nil {
		return nil, &rpc.Error{Code: schema.CodeInvalidRequest, Message: "the session is already initialized"}
	}
	var p schema.InitializeParams
	if len(req.Params) > 0 {
		if err := schema.Decode(req.Params, &p); err != nil {
			return nil, decodeError("initialize", err)
		}
	}
	if major, _, _ := strings.Cut(p.ProtocolVersion, "."); major != schema.ProtocolVersion {
		return nil, &rpc.Error{Code: schema.CodeInvalidParams,
			Message: fmt.Sprintf("unsupported protocol_version %q; this server speaks %q", p.ProtocolVersion, schema.ProtocolVersion),
			Data:    schema.ErrorData{Kind: schema.KindInvalidArguments, Supported: []string{schema.ProtocolVersion}}}
	}
	shape, serr := resultShape(p.Capabilities)
	if serr != nil {
		return nil, serr
	}
	if p.Config != nil {
		if perr := hostpolicy.RefuseHostOnly(*p.Config); perr != nil {
			return nil, &rpc.Error{Code: schema.CodeInvalidParams, Message: perr.Error(), Data: schema.ErrorData{Kind: schema.KindInvalidArguments}}
		}
	}
	cfg := s.srv.opts.Config
	eopts := engine.Options{DefaultRoot: s.srv.opts.DefaultRoot, Audit: s.audit, Journal: s.journalOptions(c)}
	switch {
	case s.srv.opts.FixedPolicy:
		var client schema.Config
		if p.Config != nil {
			client = *p.Config
		}
		var perr error
		if cfg, perr = hostpolicy.Narrow(s.srv.opts.Config, client); perr != nil {
			return nil, &rpc.Error{Code: schema.CodeInvalidParams, Message: perr.Error(), Data: schema.ErrorData{Kind: schema.KindInvalidArguments}}
		}
		host := s.srv.opts.Config
		eopts.Host = &host
	case p.Config != nil:
		cfg = hostpolicy.Merge(cfg, *p.Config)
	}
	eng, err := engine.New(cfg, eopts)
	if err != nil {
		var ee *engine.Error
		if errors.As(err, &ee) {
			return nil, &rpc.Error{Code: schema.CodeInvalidParams, Message: ee.Msg, Data: schema.ErrorData{Kind: ee.Kind, Path: ee.Path}}
		}
		return nil, invalidParams(err.Error())
	}
	tools, err := encodedDescriptors(eng.ToolNames(), eng.ContentHashes())
	if err != nil {
		eng.Close()
		return nil, s.internal(err)
	}
	reply, err := initializeResult{
		ProtocolVersion: schema.ProtocolVersion,
		ServerInfo:      schema.Implementation{Name: "fsbox", Version: s.srv.opts.Version},
		RootDir:         eng.RootDir(),
		Cwd:             eng.Cwd(),
		Tools:           tools,
		SchemaHash:      schema.Hash(),
		ResultShape:     shape,
		Sandbox:         eng.Sandbox(),
	}.encode()
	if err != nil {
		eng.Close()
		return nil, s.internal(err)
	}
	s.eng = eng
	if p.Capabilities != nil {
		s.caps = *p.Capabilities
	}
	s.caps.ResultShape = shape
	s.initialized.Store(true)
	return reply, nil
}

func (s *session) call(ctx context.Context, c *rpc.Conn, eng *engine.Engine, caps schema.ClientCapabilities, raw json.RawMessage) (any, error) {
	var p callParams
	if len(raw) == 0 {
		return nil, s.refuseUnrun(raw, invalidParams("tools/call needs params {name, arguments}"))
	}
	if err := schema.Decode(raw, &p); err != nil {
		return nil, s.refuseUnrun(raw, decodeError("tools/call", err))
	}
	if p.Name == "" {
		return nil, s.refuseUnrun(raw, invalidParams("tools/call needs params {name, arguments}"))
	}
	args := json.RawMessage(p.Arguments)
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	// The "text" shape sends the text alone (shape.go), so the engine need not build what would
	// be dropped.
	h := engine.Hooks{TextOnly: caps.ResultShape == schema.ResultShapeText}
	if caps.Events {
		h.Event = func(ev any) {
			if err := c.Notify(ctx, "event", ev); err != nil {
				s.logf("sending event: %v", err)
			}
		}
	}
	if caps.ChangeRequests {
		h.ChangeRequest = func(ctx context.Context, req *schema.FileChangeRequest) (schema.ChangeRequestResult, error) {
			var raw json.RawMessage
			if err := c.Call(ctx, "change_request", req, &raw); err != nil {
				return schema.ChangeRequestResult{}, err
			}
			// The answer is input like any params: a misspelled member must not turn an edit
			// or a refusal into something else. A bad one fails the call (change_request_failed,
			// naming the member); nothing is changed.
			var res schema.ChangeRequestResult
			if len(raw) == 0 {
				raw = json.RawMessage("null")
			}
			if err := schema.Decode(raw, &res); err != nil {
				return schema.ChangeRequestResult{}, err
			}
			return res, nil
		}
	}
	res, err := eng.Call(ctx, p.Name, args, h)
	if err != nil {
		return nil, s.toRPCError(ctx, err)
	}
	out, err := shaped(res, caps.ResultShape)
	if err != nil {
		return nil, s.internal(err)
	}
	return out, nil
}

// callParams is the tools/call envelope, schema.ToolsCallParams with the arguments kept as bytes
// for the engine to decode against the named tool's own type.
type callParams struct {
	// Tool name, as listed by tools/list.
	Name string `json:"name"`
	// Tool arguments; unknown fields are an error.
	Arguments schema.RawObject `json:"arguments,omitempty"`
}

// decodeError is the -32602 answer to params that schema.Decode refused: the message names the
// method and the member by its path ("initialize: unknown member `config.denid`; did you mean
// `denied_patterns`?"), kind invalid_arguments.
func decodeError(method string, err error) *rpc.Error {
	return invalidParams(method + ": " + err.Error())
}

// internal logs the cause of an internal error and returns its wire form.
func (s *session) internal(err error) *rpc.Error {
	s.logf("internal error: %v", err)
	return internalError()
}

func (s *session) logf(format string, args ...any) {
	if s.srv.opts.Logf != nil {
		s.srv.opts.Logf(format, args...)
	}
}
