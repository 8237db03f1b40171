package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/fsbox/fsbox/rpc/jsonl"
)

// StdioTransport is MCP's stdio transport with fsbox serve's input rules: nothing the client
// writes ends the session. The SDK's own stdio transport ([mcp.IOTransport]) ends the session,
// and with it the calls in flight, at the first line it cannot decode; this one answers such a
// line the way package rpc does for fsbox serve, and reads on:
//
//  1. Input is one JSON value per line, "\n"-terminated; a trailing "\r" and a leading UTF-8 byte
//     order mark are stripped, and blank lines are skipped.
//  2. A line longer than MaxMessageBytes is answered with -32600 and skipped to its end without
//     being buffered.
//  3. A line that is not one UTF-8 JSON value (truncated, junk, invalid UTF-8, nested deeper
//     than encoding/json's 10,000 levels): -32700, "id": null, with the byte offset and at most
//     32 bytes before it.
//  4. A batch (even an empty one), a value that is not an object, a message without "jsonrpc":
//     "2.0", a bad "method", an "id" that is not a string or an integer, a member named twice, a
//     request carrying "result" or "error", an object with neither "method" nor a reply's members:
//     -32600, "id": null (a request with a valid id whose only fault is "jsonrpc" is answered to
//     its id). "params" neither an object, an array nor null: -32602 to the request's id.
//  5. A reply to an id the server did not send, or already got a reply for: -32600, "id": null;
//     a reply without an id is dropped (answering it could start an endless exchange of errors).
//  6. A notification is never answered.
//
// These are the replies, codes and messages of fsbox serve (rpc/doc.go, "Replies to bad input"):
// rules 1 to 4 and 6 are package jsonl's, which reads and classifies lines for both transports,
// and cmd/fsbox's tests send the same lines to both and compare the replies. Two differences, both the SDK's
// representation of ids: an integer id must lie within ±(2^53-1) and be written plainly (the SDK
// carries ids as float64, so a larger one would come back as another number), and an id already
// in flight is refused (-32600) instead of being handled twice.
//
// At EOF on input, requests in flight are still answered before the session ends (as under fsbox
// serve), unless one of them is waiting for the client (an elicitation), which can no longer
// answer: then the session ends at once and those calls are cancelled.
//
// It does not bound the requests in flight beyond what the SDK does: a client that sends calls
// faster than they complete grows the server, as it could over the SDK's transport.
type StdioTransport struct {
	Reader io.Reader
	Writer io.Writer
	// MaxMessageBytes bounds one input line, not counting its "\n" or "\r\n"; zero or negative
	// means 16 MiB (fsbox serve's default).
	MaxMessageBytes int
	// Logf receives what cannot be answered (a reply without an id); nil drops it.
	Logf func(format string, args ...any)
}

// DefaultMaxMessageBytes is the default limit on one stdio input line, fsbox serve's.
const DefaultMaxMessageBytes = 16 << 20

// Connect starts reading t.Reader. The returned connection is for one session.
func (t *StdioTransport) Connect(context.Context) (mcp.Connection, error) {
	max := t.MaxMessageBytes
	if max <= 0 {
		max = DefaultMaxMessageBytes
	}
	c := &stdioConn{
		w:        t.Writer,
		logf:     t.Logf,
		incoming: make(chan readResult),
		closed:   make(chan struct{}),
		changed:  make(chan struct{}),
		inflight: map[jsonrpc.ID]bool{},
		outgoing: map[jsonrpc.ID]bool{},
	}
	go c.readLoop(jsonl.NewReader(t.Reader, max))
	return c, nil
}

type readResult struct {
	msg jsonrpc.Message
	err error
}

// stdioConn is one session's connection. The read loop validates lines and answers bad ones
// itself; Read hands the good ones to the SDK.
type stdioConn struct {
	wmu sync.Mutex // one line per Write, never interleaved
	w   io.Writer

	logf     func(format string, args ...any)
	incoming chan readResult
	closed   chan struct{}
	once     sync.Once

	mu       sync.Mutex
	inflight map[jsonrpc.ID]bool // client calls read and not yet answered
	outgoing map[jsonrpc.ID]bool // server calls written and not yet answered
	changed  chan struct{}       // closed (and replaced) whenever inflight or outgoing shrinks or grows
}

func (c *stdioConn) SessionID() string { return "" }

func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case r := <-c.incoming:
		return r.msg, r.err
	case <-c.closed:
		return nil, io.EOF
	}
}

func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding a message: %w", err)
	}
	switch m := msg.(type) {
	case *jsonrpc.Response:
		defer c.track(func() { delete(c.inflight, m.ID) })
	case *jsonrpc.Request:
		if m.ID.IsValid() {
			c.track(func() { c.outgoing[m.ID] = true })
		}
	}
	return c.writeLine(append(data, '\n'))
}

func (c *stdioConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

func (c *stdioConn) writeLine(line []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.w.Write(line)
	return err
}

// track changes the in-flight sets under c.mu and wakes a read loop waiting for them.
func (c *stdioConn) track(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f()
	close(c.changed)
	c.changed = make(chan struct{})
}

// deliver hands r to Read, or gives up when the connection closes.
func (c *stdioConn) deliver(r readResult) bool {
	select {
	case c.incoming <- r:
		return true
	case <-c.closed:
		return false
	}
}

func (c *stdioConn) readLoop(lines *jsonl.Reader) {
	for {
		line, tooLong, err := lines.Next()
		if err != nil {
			if err == io.EOF {
				c.drain()
			} else {
				err = fmt.Errorf("reading input: %w", err)
			}
			c.deliver(readResult{err: err})
			return
		}
		if tooLong {
			c.writeError(nil, jsonrpc.CodeInvalidRequest, jsonl.MsgTooLong, nil)
			continue
		}
		line, ok := jsonl.Trim(line)
		if !ok {
			continue
		}
		msg, rej := c.admit(line)
		if rej != nil {
			if !rej.Silent {
				c.writeError(rej.ID, rej.Code, rej.Message, rej.Data)
			}
			continue
		}
		if msg != nil && !c.deliver(readResult{msg: msg}) {
			return
		}
	}
}

// drain waits, at EOF, until every client call read so far is answered, or one of them waits
// for a reply of the client's that can no longer come, or the connection closes.
func (c *stdioConn) drain() {
	for {
		c.mu.Lock()
		done := len(c.inflight) == 0 || len(c.outgoing) > 0
		changed := c.changed
		c.mu.Unlock()
		if done {
			return
		}
		select {
		case <-changed:
		case <-c.closed:
			return
		}
	}
}

// admit validates one non-blank line and decodes it for the SDK. It returns the message, nil
// and nil for a reply that is dropped, or a rejection.
func (c *stdioConn) admit(line []byte) (jsonrpc.Message, *jsonl.Rejection) {
	framed, rej := jsonl.Classify(line)
	if rej != nil {
		return nil, rej
	}
	id := framed.ID
	if framed.Kind != jsonl.Response && id != nil {
		if err := sdkID(id); err != "" {
			return nil, &jsonl.Rejection{Code: jsonrpc.CodeInvalidRequest, Message: err}
		}
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		// Classify admits only what the SDK decodes; this is a safety net, not a path.
		return nil, &jsonl.Rejection{Code: jsonrpc.CodeInvalidRequest, Message: msgInvalid}
	}
	switch m := msg.(type) {
	case *jsonrpc.Response:
		if id == nil || string(id) == "null" {
			if c.logf != nil {
				c.logf("mcp: ignoring a reply with no id")
			}
			return nil, nil
		}
		known := false
		c.track(func() {
			known = c.outgoing[m.ID]
			delete(c.outgoing, m.ID)
		})
		if !known {
			return nil, &jsonl.Rejection{Code: jsonrpc.CodeInvalidRequest, Message: jsonl.MsgStrayReply}
		}
	case *jsonrpc.Request:
		if m.ID.IsValid() {
			dup := false
			c.track(func() {
				dup = c.inflight[m.ID]
				c.inflight[m.ID] = true
			})
			if dup {
				return nil, &jsonl.Rejection{Code: jsonrpc.CodeInvalidRequest, Message: msgDupID}
			}
		}
	}
	return msg, nil
}

// writeError answers a refused line: {"jsonrpc":"2.0","id":…,"error":{…}}, as fsbox serve writes it.
func (c *stdioConn) writeError(id json.RawMessage, code int64, message string, data any) {
	if id == nil {
		id = json.RawMessage("null")
	}
	var buf bytes.Buffer
	buf.WriteString(`{"jsonrpc":"2.0","id":`)
	buf.Write(id)
	buf.WriteString(`,"error":`)
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
		Data    any    `json:"data,omitempty"`
	}{code, message, data})
	out := bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})
	c.writeLine(append(out, '}', '\n'))
}

// Messages of the errors the transport answers itself beyond fsbox serve's (whose messages are
// package jsonl's): the SDK's representation of ids.
const (
	msgBigID   = `invalid request: an integer "id" must lie between -9007199254740991 and 9007199254740991 (and not be -0)`
	msgDupID   = `invalid request: "id" is already used by a request in flight`
	msgInvalid = "invalid request"
)

// sdkID refuses an integer id the SDK cannot carry back unchanged: it holds ids as float64 and
// writes them as int64, so one beyond 2^53 (or "-0") would be answered under another number.
func sdkID(id json.RawMessage) string {
	if id[0] == '"' {
		return ""
	}
	n, err := strconv.ParseInt(string(id), 10, 64)
	if err != nil || n > 1<<53-1 || n < -(1<<53-1) || strconv.FormatInt(n, 10) != string(id) {
		return msgBigID
	}
	return ""
}
