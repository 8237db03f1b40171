package mcpserver

import (
	"encoding/json"
	"fmt"

	"github.com/fsbox/fsbox/rpc/jsonl"
	"github.com/fsbox/fsbox/schema"
)

// A tools/call result carries the text once. The model's text is the TextContent block, which is
// all that most hosts read and forward; structuredContent is the typed result without its text
// member (the "typed" result shape of fsbox serve), and every tool's outputSchema is the bundle's
// result schema without the text property, so that a client which validates structuredContent
// against outputSchema, as the MCP specification asks, accepts it. Sending the text in both
// places doubled a read's reply for no reader: a host that wants the text and the typed fields
// reads the block and structuredContent.
//
// This protects against nothing; it is cost. What it must not do is leave the text off the
// content block, or declare a schema the results do not meet: structured_test.go checks both for
// every tool of both presentations.

// textMember is the member of every tool result that holds the model's text.
const textMember = "text"

// toolOutputSchema returns the outputSchema an MCP tool declares for result, the JSON Schema of
// the typed result it wraps (from the bundle): result without the text property, neither among
// its properties nor required. result is not modified; the copy shares what lies below the
// top-level properties.
func toolOutputSchema(result map[string]any) map[string]any {
	out := make(map[string]any, len(result))
	for k, v := range result {
		out[k] = v
	}
	if props, ok := result["properties"].(map[string]any); ok {
		kept := make(map[string]any, len(props))
		for k, v := range props {
			if k != textMember {
				kept[k] = v
			}
		}
		out["properties"] = kept
	}
	switch req := result["required"].(type) {
	case []any:
		kept := make([]any, 0, len(req))
		for _, r := range req {
			if r != textMember {
				kept = append(kept, r)
			}
		}
		out["required"] = kept
	case []string:
		kept := make([]string, 0, len(req))
		for _, r := range req {
			if r != textMember {
				kept = append(kept, r)
			}
		}
		out["required"] = kept
	}
	return out
}

// structuredContent returns the text of res, a tool's typed result held by pointer (a
// *schema.XxxResult, or a compatibility tool's own type with a `json:"text"` string field), and
// its JSON without the text member. The text is never encoded into that JSON: res's text field is
// emptied while res is encoded and put back after. res must be this call's own result, which no
// one else reads meanwhile (every tools/call gets a fresh one from the engine).
func structuredContent(res any) (text string, data []byte, err error) {
	text, ok := schema.ResultText(res)
	if !ok || !schema.SetResultText(res, "") {
		return "", nil, fmt.Errorf("mcp: a %T result has no settable text field", res)
	}
	defer schema.SetResultText(res, text)
	data, err = json.Marshal(res)
	if err != nil {
		return "", nil, fmt.Errorf("mcp: encoding a result: %w", err)
	}
	cut, ok := cutEmptyText(data)
	if !ok {
		return "", nil, fmt.Errorf("mcp: a %T result encoded without a top-level text member", res)
	}
	return text, cut, nil
}

// cutEmptyText returns obj, a compact JSON object as encoding/json writes a struct, without its
// top-level member "text":"" (jsonl.CutMember). ok is false when obj is not such an object, has
// no such member, or its text is not empty (a result the server did not empty first).
func cutEmptyText(obj []byte) ([]byte, bool) {
	out, value := jsonl.CutMember(obj, textMember)
	if string(value) != `""` {
		return obj, false
	}
	return out, true
}
