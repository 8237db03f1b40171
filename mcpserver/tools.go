package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsbox/fsbox/engine"
	"github.com/fsbox/fsbox/schema"
)

// ErrorMetaKey is the _meta key of an isError result that carries the failure's kind:
// {"kind": "outside_root", "retry": true, "counts_as_retry": true, "path": "../x"} (path only when the engine names one,
// root-relative or as the model spelled it).
const ErrorMetaKey = "fsbox/error"

// toolDef is one presented MCP tool and how a call of it runs on the engine.
type toolDef struct {
	tool *mcp.Tool
	// run calls the engine for the raw MCP arguments; nil means "call tool.Name with them as they
	// are". It returns the typed result or an *engine.Error.
	run func(ctx context.Context, c *toolCall, args json.RawMessage) (any, error)
}

// toolCall is what one tools/call gives a toolDef's run.
type toolCall struct {
	eng   *engine.Engine
	hooks engine.Hooks
}

// nativeTools presents the engine's enabled tools under their own names, with the bundle's
// descriptors; each outputSchema is the bundle's result schema without its text (structured.go).
func nativeTools(eng *engine.Engine) ([]*toolDef, error) {
	descs, err := schema.Descriptors(eng.ToolNames(), eng.ContentHashes())
	if err != nil {
		return nil, err
	}
	out := make([]*toolDef, 0, len(descs))
	for _, d := range descs {
		spec, _ := schema.ToolByName(d.Name)
		out = append(out, &toolDef{tool: &mcp.Tool{
			Name:         d.Name,
			Description:  d.Description,
			InputSchema:  d.InputSchema,
			OutputSchema: toolOutputSchema(d.OutputSchema),
			Annotations:  annotations(spec),
		}})
	}
	return out, nil
}

// annotations are the MCP hints of a tool: every tool works on one local directory
// (openWorldHint false); readers are read-only; write_file and edit_file may destroy content,
// create_directory only adds; writing the same content or creating the same directory twice has
// no further effect, editing twice does.
func annotations(spec schema.ToolSpec) *mcp.ToolAnnotations {
	no, yes := false, true
	a := &mcp.ToolAnnotations{ReadOnlyHint: spec.ReadOnly, OpenWorldHint: &no}
	switch {
	case spec.ReadOnly:
		a.DestructiveHint, a.IdempotentHint = &no, true
	case spec.Name == schema.ToolCreateDirectory:
		a.DestructiveHint, a.IdempotentHint = &no, true
	case spec.Name == schema.ToolWriteFile:
		a.DestructiveHint, a.IdempotentHint = &yes, true
	default:
		a.DestructiveHint, a.IdempotentHint = &yes, false
	}
	return a
}

// handler runs one tools/call of t. Precedence of the outcomes:
//
//  1. a change waiting for the client's approval is an input-required result (elicitation,
//     see changes.go); the SDK turns it into an elicitation/create request for older clients;
//  2. a typed result is its text as the one TextContent block plus the rest as structuredContent;
//  3. an *engine.Error is an isError result with the engine's message and _meta[ErrorMetaKey];
//  4. a call whose context ended is the context's error (a protocol error, as MCP cancels);
//  5. anything else is an isError "internal error" result, its cause logged, never shown.
func (s *Server) handler(t *toolDef) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		markHandlerRan(ctx)
		args := req.Params.Arguments
		if len(args) == 0 || string(args) == "null" {
			args = json.RawMessage("{}")
		}
		ap := s.approval(req)
		c := &toolCall{eng: s.engineFor(ctx, req), hooks: engine.Hooks{Event: s.eventSink(ctx, req), ChangeRequest: ap.hook()}}
		var res any
		var err error
		if t.run != nil {
			cctx, calls := engine.WithCallCount(ctx)
			res, err = t.run(cctx, c, args)
			if aerr := s.auditCompat(c.eng, t.tool.Name, calls.Load(), err); aerr != nil {
				res, err = nil, aerr
			}
		} else {
			res, err = c.eng.Call(ctx, t.tool.Name, args, c.hooks)
		}
		if ap.pending != nil {
			return ap.inputRequired(), nil
		}
		if err != nil {
			return s.errorResult(ctx, err)
		}
		out, err := resultOf(res)
		if err != nil {
			return s.errorResult(ctx, err) // rule 5: a result we cannot present is a bug, logged
		}
		return out, nil
	}
}

// resultOf wraps a typed tool result: its text as the one TextContent block, its other members as
// structuredContent (see structured.go), and for an image or PDF the media block.
func resultOf(res any) (*mcp.CallToolResult, error) {
	text, data, err := structuredContent(res)
	if err != nil {
		return nil, err
	}
	out := &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: json.RawMessage(data),
	}
	if media := mediaContent(res); media != nil {
		out.Content = append(out.Content, media)
	}
	return out, nil
}

// mediaContent is the second content block of a read_file that returned an image or PDF as data:
// an image as MCP image content, anything else as an embedded resource with its blob, so a
// multimodal host can show it to the model. The bytes also stay in structuredContent's data.
func mediaContent(res any) mcp.Content {
	r, ok := res.(*schema.ReadFileResult)
	if !ok || r.Data == nil || r.MediaType == "" {
		return nil
	}
	if strings.HasPrefix(r.MediaType, "image/") {
		return &mcp.ImageContent{Data: r.Data, MIMEType: r.MediaType}
	}
	return &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "fsbox:" + r.Path, MIMEType: r.MediaType, Blob: r.Data}}
}

// errorResult maps a failed call onto MCP (rules 3-5 of handler).
func (s *Server) errorResult(ctx context.Context, err error) (*mcp.CallToolResult, error) {
	var ee *engine.Error
	if !errors.As(err, &ee) {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		s.logf("internal error: %v", err)
		return toolError(&engine.Error{Kind: schema.KindInternal, Msg: schema.InternalErrorMessage}), nil
	}
	if ee.Kind == schema.KindInternal && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if ee.Kind == schema.KindInternal {
		s.logf("internal error: %v", err)
	}
	return toolError(ee), nil
}

// toolError is the isError result of an engine failure. Its text is ee.Msg, which the engine
// writes for the model and never fills with a host path.
func toolError(ee *engine.Error) *mcp.CallToolResult {
	retry, _ := schema.LookupErrorKind(ee.Kind)
	meta := map[string]any{"kind": string(ee.Kind), "retry": retry, "counts_as_retry": schema.CountsAsRetryFor(ee.Op, ee.Kind)}
	if ee.Path != "" {
		meta["path"] = ee.Path
	}
	return &mcp.CallToolResult{
		Meta:    mcp.Meta{ErrorMetaKey: meta},
		Content: []mcp.Content{&mcp.TextContent{Text: ee.Msg}},
		IsError: true,
	}
}
