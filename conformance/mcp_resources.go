package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCP resources through an mcp: target. Vectors under vectors/resources/ send resources/read
// (and the list methods) as method steps; they need the target capability mcp_resources, which
// only mcp: targets have (fsbox's own protocol has no resources, so the other targets skip them).
// A server that offers no resources capability skips them too: it cannot leak through a resource
// it does not serve. Every answer is graded as a tool call's is: an error is a refusal, a result
// is checked for outside bytes and host paths.

// resourceMethods are the methods an mcp: target sends for a method step.
var resourceMethods = map[string]bool{"resources/read": true, "resources/list": true, "resources/templates/list": true}

// isResourceMethod reports whether a method step needs mcp_resources rather than methods.
func isResourceMethod(method string) bool { return resourceMethods[method] }

// Request sends a resources method; any other method is declined (the MCP client has no raw
// requests), which skips the step.
func (s *mcpSession) Request(ctx context.Context, method string, params any) (*Outcome, error) {
	if !resourceMethods[method] {
		return &Outcome{Skipped: fmt.Sprintf("an mcp: target sends no raw %s request", method)}, nil
	}
	if res := s.cs.InitializeResult(); res == nil || res.Capabilities == nil || res.Capabilities.Resources == nil {
		return &Outcome{Skipped: "the server offers no resources"}, nil
	}
	var res any
	var err error
	switch method {
	case "resources/read":
		var p mcp.ReadResourceParams
		if err := decodeParams(params, &p); err != nil {
			return nil, err
		}
		res, err = s.cs.ReadResource(ctx, &p)
	case "resources/list":
		res, err = s.cs.ListResources(ctx, &mcp.ListResourcesParams{})
	case "resources/templates/list":
		res, err = s.cs.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{})
	}
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		e := map[string]any{"code": json.Number(strconv.FormatInt(rpcErr.Code, 10)), "message": rpcErr.Message}
		if len(rpcErr.Data) > 0 {
			e["data"] = normalizeJSON(json.RawMessage(rpcErr.Data))
		}
		return &Outcome{Error: flattenError(e)}, nil
	}
	if err != nil {
		return nil, s.explain(method, err)
	}
	m, _ := normalizeJSON(res).(map[string]any)
	return &Outcome{Result: m}, nil
}

// decodeParams decodes a step's params strictly into dst.
func decodeParams(params any, dst any) error {
	b, err := json.Marshal(params)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return fmt.Errorf("bad params in vector: %w", err)
	}
	return nil
}

// sentByMethod is what a method step sent, for the leak check (strings the client sent are not
// leaks): for a resources method its params, plus the path of each file:// URI in them as sent and
// percent-decoded, since a server's message names the path it was given rather than the URI.
// Other methods: nil, as before resources (their answers must not echo anything).
func sentByMethod(method string, params any) any {
	if !isResourceMethod(method) {
		return nil
	}
	sent := []any{params}
	for _, s := range stringsIn(params) {
		rest, ok := strings.CutPrefix(s, "file://")
		if !ok {
			continue
		}
		if i := strings.IndexAny(rest, "?#"); i >= 0 {
			rest = rest[:i]
		}
		sent = append(sent, rest)
		if dec, err := url.PathUnescape(rest); err == nil {
			sent = append(sent, dec)
		}
	}
	return sent
}
