package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/fsbox/fsbox/engine"
	"github.com/fsbox/fsbox/rpc"
	"github.com/fsbox/fsbox/schema"
)

// The host's checkpoint methods (docs/protocol.md §4.7): checkpoint/create, list, diff and
// restore answer the client that spawned fsbox, never the model; they need config.journal.
// Their params are decoded strictly like every other (a misspelt member is refused, named).

// checkpoint serves one checkpoint/* method and records it in the host's audit log (its own
// method name, the root-relative paths it reported, the outcome), before the reply like a tool
// call's line. Without a writable log it runs nothing and answers audit_failed: a restore is a
// change, and nothing runs unaudited.
func (s *session) checkpoint(ctx context.Context, eng *engine.Engine, req *rpc.Request) (any, error) {
	if s.audit == nil {
		return s.runCheckpoint(ctx, eng, req)
	}
	if s.audit.Err() != nil {
		return nil, auditFailed("The host method was not run: the host's audit log cannot be written; no further call will run.")
	}
	start := time.Now()
	res, err := s.runCheckpoint(ctx, eng, req)
	r := schema.AuditRecord{Method: req.Method, Outcome: schema.AuditOK, Paths: checkpointPaths(res)}
	if len(r.Paths) > auditMaxPaths {
		r.Paths, r.PathsOmitted = r.Paths[:auditMaxPaths], len(r.Paths)-auditMaxPaths
	}
	if err != nil {
		r.Outcome, r.ErrorKind = schema.AuditError, schema.KindInternal
		var rerr *rpc.Error
		if errors.As(err, &rerr) {
			if d, ok := rerr.Data.(schema.ErrorData); ok && d.Kind != "" {
				r.ErrorKind = d.Kind
			} else if rerr.Code == schema.CodeInvalidParams {
				r.ErrorKind = schema.KindInvalidArguments
			}
		}
	}
	r.DurationMs = float64(time.Since(start).Microseconds()) / 1000
	if aerr := s.audit.Record(r); aerr != nil {
		return nil, auditFailed("The host method's result is withheld: the host's audit log could not be written. A restore may have been applied; no further call will run.")
	}
	return res, err
}

// auditMaxPaths is the most paths one audit line lists (the engine's own bound for tool calls).
const auditMaxPaths = 256

// auditFailed is the fatal audit_failed error of a host method.
func auditFailed(msg string) *rpc.Error {
	return &rpc.Error{Code: schema.CodeFatal, Message: msg, Data: schema.ErrorData{Kind: schema.KindAuditFailed}}
}

// checkpointPaths are the root-relative paths a checkpoint method's result names: a diff's
// paths; a restore's restored, overwritten and not-restored ones. Never contents or host paths.
func checkpointPaths(res any) []string {
	switch r := res.(type) {
	case *schema.CheckpointDiffResult:
		return r.Paths
	case *schema.CheckpointRestoreResult:
		paths := append(append([]string(nil), r.Restored...), r.Overwritten...)
		for _, u := range r.NotRestored {
			paths = append(paths, u.Path)
		}
		return paths
	}
	return nil
}

// runCheckpoint decodes a checkpoint/* method's params and runs it on the engine.
func (s *session) runCheckpoint(ctx context.Context, eng *engine.Engine, req *rpc.Request) (any, error) {
	var (
		res any
		err error
	)
	switch req.Method {
	case "checkpoint/create":
		var p schema.CheckpointCreateParams
		if derr := decodeParams(req, &p, false); derr != nil {
			return nil, derr
		}
		res, err = eng.CheckpointCreate(p.Label)
	case "checkpoint/list":
		if derr := decodeParams(req, &struct{}{}, false); derr != nil {
			return nil, derr
		}
		res, err = eng.CheckpointList()
	case "checkpoint/diff":
		var p schema.CheckpointIDParams
		if derr := decodeParams(req, &p, true); derr != nil {
			return nil, derr
		}
		res, err = eng.CheckpointDiff(ctx, p.ID)
	case "checkpoint/restore":
		var p schema.CheckpointRestoreParams
		if derr := decodeParams(req, &p, true); derr != nil {
			return nil, derr
		}
		res, err = eng.CheckpointRestore(ctx, p.ID, p.Force)
	default:
		return nil, &rpc.Error{Code: schema.CodeMethodNotFound, Message: fmt.Sprintf("method not found: %s", req.Method)}
	}
	if err != nil {
		return nil, s.toRPCError(ctx, err)
	}
	return res, nil
}

// decodeParams decodes a method's params strictly into dst; need says they are required.
func decodeParams(req *rpc.Request, dst any, need bool) *rpc.Error {
	raw := req.Params
	if len(raw) == 0 || string(raw) == "null" {
		if need {
			return invalidParams(req.Method + " needs params {id}")
		}
		raw = json.RawMessage("{}")
	}
	if err := schema.Decode(raw, dst); err != nil {
		return decodeError(req.Method, err)
	}
	return nil
}

// journalOptions connects the journal's notices to the session's client: a checkpoint dropped
// by the bound is a checkpoint/dropped notification.
func (s *session) journalOptions(c *rpc.Conn) engine.JournalOptions {
	return engine.JournalOptions{Dropped: func(p schema.CheckpointDroppedParams) {
		if err := c.Notify(context.Background(), "checkpoint/dropped", p); err != nil {
			s.logf("sending checkpoint/dropped: %v", err)
		}
	}}
}
