// Package mcpserver serves fsbox's file tools as a Model Context Protocol server, built on the
// official Go SDK (github.com/modelcontextprotocol/go-sdk). It is the MCP twin of package server:
// the same engine, configuration, policy and limits, the same tool descriptors from the schema
// bundle, spoken over MCP's stdio or streamable HTTP transport instead of fsbox's own JSON-RPC.
//
// What it maps, and how (docs/mcp.md has the whole account):
//
//   - each enabled tool is an MCP tool whose inputSchema is the bundle's and whose outputSchema
//     is the bundle's result schema without its text; a result carries its text as the one
//     TextContent block and the rest of the typed result as structuredContent (structured.go);
//     a tool failure is an isError result with the engine's model-facing message and its kind
//     under _meta["fsbox/error"];
//   - a change is approved through MCP elicitation when the client declares it, otherwise the
//     host's [ChangePolicy] decides;
//   - events are MCP logging notifications, sent only to a client that set a log level;
//   - files are resources through one file://{+path} template, never enumerated; a read is a
//     read_file call after the URI rules of resources.go refuse every spelling of traversal;
//   - both protocol generations are served: 2026-07-28 (server/discover, per-request _meta,
//     multi-round-trip approvals) and the initialize handshake, chosen per client by how it
//     opens; over HTTP by the MCP-Protocol-Version header (http.go);
//   - the client's roots may narrow the host's root, never widen it (see roots.go);
//   - [CompatReference] presents the reference filesystem server's tool names and argument shapes;
//   - on stdio, [StdioTransport] answers bad input as fsbox serve does (stdio.go); over HTTP,
//     [Server.HTTPHandler] puts a bearer token, an Origin check and a session cap in front of the
//     SDK's handler (http.go).
//
// It does not protect against a client that approves a change it should not: an elicitation
// answer is the client's (and its user's) decision, exactly as a change_request answer is under
// fsbox serve.
package mcpserver
