package conformance

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A result's text is what the model reads. `fsbox mcp` sends it as the text block only, with
// structuredContent carrying the typed fields; an image read adds an image block, which is not part
// of the text but is still in the outcome, where leaks are looked for. A structuredContent that
// carries its own text, and a result without one, read as before.
func TestMCPOutcomeText(t *testing.T) {
	img := &mcp.ImageContent{Data: []byte("png"), MIMEType: "image/png"}
	imgJSON, _ := json.Marshal(img)
	for _, c := range []struct {
		name       string
		res        *mcp.CallToolResult
		text       string
		other      []string
		structured bool
	}{
		{"structured without text, text and image blocks", &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: "[pic.png | image/png]"}, img},
			StructuredContent: json.RawMessage(`{"path":"pic.png"}`),
		}, "[pic.png | image/png]", []string{string(imgJSON)}, true},
		{"structured without text, text block only", &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: "one"}},
			StructuredContent: json.RawMessage(`{"path":"a.txt"}`),
		}, "one", nil, true},
		{"structured with its own text", &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: "block"}, img},
			StructuredContent: json.RawMessage(`{"text":"own","path":"a.txt"}`),
		}, "own", nil, true},
		{"no structured content", &mcp.CallToolResult{
			Content: []mcp.Content{&mcp.TextContent{Text: "block"}, img},
		}, "block\n" + string(imgJSON), nil, false},
	} {
		out := mcpOutcome(c.res, nil)
		m, _ := out.Result.(map[string]any)
		if out.Error != nil || m == nil || m["text"] != c.text {
			t.Errorf("%s: outcome %v, want text %q", c.name, out.Result, c.text)
			continue
		}
		var other []string
		if o, ok := m[mcpOtherContent].([]string); ok {
			other = o
		}
		if !slices.Equal(other, c.other) {
			t.Errorf("%s: %s %v, want %v", c.name, mcpOtherContent, other, c.other)
		}
		if _, has := m["path"]; has != c.structured {
			t.Errorf("%s: outcome %v: structured members kept %v, want %v", c.name, m, has, c.structured)
		}
	}
}
