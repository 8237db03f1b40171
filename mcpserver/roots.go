package mcpserver

import (
	"context"
	"net/url"
	"path/filepath"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsbox/fsbox/engine"
)

// MCP roots. A client's roots are its workspace; the host's root is the security boundary. So a
// client root can only narrow what the session sees, never what it may reach:
//
//  1. the roots are asked for once per session, at its first tool call, and again after
//     notifications/roots/list_changed; only clients on a protocol before 2026-07-28 that declared
//     the roots capability are asked (the newer protocol deprecates roots and forbids asking
//     outside a multi-round-trip, which a tool call of any kind would then need);
//  2. the first file:// root, in the client's order, that resolves (symlinks followed) to a
//     directory strictly inside the host's root becomes the session's working directory: relative
//     paths resolve there and results are relative to it;
//  3. a root equal to the host's root, a root containing it, a root outside it, a root that does
//     not resolve or is not file:// changes nothing: the session keeps the host's root and cwd;
//  4. confinement, patterns and permission rules stay the host's in every case (they are
//     root-relative, so re-rooting the engine would shift their meaning).
//
// It does not protect against a client that lies about its roots: roots only ever choose a
// working directory inside the host's root.

// sessionState is what one MCP session adds to the host's engine.
type sessionState struct {
	mu     sync.Mutex
	listed bool           // the client's roots were asked for since the last list_changed
	eng    *engine.Engine // the engine with the client's cwd, or nil for the host's
}

func (st *sessionState) close() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.eng != nil {
		st.eng.Close()
		st.eng = nil
	}
}

// state returns the session's state, creating it (and its clean-up when the session ends).
func (s *Server) state(ss *mcp.ServerSession) *sessionState {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.sessions[ss]
	if st == nil {
		st = &sessionState{}
		s.sessions[ss] = st
		go func() {
			ss.Wait()
			s.mu.Lock()
			delete(s.sessions, ss)
			s.mu.Unlock()
			st.close()
		}()
	}
	return st
}

// forgetRoots makes the next tool call of the session ask for its roots again.
func (s *Server) forgetRoots(ss *mcp.ServerSession) {
	st := s.state(ss)
	st.mu.Lock()
	st.listed = false
	st.mu.Unlock()
}

// engineFor returns the engine serving req: the host's, or the session's narrowed one.
func (s *Server) engineFor(ctx context.Context, req *mcp.CallToolRequest) *engine.Engine {
	caps := req.ClientCapabilities()
	if req.Session == nil || caps == nil || caps.RootsV2 == nil || req.ProtocolVersion() >= "2026-07-28" {
		return s.eng
	}
	st := s.state(req.Session)
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.listed {
		st.listed = true
		if st.eng != nil {
			st.eng.Close()
			st.eng = nil
		}
		res, err := req.Session.ListRoots(ctx, nil)
		if err != nil {
			s.logf("listing the client's roots: %v; keeping the host's root", err)
		} else if cwd := s.cwdFromRoots(res.Roots); cwd != "" {
			cfg := s.cfg
			cfg.Cwd = cwd
			eng, err := engine.New(cfg, engine.Options{DefaultRoot: s.opts.DefaultRoot, Audit: auditSession(s.opts.Audit)})
			if err != nil {
				s.logf("narrowing to the client's root %s: %v; keeping the host's root", cwd, err)
			} else {
				st.eng = eng
			}
		}
	}
	if st.eng != nil {
		return st.eng
	}
	return s.eng
}

// cwdFromRoots returns the root-relative working directory rule 2 picks from roots, or "".
func (s *Server) cwdFromRoots(roots []*mcp.Root) string {
	host := s.eng.RootDir()
	for _, r := range roots {
		if r == nil {
			continue
		}
		u, err := url.Parse(r.URI)
		if err != nil || u.Scheme != "file" || (u.Host != "" && u.Host != "localhost") {
			continue
		}
		real, err := filepath.EvalSymlinks(filepath.FromSlash(u.Path))
		if err != nil {
			continue
		}
		rel, err := filepath.Rel(host, real)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
			continue
		}
		return filepath.ToSlash(rel)
	}
	return ""
}
