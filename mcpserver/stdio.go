package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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
// These are the replies, codes and messages of fsbox serve (rpc/doc.go, "Replies to bad input");
// cmd/fsbox's tests send the same lines to both and compare. Two differences, both the SDK's
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
	go c.readLoop(newLineReader(t.Reader, max))
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

func (c *stdioConn) readLoop(lines *lineReader) {
	for {
		line, tooLong, err := lines.next()
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
			c.writeError(nil, jsonrpc.CodeInvalidRequest, msgTooLong, nil)
			continue
		}
		line, ok := trimLine(line)
		if !ok {
			continue
		}
		msg, rej := c.admit(line)
		if rej != nil {
			if !rej.silent {
				c.writeError(rej.id, rej.code, rej.msg, rej.data)
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

// rejection is how a line is refused: the error to answer with, to id (nil for "id": null);
// silent for a notification, which is never answered.
type rejection struct {
	code   int64
	msg    string
	data   any
	id     json.RawMessage
	silent bool
}

// admit validates one non-blank line and decodes it for the SDK. It returns the message, nil
// and nil for a reply that is dropped, or a rejection.
func (c *stdioConn) admit(line []byte) (jsonrpc.Message, *rejection) {
	kind, id, rej := classify(line)
	if rej != nil {
		return nil, rej
	}
	if kind != kindResponse && id != nil {
		if err := sdkID(id); err != "" {
			return nil, &rejection{code: jsonrpc.CodeInvalidRequest, msg: err}
		}
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		// classify admits only what the SDK decodes; this is a safety net, not a path.
		return nil, &rejection{code: jsonrpc.CodeInvalidRequest, msg: msgInvalid}
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
			return nil, &rejection{code: jsonrpc.CodeInvalidRequest, msg: msgStrayReply}
		}
	case *jsonrpc.Request:
		if m.ID.IsValid() {
			dup := false
			c.track(func() {
				dup = c.inflight[m.ID]
				c.inflight[m.ID] = true
			})
			if dup {
				return nil, &rejection{code: jsonrpc.CodeInvalidRequest, msg: msgDupID}
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

// Messages of the errors the transport answers itself; the first ones are fsbox serve's
// (rpc/frame.go), word for word.
const (
	msgParseError = "parse error"
	msgBatch      = "invalid request: batch requests are not supported"
	msgNotObject  = "invalid request: message must be a JSON object"
	msgDuplicate  = "invalid request: duplicate member "
	msgVersion    = `invalid request: "jsonrpc" must be "2.0"`
	msgNoVersion  = `invalid request: missing "jsonrpc" member; every message must carry "jsonrpc": "2.0"`
	msgMethod     = `invalid request: "method" must be a string`
	msgBadID      = `invalid request: "id" must be a string or an integer`
	msgBothKinds  = `invalid request: a request must not carry "result" or "error"`
	msgNoMethod   = `invalid request: missing "method"`
	msgParams     = `invalid params: "params" must be an object or an array`
	msgTooLong    = "invalid request: message exceeds the size limit"
	msgStrayReply = "invalid request: response to an unknown id"

	msgBigID   = `invalid request: an integer "id" must lie between -9007199254740991 and 9007199254740991 (and not be -0)`
	msgDupID   = `invalid request: "id" is already used by a request in flight`
	msgInvalid = "invalid request"
)

// readBufferBytes is the unit in which an oversize line is skipped without being kept.
const readBufferBytes = 64 << 10

// keepBufferBytes is the largest line buffer kept for reuse between lines.
const keepBufferBytes = 1 << 20

// lineReader splits the input into lines of at most max bytes.
type lineReader struct {
	r   *bufio.Reader
	max int
	buf []byte
	err error // sticky read error, returned after the last partial line
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, readBufferBytes), max: max}
}

// next returns the next line without its "\n" or "\r\n", or tooLong for a line longer than max,
// which is skipped to its end without being buffered. A last line without "\n" is returned like
// any other; the read error comes on the call after. The line aliases an internal buffer.
func (lr *lineReader) next() (line []byte, tooLong bool, err error) {
	if lr.err != nil {
		return nil, false, lr.err
	}
	if cap(lr.buf) > keepBufferBytes {
		lr.buf = nil
	}
	buf := lr.buf[:0]
	for {
		frag, err := lr.r.ReadSlice('\n')
		complete := err == nil
		if complete {
			frag = frag[:len(frag)-1]
		}
		// One byte beyond the limit is kept, so that a "\r" just past it can still be stripped.
		if !tooLong && len(buf)+len(frag) > lr.max+1 {
			tooLong, buf = true, buf[:0]
		}
		if !tooLong {
			buf = append(buf, frag...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if !complete {
			lr.err = err
			if len(buf) == 0 && !tooLong {
				return nil, false, err
			}
		}
		lr.buf = buf
		buf = bytes.TrimSuffix(buf, []byte{'\r'})
		if len(buf) > lr.max {
			return nil, true, nil
		}
		return buf, tooLong, nil
	}
}

var utf8BOM = []byte("\xEF\xBB\xBF")

// trimLine strips a leading byte order mark and reports whether anything but whitespace is left.
func trimLine(line []byte) ([]byte, bool) {
	line = bytes.TrimPrefix(line, utf8BOM)
	return line, len(bytes.Trim(line, " \t\r")) > 0
}

type msgKind int

const (
	kindRequest msgKind = iota + 1
	kindNotification
	kindResponse
)

// parseErrorData is the data of a -32700 reply: where the line stopped being JSON.
type parseErrorData struct {
	Offset int    `json:"offset"`
	Near   string `json:"near"`
}

// maxEchoBytes bounds the input quoted back in a parse error, so a hostile line is never echoed.
const maxEchoBytes = 32

// parseError returns the -32700 rejection for a line that is not exactly one UTF-8 JSON value.
func parseError(line []byte) *rejection {
	if !utf8.Valid(line) {
		i := 0
		for i < len(line) {
			r, n := utf8.DecodeRune(line[i:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			i += n
		}
		return parseErrorAt(line, i, "invalid UTF-8")
	}
	if json.Valid(line) {
		return nil
	}
	var v json.RawMessage
	err := json.Unmarshal(line, &v)
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return parseErrorAt(line, len(line), "invalid JSON")
	}
	at := int(se.Offset) - 1
	what := se.Error()
	if what == "unexpected end of JSON input" {
		at, what = len(line), "unexpected end of input (a message must be one JSON value on one line)"
	}
	return parseErrorAt(line, at, what)
}

func parseErrorAt(line []byte, at int, what string) *rejection {
	at = min(max(at, 0), len(line))
	from := max(at-maxEchoBytes, 0)
	for from < at && !utf8.RuneStart(line[from]) {
		from++
	}
	return &rejection{
		code: jsonrpc.CodeParseError,
		msg:  fmt.Sprintf("%s at byte %d: %s", msgParseError, at+1, what),
		data: parseErrorData{Offset: at + 1, Near: strings.ToValidUTF8(string(line[from:at]), "\uFFFD")},
	}
}

// classify validates one non-blank line by fsbox serve's rules and returns its kind and id (the
// id as sent; nil when absent), or a rejection.
func classify(line []byte) (msgKind, json.RawMessage, *rejection) {
	invalid := func(msg string) *rejection { return &rejection{code: jsonrpc.CodeInvalidRequest, msg: msg} }
	if rej := parseError(line); rej != nil {
		return 0, nil, rej
	}
	switch bytes.TrimLeft(line, " \t\r\n")[0] {
	case '{':
	case '[':
		return 0, nil, invalid(msgBatch)
	default:
		return 0, nil, invalid(msgNotObject)
	}
	m, dup := topMembers(line)
	if dup != "" {
		return 0, nil, invalid(msgDuplicate + dup)
	}
	id, hasID := m["id"]
	_, hasResult := m["result"]
	_, hasError := m["error"]
	method, hasMethod := m["method"]
	if v, ok := m["jsonrpc"]; !ok || !isString(v, "2.0") {
		rej := invalid(msgVersion)
		if !ok {
			rej.msg = msgNoVersion
		}
		if hasMethod && hasID && validID(id) {
			rej.id = id
		}
		return 0, nil, rej
	}
	switch {
	case hasMethod:
		var name string
		if method[0] != '"' || json.Unmarshal(method, &name) != nil {
			return 0, nil, invalid(msgMethod)
		}
		if hasID && !validID(id) {
			return 0, nil, invalid(msgBadID)
		}
		if hasResult || hasError {
			return 0, nil, invalid(msgBothKinds)
		}
		kind := kindRequest
		if !hasID {
			kind = kindNotification
		}
		if p := m["params"]; p != nil && string(p) != "null" && p[0] != '{' && p[0] != '[' {
			return 0, nil, &rejection{code: jsonrpc.CodeInvalidParams, msg: msgParams, id: id, silent: !hasID}
		}
		return kind, id, nil
	case hasResult || hasError:
		return kindResponse, id, nil
	default:
		return 0, nil, invalid(msgNoMethod)
	}
}

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

// members are the top-level members classify looks at; others are ignored.
var members = [...]string{"jsonrpc", "id", "method", "params", "result", "error"}

// topMembers returns the known top-level members of a valid JSON object and the first known
// member named twice, if any (parsers disagree on which duplicate wins, so it is refused).
func topMembers(obj []byte) (map[string]json.RawMessage, string) {
	m := make(map[string]json.RawMessage, 4)
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return m, ""
	}
	i++
	for {
		i = skipSpace(obj, i)
		if i >= len(obj) || obj[i] != '"' {
			return m, ""
		}
		end := skipString(obj, i)
		key := obj[i+1 : end-1]
		name := string(key)
		if bytes.IndexByte(key, '\\') >= 0 {
			if json.Unmarshal(obj[i:end], &name) != nil {
				return m, ""
			}
		}
		i = skipSpace(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return m, ""
		}
		start := skipSpace(obj, i+1)
		i = skipValue(obj, start)
		for _, known := range members {
			if name != known {
				continue
			}
			if _, seen := m[name]; seen {
				return m, name
			}
			m[name] = append(json.RawMessage(nil), obj[start:i]...)
		}
		i = skipSpace(obj, i)
		if i >= len(obj) || obj[i] != ',' {
			return m, ""
		}
		i++
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
		i++
	}
	return i
}

func isString(raw json.RawMessage, want string) bool {
	var s string
	return len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil && s == want
}

// validID reports whether raw is a string or a number without fraction or exponent.
func validID(raw json.RawMessage) bool {
	if len(raw) == 0 {
		return false
	}
	switch c := raw[0]; {
	case c == '"':
		return true
	case c == '-' || ('0' <= c && c <= '9'):
		return !bytes.ContainsAny(raw, ".eE")
	}
	return false
}
