package server

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/fsbox/fsbox/engine"
	"github.com/fsbox/fsbox/rpc"
	"github.com/fsbox/fsbox/schema"
)

// The host's checkpoint methods (docs/protocol.md §4.7): checkpoint/create, list, diff and
// restore answer the client that spawned fsbox, never the model; they need config.journal.
// Their params are decoded strictly like every other (a misspelt member is refused, named).

// checkpoint serves one checkpoint/* method.
func (s *session) checkpoint(ctx context.Context, eng *engine.Engine, req *rpc.Request) (any, error) {
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
