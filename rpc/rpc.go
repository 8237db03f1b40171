package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/fsbox/fsbox/rpc/jsonl"
)

// Standard JSON-RPC 2.0 error codes, plus the LSP-style cancellation code.
const (
	CodeParseError       = jsonl.CodeParseError
	CodeInvalidRequest   = jsonl.CodeInvalidRequest
	CodeMethodNotFound   = -32601
	CodeInvalidParams    = jsonl.CodeInvalidParams
	CodeInternalError    = -32603
	CodeRequestCancelled = -32800
)

// DefaultMaxMessageBytes is the default limit on one input line (16 MiB): large enough for a
// write of a big file, small enough that a runaway client cannot make the server buffer without bound.
const DefaultMaxMessageBytes = 16 << 20

// CancelMethod is the notification a client sends to cancel one of its in-flight requests. Serve
// handles it itself; it never reaches a [Handler]. See rule 5 in the package documentation.
const CancelMethod = "$/cancel_request"

// ErrClosed is returned by [Conn.Call] and [Conn.Notify] once the connection is closed, and by
// Call when no reply can arrive any more (input reached EOF, or [Conn.Shutdown] was called).
var ErrClosed = errors.New("rpc: connection closed")

// Request is one incoming request or notification, as a [Handler] sees it.
type Request struct {
	Method string
	Params json.RawMessage // nil when absent or JSON null; otherwise an object or array, byte for byte as sent
	Notif  bool            // true for a notification: the result is discarded and no reply is sent
	ID     json.RawMessage // the id byte for byte as sent (for logging); nil for a notification
}

// Handler serves one incoming request or notification.
//
// Requests run concurrently, each on its own goroutine, unless [Options.Inline] says otherwise.
// ctx is cancelled when the client sends $/cancel_request for this id or the connection closes
// (not when input merely reaches EOF: in-flight requests are still answered then). Handlers must
// return once ctx is done; [Serve] waits for them.
//
// The result is marshalled with encoding/json; nil becomes "result": null. A returned [*Error]
// (also when wrapped) goes on the wire as is; any other error is logged and answered with
// -32603 "internal error", so Go error text never reaches the client. For a notification the
// result is dropped and an error is only logged.
type Handler interface {
	Handle(ctx context.Context, c *Conn, req *Request) (result any, err error)
}

// HandlerFunc adapts a function to [Handler].
type HandlerFunc func(ctx context.Context, c *Conn, req *Request) (any, error)

var _ Handler = HandlerFunc(nil)

// Handle calls f(ctx, c, req).
func (f HandlerFunc) Handle(ctx context.Context, c *Conn, req *Request) (any, error) {
	return f(ctx, c, req)
}

// Encoded is a result its handler has already encoded as the reply must carry it: one compact
// JSON value, no HTML escapes, no newline. It is appended to the reply as it is, where any other
// result (a json.RawMessage included) goes through encoding/json, which validates and compacts
// every byte of a raw value again (about 9 ns a byte): for a result made of large pieces encoded
// once and reused, such as fsbox's tool descriptors, that is most of the reply's cost. The
// handler vouches for the bytes: nothing here checks them, so only a result encoded by
// encoding/json, and pinned to its encoding by a test, should be returned as Encoded.
type Encoded []byte

// Error is a JSON-RPC error object. A handler returns it to choose the code, message and data of
// its error reply; [Conn.Call] returns it when the peer answers with an error.
type Error struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"` // from Call: a json.RawMessage
}

// Error returns "jsonrpc error <code>: <message>".
func (e *Error) Error() string {
	return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message)
}

// Is reports whether target is an *Error with the same code, so that
// errors.Is(err, &rpc.Error{Code: rpc.CodeMethodNotFound}) works across the wire.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// ErrMethodNotFound returns the -32601 error for an unknown method.
func ErrMethodNotFound(method string) *Error {
	return &Error{Code: CodeMethodNotFound, Message: "method not found: " + method}
}

// ErrInvalidParams returns a -32602 error with the given message.
func ErrInvalidParams(message string) *Error {
	return &Error{Code: CodeInvalidParams, Message: message}
}

// Options configures [Serve]. The zero value is ready to use.
type Options struct {
	// MaxMessageBytes bounds one input line, not counting its "\n" or "\r\n" terminator.
	// Zero or negative means DefaultMaxMessageBytes.
	MaxMessageBytes int

	// Inline reports whether method is handled synchronously on the read loop, in arrival order:
	// nothing after it is read until its handler returns and its reply is written. An inline
	// handler must be quick and must not call [Conn.Call] (that returns an error rather than
	// deadlock). Nil means no method is inline.
	Inline func(method string) bool

	// MaxConcurrent bounds how many non-inline handlers are at work at once; zero or negative
	// means DefaultMaxConcurrent(). A handler waiting in [Conn.Call] for the peer's reply lends
	// its slot meanwhile, so handlers asking the client can never hold every slot. A request
	// beyond the bound waits for a slot in the queue below, where $/cancel_request still
	// cancels it.
	MaxConcurrent int

	// MaxQueued bounds how many requests may wait for a slot; zero or negative means
	// DefaultMaxQueued. Their params together are also bounded, by MaxMessageBytes (a single
	// request always fits). When the queue is full the read loop stops reading until a request
	// takes a slot: the peer's writes then block, which is the backpressure.
	MaxQueued int

	// MaxOutputBytes bounds the output queued and not yet written; zero or negative means
	// DefaultMaxOutputBytes. A line longer than the bound is queued alone. When the peer stops
	// reading, the queue fills, writers wait (handlers at their reply, so they keep their
	// slots), the request queue fills, and reading stops: memory stays flat.
	MaxOutputBytes int

	// HoldNotifications lets a handler's last notification wait until its next notification,
	// its next [Conn.Call] or its reply, and go out in the same write as that: one write instead
	// of two for the common "event, then reply". Order is unchanged. Leave it off when a
	// handler's notifications report progress that must be seen while it works.
	HoldNotifications bool

	// Logf receives diagnostics: handler errors and panics, malformed replies from the peer.
	// Nil means a log.Logger on stderr. Nothing is ever written to the output stream but protocol messages.
	Logf func(format string, args ...any)
}
