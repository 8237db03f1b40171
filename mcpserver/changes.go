package mcpserver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsbox/fsbox/engine"
	"github.com/fsbox/fsbox/schema"
)

// elicitID is the key of fsbox's one input request in an input-required result.
const elicitID = "fsbox_change"

// errApprovalPending aborts an engine call whose change must first be approved: nothing has
// touched the disk; the handler answers with an input-required result instead. It wraps
// engine.ErrChangeDeferred, so the audit log records the call as pending, not failed.
var errApprovalPending = fmt.Errorf("the change waits for the client's approval: %w", engine.ErrChangeDeferred)

// Reasons shown to the model when a change is refused.
const (
	reasonHostRefuses = "the host refuses changes from MCP clients that cannot approve them"
	reasonDeclined    = "declined by the user"
	reasonCancelled   = "the user dismissed the approval"
	reasonRefused     = "refused by the user"
	reasonChanged     = "the file changed while the approval was pending; read it again and retry"
)

// approval is the change-approval state of one tools/call. Approval runs as a multi-round-trip
// (MCP 2026-07-28, SEP-2322), which the SDK replays as a plain elicitation/create request for
// older clients:
//
//  1. round one: the engine announces the change; the hook records it and aborts the call with
//     errApprovalPending, so nothing is written; the handler returns an input-required result
//     holding one form elicitation (the diff in its message) and, as requestState, a digest of
//     the announced change;
//  2. round two: the client retries with the elicitation's answer. The engine announces the
//     change again from the current file; only if its digest equals requestState does the
//     answer apply (accept with approve true goes ahead; anything else is a refusal with its
//     reason). A different digest means the file changed since the user saw the diff: the change
//     is refused, never applied unseen.
//
// A client can forge round two's answer; it is the approver anyway, exactly as under change_request.
type approval struct {
	policy    ChangePolicy
	canElicit bool
	answer    mcp.InputResponse // the client's answer in round two, or nil
	state     string            // requestState echoed in round two
	pending   *schema.FileChangeRequest
}

func (s *Server) approval(req *mcp.CallToolRequest) *approval {
	a := &approval{policy: s.opts.Changes}
	if caps := req.ClientCapabilities(); caps != nil && caps.Elicitation != nil {
		a.canElicit = caps.Elicitation.Form != nil || caps.Elicitation.URL == nil
	}
	if req.Params != nil {
		a.answer = req.Params.InputResponses[elicitID]
		a.state = req.Params.RequestState
	}
	return a
}

// hook returns the engine's ChangeRequest hook for the policy (see [ChangePolicy]); nil leaves
// the engine's own rule: unasked changes go ahead, interrupt-flagged ones are permission_denied.
//
// MCP answers approve or refuse only: an elicitation form has no field for a replacement, so a
// reviewer's edit (decision "edit" of change_request) is not offered here.
func (a *approval) hook() func(context.Context, *schema.FileChangeRequest) (schema.ChangeRequestResult, error) {
	decide := a.decider()
	if decide == nil {
		return nil
	}
	return func(ctx context.Context, req *schema.FileChangeRequest) (schema.ChangeRequestResult, error) {
		ok, reason, err := decide(ctx, req)
		return schema.ChangeRequestResult{Approve: ok, Reason: reason}, err
	}
}

// decideFunc approves (true) or refuses (false, with a reason) one change request.
type decideFunc func(context.Context, *schema.FileChangeRequest) (bool, string, error)

// decider returns the approval's decision for the policy; nil leaves the engine's own rule.
func (a *approval) decider() decideFunc {
	switch {
	case !a.canElicit && a.policy == ChangesRefuse:
		return func(ctx context.Context, _ *schema.FileChangeRequest) (bool, string, error) {
			engine.AnsweredBy(ctx, schema.AuditByHost)
			return false, reasonHostRefuses, nil
		}
	case !a.canElicit:
		return nil
	}
	return func(ctx context.Context, req *schema.FileChangeRequest) (bool, string, error) {
		if a.policy == ChangesAllow && req.Reason != "permission_rule" {
			engine.AnsweredBy(ctx, schema.AuditByHost)
			return true, "", nil
		}
		if a.answer == nil {
			a.pending = req
			return false, "", errApprovalPending
		}
		if a.state != changeDigest(req) {
			return false, reasonChanged, nil
		}
		res, ok := a.answer.(*mcp.ElicitResult)
		if !ok {
			return false, "", fmt.Errorf("mcp: the answer to %s is a %T, not an elicitation result", elicitID, a.answer)
		}
		switch res.Action {
		case "accept":
			ans, err := decodeAnswer(res.Content)
			if err != nil {
				return false, "", err
			}
			if ans.Approve {
				return true, "", nil
			}
			if strings.TrimSpace(ans.Reason) != "" {
				return false, ans.Reason, nil
			}
			return false, reasonRefused, nil
		case "decline":
			return false, reasonDeclined, nil
		}
		return false, reasonCancelled, nil
	}
}

// formAnswer is the content of an accepted approval form (inputRequired's requestedSchema).
type formAnswer struct {
	Approve bool   `json:"approve"`
	Reason  string `json:"reason,omitempty"`
}

// decodeAnswer decodes an accepted form's content with schema.Decode, as strictly as
// change_request answers on the JSON-RPC front end: {"Approve": true}, {"approve": "yes"} or an
// extra member is refused naming it (the call fails with change_request_failed, nothing is
// changed), never read as a refusal or an approval it was not.
func decodeAnswer(content map[string]any) (formAnswer, error) {
	var ans formAnswer
	data, err := json.Marshal(content)
	if err != nil {
		return ans, err
	}
	return ans, schema.Decode(data, &ans)
}

// inputRequired is the round-one result asking the client to approve a.pending.
func (a *approval) inputRequired() *mcp.CallToolResult {
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{elicitID: &mcp.ElicitParams{
			Mode:    "form",
			Message: changeMessage(a.pending),
			RequestedSchema: map[string]any{
				"type": "object",
				"properties": map[string]any{
					"approve": map[string]any{"type": "boolean", "title": "Apply this change", "default": true},
					"reason":  map[string]any{"type": "string", "title": "Reason, if you refuse (shown to the model)"},
				},
				"required": []any{"approve"},
			},
		}},
		RequestState: changeDigest(a.pending),
	}
}

// changeMessage is the elicitation text: what changes where, and the diff. Paths are
// root-relative; the engine bounds the diff (8192 characters, truncated said).
func changeMessage(req *schema.FileChangeRequest) string {
	var b strings.Builder
	fmt.Fprintf(&b, "fsbox: approve this %s of %s?", strings.ReplaceAll(req.Operation, "_", " "), req.Path)
	if req.Rule != nil {
		fmt.Fprintf(&b, " (a permission rule asks for approval: %s)", ruleText(req.Rule))
	}
	if req.Diff != "" {
		b.WriteString("\n\n")
		b.WriteString(req.Diff)
	}
	if req.Truncated {
		b.WriteString("\n[the diff is truncated]")
	}
	return b.String()
}

func ruleText(r *schema.PermissionRule) string {
	data, err := json.Marshal(r)
	if err != nil {
		return "interrupt"
	}
	return string(data)
}

// changeDigest identifies an announced change: its tool, operation, path and diff.
func changeDigest(req *schema.FileChangeRequest) string {
	h := sha256.New()
	for _, part := range []string{req.Tool, req.Operation, req.Path, req.Diff, fmt.Sprint(req.Truncated)} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// eventSink sends the engine's events as notifications/message (logger "fsbox", the event object
// as data, root_dir removed: the model may see logs). Changes are level notice, the rest info.
// The SDK drops them unless the client set a log level, so events are never required.
func (s *Server) eventSink(ctx context.Context, req *mcp.CallToolRequest) func(any) {
	if req.Session == nil {
		return nil
	}
	return s.sessionEventSink(ctx, req.Session)
}

// sessionEventSink sends events to ss as logging notifications (a resources/read's too).
func (s *Server) sessionEventSink(ctx context.Context, ss *mcp.ServerSession) func(any) {
	return func(ev any) {
		data, err := json.Marshal(ev)
		if err != nil {
			s.logf("encoding an event: %v", err)
			return
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			s.logf("decoding an event: %v", err)
			return
		}
		delete(m, "root_dir")
		level := mcp.LoggingLevel("info")
		switch m["kind"] {
		case schema.KindFileWritten, schema.KindFileEdited, schema.KindDirectoryCreated:
			level = "notice"
		}
		if err := ss.Log(ctx, &mcp.LoggingMessageParams{Level: level, Logger: "fsbox", Data: m}); err != nil {
			s.logf("sending an event: %v", err)
		}
	}
}
