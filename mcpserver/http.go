package mcpserver

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The guard in front of MCP's streamable HTTP transport. Every request passes, in this order:
//
//  1. the SDK's DNS-rebinding check: on a loopback listener, a Host header that is not a
//     loopback name is refused (403);
//  2. the Origin check: a request with no Origin header (what a non-browser client sends) or
//     with one listed in [HTTPOptions.AllowedOrigins] passes; any other, "null" included, and
//     more than one Origin header, is refused with 403, so a web page the user visits cannot
//     drive the server from the browser (a DNS-rebound or cross-site request carries its Origin);
//  3. the bearer token: "Authorization: Bearer <token>", compared in constant time (as SHA-256
//     digests, so neither the content nor the length leaks through timing); anything else is
//     refused with 401 and WWW-Authenticate: Bearer;
//  4. the session cap: a request that would open a session (a POST without Mcp-Session-Id)
//     while [HTTPOptions.MaxSessions] sessions are live or being opened is refused with 503 and
//     Retry-After. Sessions end on DELETE, when the server closes, or after IdleTimeout without a
//     request (the SDK's SessionTimeout; a long-running call keeps its session alive). A request
//     of the 2026-07-28 generation opens no session and takes no slot;
//  5. the era: a POST whose MCP-Protocol-Version is 2026-07-28 or later goes to the SDK's
//     stateless handler, everything else to its session handler (see modernHTTP).
//
// So memory is bounded under a flood: unauthenticated requests stop at 401 before the SDK reads
// a byte of their body, authenticated ones cannot hold more than MaxSessions sessions, and
// stateless ones hold memory only while they run, bounded by the HTTP server's connection limit.
//
// What it does not protect against, by design (docs/mcp.md, "Streamable HTTP: threat model"):
//   - a process that can read the token (from fsbox's stderr, the host's token file or
//     environment) is a client like any other, with every tool;
//   - the traffic is plain HTTP: fsbox provides no TLS, so off loopback anyone on the path can
//     read the token and the files (cmd/fsbox binds loopback unless told otherwise);
//   - a token holder can fill the session cap and so lock other clients out until their
//     sessions idle out; and anyone who can connect can hold connections open (the HTTP server's
//     timeouts and connection limit in cmd/fsbox bound that, they do not prevent it).

// HTTPOptions configure [Server.HTTPHandler].
type HTTPOptions struct {
	// Token is the bearer token every request must carry; required (see [CheckToken]).
	Token string
	// AllowedOrigins are the Origin header values accepted besides none at all, each
	// scheme://host[:port] as a browser sends it (see [ParseOrigin]). Empty: any Origin is refused.
	AllowedOrigins []string
	// MaxSessions caps the live sessions; zero means [DefaultMaxSessions].
	MaxSessions int
	// IdleTimeout ends a session after this long without a request; zero means
	// [DefaultIdleTimeout].
	IdleTimeout time.Duration
	// MaxBodyBytes bounds one request body; zero means [DefaultMaxMessageBytes], as on stdio.
	MaxBodyBytes int64
}

// The HTTP defaults: enough for a few clients and their reconnects, small in memory (a session
// costs tens of kilobytes until it runs a tool).
const (
	DefaultMaxSessions = 64
	DefaultIdleTimeout = 30 * time.Minute
)

// MinTokenLength is the shortest bearer token accepted from the host.
const MinTokenLength = 16

// NewToken returns a fresh bearer token: 32 bytes from crypto/rand, base64url without padding.
func NewToken() string {
	var b [32]byte
	rand.Read(b[:]) // never fails (crypto/rand panics instead)
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// CheckToken refuses a token that is too short or that cannot travel in an Authorization header
// (RFC 6750's token68 characters: letters, digits and - . _ ~ + /, then optional = padding).
func CheckToken(tok string) error {
	if len(tok) < MinTokenLength {
		return fmt.Errorf("the token has %d characters, fewer than %d; use a random one (e.g. openssl rand -hex 32)", len(tok), MinTokenLength)
	}
	body := strings.TrimRight(tok, "=")
	for i, r := range body {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("-._~+/", r)) {
			return fmt.Errorf("the token's character %d is not allowed in a bearer token (only letters, digits, - . _ ~ + / and trailing =)", i+1)
		}
	}
	return nil
}

// ParseOrigin checks an allowed-origin entry and returns it as compared: lower case,
// scheme://host[:port], without a path, query, fragment or user info.
func ParseOrigin(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("%q is not an origin; want scheme://host[:port], e.g. https://app.example:8443", s)
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), nil
}

// HTTPHandler serves MCP's streamable HTTP transport, one session per Mcp-Session-Id, behind the
// guard described above. It refuses options that would leave the guard open (no token).
func (s *Server) HTTPHandler(opts HTTPOptions) (http.Handler, error) {
	if err := CheckToken(opts.Token); err != nil {
		return nil, fmt.Errorf("mcp: --http needs a bearer token: %v", err)
	}
	g := &httpGuard{srv: s.mcp, max: opts.MaxSessions, origins: map[string]bool{}}
	sum := sha256.Sum256([]byte(opts.Token))
	g.token = sum[:]
	for _, o := range opts.AllowedOrigins {
		norm, err := ParseOrigin(o)
		if err != nil {
			return nil, fmt.Errorf("mcp: allowed origin: %v", err)
		}
		g.origins[norm] = true
	}
	if g.max == 0 {
		g.max = DefaultMaxSessions
	}
	if g.max < 0 {
		return nil, fmt.Errorf("mcp: the session cap must be positive, got %d", g.max)
	}
	idle := opts.IdleTimeout
	if idle == 0 {
		idle = DefaultIdleTimeout
	}
	if idle < 0 {
		return nil, fmt.Errorf("mcp: the idle timeout must be positive, got %s", idle)
	}
	body := opts.MaxBodyBytes
	if body <= 0 {
		body = DefaultMaxMessageBytes
	}
	getServer := func(*http.Request) *mcp.Server { return s.mcp }
	g.legacy = mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
		SessionTimeout:      idle,
		MaxRequestBodyBytes: body,
		Logger:              slog.New(&logfHandler{logf: s.logf}),
	})
	// The SDK serves 2026-07-28 over HTTP only from a stateless handler, and a stateless handler
	// keeps no session for an older client (which then loses elicitation, roots and its log
	// level). So fsbox runs one of each on the same endpoint and routes by era (see modernHTTP).
	g.modern = mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
		Stateless:           true,
		MaxRequestBodyBytes: body,
		Logger:              slog.New(&logfHandler{logf: s.logf}),
		// A 2026-07-28 request lives as long as its POST: a client that closes the response
		// stream has cancelled the call (the specification's "MUST treat as cancellation").
		PropagateRequestCancellation: true,
	})
	return g, nil
}

// modernHTTP reports whether r belongs to the 2026-07-28 generation of the protocol, served
// statelessly: a POST whose MCP-Protocol-Version header names 2026-07-28 or later (the header is
// required on every request of that generation and must match the body's _meta, which the SDK
// checks). Everything else (initialize, requests of a legacy session, GET and DELETE) is the
// session-based generation's, as the specification's dual-era rule says: "a request carrying
// modern per-request _meta is served statelessly; an initialize request selects legacy semantics,
// scoped to the session". A legacy client's header is never 2026-07-28 or later, because it only
// sends the version its initialize negotiated.
func modernHTTP(r *http.Request) bool {
	v := r.Header.Values("MCP-Protocol-Version")
	return r.Method == http.MethodPost && len(v) == 1 && v[0] >= ModernProtocolVersion
}

// ModernProtocolVersion is the first protocol version without initialize and sessions
// (per-request _meta, server/discover, multi-round-trip requests).
const ModernProtocolVersion = "2026-07-28"

// httpGuard checks Origin, token and session cap before the SDK's handlers see a request, then
// hands it to the handler of its protocol generation.
type httpGuard struct {
	srv     *mcp.Server
	legacy  http.Handler // sessions (Mcp-Session-Id): protocol versions before 2026-07-28
	modern  http.Handler // stateless: 2026-07-28 and later
	token   []byte       // SHA-256 of the token
	origins map[string]bool
	max     int
	slots   atomic.Int64 // live sessions plus requests that may be opening one
}

func (g *httpGuard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if origins := r.Header.Values("Origin"); len(origins) > 0 {
		if len(origins) > 1 || !g.origins[strings.ToLower(origins[0])] {
			http.Error(w, "Forbidden: this server does not accept requests from Origin "+strconv.Quote(origins[0])+
				" (the host can allow it with --http-allow-origin)", http.StatusForbidden)
			return
		}
	}
	if !g.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="fsbox"`)
		http.Error(w, "Unauthorized: send the server's token as Authorization: Bearer <token>", http.StatusUnauthorized)
		return
	}
	// A 2026-07-28 request opens no session: it takes no slot (what bounds it while it runs is the
	// HTTP server's connection limit, as for every request). Counting it would also refuse a client
	// whose previous request's handler is still finishing after the answer went out.
	if modernHTTP(r) {
		g.modern.ServeHTTP(w, r)
		return
	}
	next := g.legacy
	if r.Method != http.MethodPost || r.Header.Get("Mcp-Session-Id") != "" {
		next.ServeHTTP(w, r)
		return
	}
	// This request may open a session: it takes a slot first. Once the SDK has answered, the slot
	// stays with the session it opened, until that session ends, or is given back.
	if g.slots.Add(1) > int64(g.max) {
		g.slots.Add(-1)
		w.Header().Set("Retry-After", "10")
		http.Error(w, fmt.Sprintf("Service Unavailable: %d sessions are open, the most this server allows (--http-max-sessions); "+
			"end one with DELETE or wait for an idle one to expire", g.max), http.StatusServiceUnavailable)
		return
	}
	next.ServeHTTP(w, r)
	if id := w.Header().Get("Mcp-Session-Id"); id != "" {
		for ss := range g.srv.Sessions() {
			if ss.ID() == id {
				go func() {
					ss.Wait()
					g.slots.Add(-1)
				}()
				return
			}
		}
	}
	g.slots.Add(-1) // no session, or it has already ended
}

// authorized reports whether r carries exactly one Authorization header with the bearer token.
func (g *httpGuard) authorized(r *http.Request) bool {
	vals := r.Header.Values("Authorization")
	if len(vals) != 1 {
		return false
	}
	scheme, tok, ok := strings.Cut(vals[0], " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	sum := sha256.Sum256([]byte(strings.TrimLeft(tok, " ")))
	return subtle.ConstantTimeCompare(sum[:], g.token) == 1
}
