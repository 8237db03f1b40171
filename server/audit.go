package server

import (
	"encoding/json"

	"github.com/fsbox/fsbox/engine"
	"github.com/fsbox/fsbox/rpc"
	"github.com/fsbox/fsbox/schema"
)

// The audit log's share of the server: the engine records every call it runs (engine/audit.go);
// the session records the tools/calls it refuses before the engine sees them (params that are
// not {name, arguments}, a call before initialize), so every tools/call has its line, written
// before the reply. A line that cannot be written turns the reply into audit_failed.

// auditSession is a new session of the host's audit log, nil without one.
func (s *Server) auditSession() *engine.AuditSession {
	if s.opts.Audit == nil {
		return nil
	}
	return s.opts.Audit.Session()
}

// refuseUnrun records a tools/call refused with refusal before it reached the engine and returns
// refusal, or audit_failed when the line could not be written.
func (s *session) refuseUnrun(raw json.RawMessage, refusal *rpc.Error) *rpc.Error {
	kind := schema.KindInvalidArguments
	if d, ok := refusal.Data.(schema.ErrorData); ok && d.Kind != "" {
		kind = d.Kind
	}
	if aerr := s.auditUnrun(raw, kind); aerr != nil {
		return aerr
	}
	return refusal
}

// auditUnrun records a tools/call refused with kind before it reached the engine; the tool is
// the one named, when params name one. It returns the audit_failed error when the line could
// not be written, nil otherwise (and without a log).
func (s *session) auditUnrun(raw json.RawMessage, kind schema.ErrorKind) *rpc.Error {
	if s.audit == nil {
		return nil
	}
	var named struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(raw, &named)
	r := schema.AuditRecord{Method: schema.AuditMethodTool, Tool: engine.AuditToolName(named.Name), Outcome: schema.AuditError, ErrorKind: kind}
	if err := s.audit.Record(r); err != nil {
		return &rpc.Error{Code: schema.CodeFatal, Message: "The call's refusal is withheld: the host's audit log could not be written; no further call will run.",
			Data: schema.ErrorData{Kind: schema.KindAuditFailed}}
	}
	return nil
}
