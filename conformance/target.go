package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// StartParams opens a session on a vector's fixture.
type StartParams struct {
	// RootDir is the fixture root; Config already holds it as root_dir (a vector may override it).
	RootDir        string
	Config         map[string]any
	Events         bool
	ChangeRequests bool
	// ResultShape, when not nil, is sent as capabilities.result_shape.
	ResultShape *string
}

// Session is one connection to the implementation under test, for one vector.
type Session interface {
	// Start initializes; it returns the initialize result, or the error the server answered.
	Start(ctx context.Context, p StartParams) (result any, rpcErr map[string]any, err error)
	// Call calls a tool; answer decides each change request the call causes, as it arrives.
	Call(ctx context.Context, tool string, args any, answer AnswerFunc) (*Outcome, error)
	// Close ends the session and returns what the implementation wrote to stderr.
	Close() string
}

// requester is a session that can send plain methods (tools/list, schema, …). Binding adapters
// offer the ones their SDK has a method for and skip the rest.
type requester interface {
	Request(ctx context.Context, method string, params any) (*Outcome, error)
}

// wireCapable is a session on the raw protocol: it can send arbitrary lines and any method and
// pipeline calls. Binding adapters are not.
type wireCapable interface {
	requester
	Raw(ctx context.Context, line []byte, want int, expectEOF bool) ([]any, error)
	Parallel(ctx context.Context, calls []Step, args []any) ([]*Outcome, error)
	// Side calls a tool while another call is in flight, outside its event collection.
	Side(ctx context.Context, tool string, args any) (*Outcome, error)
	Violations() []string
}

// Target is an implementation the suite can grade.
type Target interface {
	Name() string
	// Capabilities the target offers; the platform's own are added by the runner.
	Capabilities() map[string]bool
	Open(ctx context.Context) (Session, error)
}

// hostConfigurable is a target that can start a server the way `fsbox serve --config FILE`
// starts it, for vectors with host_config; it offers the capability host_config.
type hostConfigurable interface {
	OpenWithConfig(ctx context.Context, configFile string) (Session, error)
}

// wireCaps are the capabilities of every target spoken to on the raw protocol.
var wireCaps = map[string]bool{"raw_wire": true, "methods": true, "pipelining": true,
	"change_request_fs": true, "change_request_error": true, "change_request_raw": true, "descriptors": true, "cancel": true,
	"initialize": true, "config": true, "events": true, "change_requests": true, "result_shape": true}

// DialFunc connects to a fresh server session, e.g. one in the same process.
type DialFunc func(ctx context.Context) (io.ReadWriteCloser, error)

// ConfigDialFunc connects to a fresh server session whose host configuration is the file
// configFile (JSON), as `fsbox serve --config configFile` would run it.
type ConfigDialFunc func(ctx context.Context, configFile string) (io.ReadWriteCloser, error)

type dialTarget struct {
	name       string
	dial       DialFunc
	withConfig ConfigDialFunc
}

// DialTarget grades a server reached through dial: the inproc target is built this way from
// outside this package, so the suite never imports the engine it grades.
func DialTarget(name string, dial DialFunc) Target { return &dialTarget{name: name, dial: dial} }

// DialTargetWithConfig is DialTarget for a server that can also be started with a host
// configuration (withConfig), so vectors with host_config run too.
func DialTargetWithConfig(name string, dial DialFunc, withConfig ConfigDialFunc) Target {
	return &dialTarget{name: name, dial: dial, withConfig: withConfig}
}

func (t *dialTarget) Name() string { return t.name }
func (t *dialTarget) Capabilities() map[string]bool {
	if t.withConfig == nil {
		return wireCaps
	}
	return withCap(wireCaps, "host_config")
}
func (t *dialTarget) Open(ctx context.Context) (Session, error) {
	rwc, err := t.dial(ctx)
	if err != nil {
		return nil, err
	}
	return &wireSession{c: newWireConn(rwc, rwc, rwc.Close)}, nil
}

func (t *dialTarget) OpenWithConfig(ctx context.Context, configFile string) (Session, error) {
	if t.withConfig == nil {
		return nil, errors.New("this target cannot start a server with a host configuration")
	}
	rwc, err := t.withConfig(ctx, configFile)
	if err != nil {
		return nil, err
	}
	return &wireSession{c: newWireConn(rwc, rwc, rwc.Close)}, nil
}

// withCap returns caps with one more capability.
func withCap(caps map[string]bool, c string) map[string]bool {
	out := map[string]bool{c: true}
	for k, v := range caps {
		out[k] = v
	}
	return out
}

type serverTarget struct {
	cmdline string
	argv    []string
}

// ServerTarget grades any server speaking the protocol on stdio: the command is started once per
// vector, without a shell.
func ServerTarget(cmdline string) (Target, error) {
	argv, err := splitCommand(cmdline)
	if err != nil {
		return nil, err
	}
	return &serverTarget{cmdline, argv}, nil
}

func (t *serverTarget) Name() string { return "server:" + t.cmdline }

// Capabilities: a server target can be given a host configuration by appending
// "--config FILE" to its command line, as fsbox serve takes it (host_config); a server that
// takes its configuration otherwise fails those vectors (filter them out with --filter).
func (t *serverTarget) Capabilities() map[string]bool { return withCap(wireCaps, "host_config") }
func (t *serverTarget) Open(ctx context.Context) (Session, error) {
	return t.start(ctx, t.argv)
}

func (t *serverTarget) OpenWithConfig(ctx context.Context, configFile string) (Session, error) {
	return t.start(ctx, append(append([]string{}, t.argv...), "--config", configFile))
}

// Preflight checks that the command exists, once, before any vector runs.
func (t *serverTarget) Preflight(ctx context.Context, fx *Fixture) (*Inspection, error) {
	return nil, lookCommand(t.argv)
}

func (t *serverTarget) start(ctx context.Context, argv []string) (Session, error) {
	p, err := startProcessGrace(argv, "", 5*time.Second, sessionEnv(ctx))
	if err != nil {
		return nil, err
	}
	return &wireSession{c: newWireConn(p.stdout, p.stdin, p.close), stderr: p.stderr.String}, nil
}

// capBuffer keeps the first max bytes written to it.
type capBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int
}

func (b *capBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := b.max - b.buf.Len(); room > 0 {
		if len(p) > room {
			b.buf.Write(p[:room])
		} else {
			b.buf.Write(p)
		}
	}
	return len(p), nil
}

func (b *capBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TargetOptions are what ParseTarget needs beyond the spec string.
type TargetOptions struct {
	// Inproc dials the engine in-process; nil makes "inproc" unavailable.
	Inproc DialFunc
	// InprocConfig dials it with a host configuration file (vectors with host_config); nil
	// skips those vectors on inproc.
	InprocConfig ConfigDialFunc
	// RepoDir is the fsbox checkout holding the adapters and SDKs (binding targets).
	RepoDir string
	// Binary is the fsbox executable the adapters start (binding and adapter targets).
	Binary string
	// Mapping maps the suite's tools onto an MCP server's (mcp targets): "reference" (default),
	// "none", or a mapping file.
	Mapping string
	// MCPProtocol is the MCP protocol version the client speaks to mcp targets: "auto" (default:
	// the server/discover probe, falling back to initialize) or one version (mcp_protocol.go).
	MCPProtocol string
}

// ParseTarget turns "inproc", "server:<command line>", "binding:go|python|typescript|rust",
// "adapter:<command line>" or "mcp:<command line>" into a Target.
func ParseTarget(spec string, o TargetOptions) (Target, error) {
	switch {
	case spec == "inproc":
		if o.Inproc == nil {
			return nil, errors.New("the inproc target is not available in this build")
		}
		return DialTargetWithConfig("inproc", o.Inproc, o.InprocConfig), nil
	case strings.HasPrefix(spec, "server:"):
		return ServerTarget(strings.TrimPrefix(spec, "server:"))
	case strings.HasPrefix(spec, "binding:"):
		return BindingTarget(strings.TrimPrefix(spec, "binding:"), o.RepoDir, o.Binary)
	case strings.HasPrefix(spec, "adapter:"):
		return AdapterTarget(strings.TrimPrefix(spec, "adapter:"), o.Binary)
	case strings.HasPrefix(spec, "mcp:"):
		name := o.Mapping
		if name == "" {
			name = "reference"
		}
		m, err := LoadToolMapping(name)
		if err != nil {
			return nil, err
		}
		return MCPTargetWithProtocol(strings.TrimPrefix(spec, "mcp:"), m, o.MCPProtocol)
	}
	return nil, fmt.Errorf("unknown target %q: want %s", spec, TargetForms)
}

// TargetForms lists the target specs ParseTarget accepts.
const TargetForms = "inproc, server:COMMAND, binding:go|python|typescript|rust, adapter:COMMAND or mcp:COMMAND"

// platformCaps are the capabilities of the machine the runner is on.
func platformCaps() map[string]bool {
	caps := map[string]bool{"symlinks": runtime.GOOS != "windows", "posix_modes": runtime.GOOS != "windows", "posix": runtime.GOOS != "windows",
		"fifo": runtime.GOOS == "linux" || runtime.GOOS == "darwin", "non_root": os.Geteuid() != 0}
	return caps
}

// FindRepo walks up from dir to the fsbox checkout (the directory whose go.mod names the module).
func FindRepo(dir string) (string, error) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil && bytes.Contains(b, []byte("module github.com/fsbox/fsbox\n")) {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("no fsbox checkout at or above %s", dir)
		}
		d = parent
	}
}
