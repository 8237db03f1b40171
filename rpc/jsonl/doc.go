// Package jsonl reads JSON-RPC 2.0 messages framed as JSON lines, one value per "\n"-terminated
// line, and says what each line is: a request, a notification, a reply, or a line to refuse, with
// the error code and message to refuse it with. It is the framing that fsbox serve (package rpc)
// and fsbox mcp's stdio transport (package mcpserver) share, so that both answer the same bad line
// with the same bytes.
//
// It owns the rules a single line is judged by: the size bound and the skipping of an oversize
// line without buffering it, the trailing "\r" and leading byte order mark, strict UTF-8 and
// exactly one JSON value, "jsonrpc": "2.0", duplicate members, the types of "method", "id" and
// "params", and the small scanners over valid JSON these need. It knows nothing of a connection:
// what is in flight, which ids were sent, how a reply is written, what a method means. Those are
// the callers'; so are the rules that depend on them (a reply to an unknown id, a duplicate id in
// flight), for which it only supplies the shared message text.
//
// It does not protect against anything beyond one line: memory across lines, concurrency and
// cancellation are bounded by the caller.
package jsonl

// JSON-RPC 2.0 error codes of the rejections Classify returns.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeInvalidParams  = -32602
)
