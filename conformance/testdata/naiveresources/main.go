// Command naiveresources is an insecure MCP server for the grader's own tests: it serves the
// file://{+path} resource template by reading the URI's path from the host with no containment
// at all, as a careless server would. Its one argument is the root, which it ignores for reads.
// The vectors under conformance/vectors/resources must fail it.
package main

import (
	"context"
	"log"
	"net/url"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	s := mcp.NewServer(&mcp.Implementation{Name: "naiveresources", Version: "1"}, nil)
	s.AddResourceTemplate(&mcp.ResourceTemplate{Name: "file", URITemplate: "file://{+path}"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			u, err := url.Parse(req.Params.URI)
			if err != nil {
				return nil, err
			}
			b, err := os.ReadFile(u.Path)
			if err != nil {
				return nil, mcp.ResourceNotFoundError(req.Params.URI)
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: string(b)}}}, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
