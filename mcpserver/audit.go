package mcpserver

import (
	"context"
	"errors"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsbox/fsbox/engine"
	"github.com/fsbox/fsbox/schema"
)

// The audit log's share of the MCP front end: the engine records every call it runs
// (engine/audit.go); auditUnrun records the tools/calls the SDK refuses before any handler runs
// (a tool name no tool has, params it cannot decode), so every tools/call has its line, written
// before the reply.

// auditSession is a new session of the host's audit log for one engine, nil without a log.
func auditSession(l *engine.AuditLog) *engine.AuditSession {
	if l == nil {
		return nil
	}
	return l.Session()
}

// handlerRanKey keys the flag a tool handler sets, telling auditUnrun the engine saw the call.
type handlerRanKey struct{}

// markHandlerRan sets the flag of auditUnrun, when there is one.
func markHandlerRan(ctx context.Context) {
	if ran, ok := ctx.Value(handlerRanKey{}).(*bool); ok {
		*ran = true
	}
}

// auditUnrun records a tools/call that failed before a handler ran. A line that cannot be
// written turns the refusal into audit_failed.
func (s *Server) auditUnrun(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		rec := s.eng.AuditSession()
		if method != "tools/call" || rec == nil {
			return next(ctx, method, req)
		}
		ran := new(bool)
		res, err := next(context.WithValue(ctx, handlerRanKey{}, ran), method, req)
		if err == nil || *ran || ctx.Err() != nil {
			return res, err
		}
		r := schema.AuditRecord{Method: schema.AuditMethodTool, Outcome: schema.AuditError, ErrorKind: schema.KindInvalidArguments}
		if call, ok := req.(*mcp.CallToolRequest); ok && call.Params != nil {
			r.Tool = engine.AuditToolName(call.Params.Name)
		}
		if strings.HasPrefix(err.Error(), "unknown tool") {
			r.ErrorKind = schema.KindUnknownTool
		}
		if rerr := rec.Record(r); rerr != nil {
			return toolError(&engine.Error{Kind: schema.KindAuditFailed, Msg: "The call's refusal is withheld: the host's audit log could not be written; no further call will run."}), nil
		}
		return res, err
	}
}

// auditCompat records a compatibility tool's call that failed before it reached the engine (its
// own argument checks), which the engine therefore did not record; calls is how many engine calls
// it made. It returns the audit_failed error when the line could not be written.
func (s *Server) auditCompat(eng *engine.Engine, tool string, calls int64, err error) error {
	rec := eng.AuditSession()
	var ee *engine.Error
	if rec == nil || calls > 0 || err == nil || !errors.As(err, &ee) {
		return nil
	}
	r := schema.AuditRecord{Method: schema.AuditMethodTool, Tool: engine.AuditToolName(tool), Outcome: schema.AuditError, ErrorKind: ee.Kind}
	if rerr := rec.Record(r); rerr != nil {
		return &engine.Error{Op: tool, Kind: schema.KindAuditFailed, Msg: "The call's refusal is withheld: the host's audit log could not be written; no further call will run."}
	}
	return nil
}
