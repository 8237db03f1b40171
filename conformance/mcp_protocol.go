package conformance

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The MCP protocol generation the grader's client speaks to an mcp: target.
//
// MCP has two generations: the initialize handshake (2024-11-05 to 2025-11-25; sessions,
// server-initiated requests) and, from 2026-07-28, per-request _meta with server/discover,
// multi-round-trip requests and no sessions. By default ("auto") the client does what the
// specification asks of a dual-era client on stdio: it probes with server/discover and falls back
// to initialize on any error that is not a modern one, so a server of either generation is graded.
// Pinning a version grades one generation only: a server that does not speak it fails to start,
// once per vector, with the version it offered instead, rather than being graded over another.
//
// The tools, mapping and grading are the same in every generation; only the handshake and the
// per-request metadata differ (the Go SDK's client does both).

// MCPProtocolAuto lets the client pick the generation with the server/discover probe.
const MCPProtocolAuto = "auto"

// MCPProtocols lists what MCPTargetWithProtocol accepts: auto, then the versions the client can
// pin, newest first.
var MCPProtocols = []string{MCPProtocolAuto, "2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// MCPTargetWithProtocol is MCPTarget with the client pinned to one protocol version, or
// MCPProtocolAuto ("" too).
func MCPTargetWithProtocol(cmdline string, mapping *ToolMapping, protocol string) (Target, error) {
	if protocol == "" {
		protocol = MCPProtocolAuto
	}
	if !slices.Contains(MCPProtocols, protocol) {
		return nil, fmt.Errorf("MCP protocol %q: want one of %s", protocol, strings.Join(MCPProtocols, ", "))
	}
	t, err := MCPTarget(cmdline, mapping)
	if err != nil {
		return nil, err
	}
	if protocol != MCPProtocolAuto {
		t.(*mcpTarget).protocol = protocol
	}
	return t, nil
}

// MCPNegotiated returns the protocol versions t's sessions negotiated so far, sorted, each once
// (nil for a target that is not an mcp: one). A report can show which generation was graded.
func MCPNegotiated(t Target) []string {
	mt, ok := t.(*mcpTarget)
	if !ok {
		return nil
	}
	return mt.seen.list()
}

// legacyFallback is the version auto falls back to when the server/discover probe goes
// unanswered: the newest of the initialize generation.
const legacyFallback = "2025-11-25"

// discoverProbe bounds the server/discover probe of auto: a legacy server may ignore a request
// it does not know instead of answering -32601, and the specification treats a probe that times
// out as a legacy server.
var discoverProbe = 5 * time.Second

// connect opens the MCP session on s's process. Pinned: the SDK asks for that version. Auto: the
// SDK probes with server/discover (falling back to initialize on a non-modern error) within
// discoverProbe; if the probe goes unanswered the process is restarted (its input already holds
// the probe) and spoken to with initialize, and the target remembers that this server is legacy,
// so later vectors do not wait for the probe again (the specification's per-server cache).
func (t *mcpTarget) connect(ctx context.Context, s *mcpSession, client *mcp.Client, restart func() (*process, error)) (*mcp.ClientSession, error) {
	transport := func() mcp.Transport {
		return &mcp.IOTransport{Reader: newStrayFilter(s.p.stdout, &s.stray), Writer: s.p.stdin}
	}
	version := t.protocol
	if version == "" && t.legacy.Load() {
		version = legacyFallback
	}
	if version != "" {
		return client.Connect(ctx, transport(), &mcp.ClientSessionOptions{ProtocolVersion: version})
	}
	probe := discoverProbe
	if d, ok := ctx.Deadline(); ok && time.Until(d)/2 < probe {
		probe = time.Until(d) / 2
	}
	pctx, cancel := context.WithTimeout(ctx, probe)
	cs, err := client.Connect(pctx, transport(), nil)
	cancel()
	if err == nil || ctx.Err() != nil || !errors.Is(err, context.DeadlineExceeded) {
		return cs, err
	}
	if gone, _ := s.p.gone(); gone {
		return nil, err
	}
	t.legacy.Store(true)
	_ = s.p.close()
	p, rerr := restart()
	if rerr != nil {
		return nil, rerr
	}
	s.p = p
	return client.Connect(ctx, transport(), &mcp.ClientSessionOptions{ProtocolVersion: legacyFallback})
}

// negotiated records the session's version and refuses one other than the pinned version (the
// SDK falls back from 2026-07-28 to initialize silently).
func (t *mcpTarget) negotiated(cs *mcp.ClientSession) error {
	got := ""
	if res := cs.InitializeResult(); res != nil {
		got = res.ProtocolVersion
	}
	t.seen.add(got)
	if t.protocol != "" && got != t.protocol {
		return fmt.Errorf("the server does not speak MCP %s (it negotiated %q); grade it with the MCP protocol auto or %s", t.protocol, got, got)
	}
	return nil
}

// protocolsSeen collects the versions sessions negotiated; vectors run in parallel.
type protocolsSeen struct {
	mu   sync.Mutex
	seen map[string]bool
}

func (p *protocolsSeen) add(v string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.seen == nil {
		p.seen = map[string]bool{}
	}
	p.seen[v] = true
}

func (p *protocolsSeen) list() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for v := range p.seen {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}
