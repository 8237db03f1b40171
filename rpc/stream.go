package rpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/fsbox/fsbox/rpc/jsonl"
)

// The read loop and the bytes written. Incoming lines are framed, validated and classified here
// (package jsonl); requests go to the dispatcher (conn.go), replies to our calls to the Call waiting
// for them, and everything else is answered here. Every output line is built here, once, in a
// pooled buffer: the client's id as sent, the result encoded once without HTML escaping.

// callReply is the reply to one of our calls, as the peer sent it.
type callReply struct {
	result json.RawMessage // nil when absent
	err    *Error          // nil for a result; Data is a json.RawMessage
}

// calls are the server→client calls awaiting a reply.
type calls struct {
	mu      sync.Mutex
	seq     uint64                    // guarded by mu
	waiting map[string]chan callReply // guarded by mu: by id; nil channel: abandoned, reply dropped
}

// newCall allocates the id of an outgoing call and registers it, before it is written, so that
// however fast the reply comes it is recognised.
func (cs *calls) newCall() (string, chan callReply) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.seq++
	id := "srv-" + strconv.FormatUint(cs.seq, 10)
	ch := make(chan callReply, 1)
	cs.waiting[id] = ch
	return id, ch
}

// abandon marks a call whose caller stopped waiting: its late reply is dropped quietly.
func (cs *calls) abandon(id string) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if _, ok := cs.waiting[id]; ok {
		cs.waiting[id] = nil
	}
}

// forget drops a call that was never written.
func (cs *calls) forget(id string) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	delete(cs.waiting, id)
}

// take returns the channel of the call id and forgets it; ok is false for an id we did not send
// or that already got its reply.
func (cs *calls) take(id string) (chan callReply, bool) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	ch, ok := cs.waiting[id]
	delete(cs.waiting, id)
	return ch, ok
}

// readLoop reads lines until input ends, the connection stops, or this goroutine becomes a
// handler (dispatch then starts another readLoop, and this one returns).
func (c *Conn) readLoop() {
	for {
		if c.stopped() {
			return
		}
		line, tooLong, err := c.lines.Next()
		if err != nil {
			if err != io.EOF {
				c.setReadErr(fmt.Errorf("rpc: reading input: %w", err))
			}
			c.stop()
			return
		}
		if tooLong {
			c.writeError(nil, &Error{Code: CodeInvalidRequest, Message: jsonl.MsgTooLong})
			continue
		}
		line, ok := jsonl.Trim(line)
		if !ok {
			continue
		}
		msg, rej := jsonl.Classify(line)
		if rej != nil {
			if !rej.Silent {
				c.writeError(rej.ID, &Error{Code: rej.Code, Message: rej.Message, Data: rej.Data})
			}
			continue
		}
		if msg.Kind == jsonl.Response {
			c.deliver(msg)
			continue
		}
		if c.dispatch(msg) {
			return
		}
	}
}

// deliver hands a reply to the Call waiting for it.
func (c *Conn) deliver(msg *jsonl.Message) {
	var id string
	if len(msg.ID) == 0 || string(msg.ID) == "null" {
		// An error reply to something we wrote that the peer could not attribute. Answering it
		// could start an endless exchange of errors with a peer that follows the same rules.
		c.logf("rpc: ignoring a reply with no id: %s", msg.Error)
		return
	}
	var ch chan callReply
	ok := msg.ID[0] == '"' && json.Unmarshal(msg.ID, &id) == nil
	if ok {
		ch, ok = c.outCalls.take(id)
	}
	if !ok {
		c.writeError(nil, &Error{Code: CodeInvalidRequest, Message: jsonl.MsgStrayReply})
		return
	}
	if ch == nil {
		return // its Call stopped waiting
	}
	r := callReply{result: msg.Result}
	if msg.Error != nil {
		r.result, r.err = nil, c.peerError(msg.Error)
	}
	ch <- r
}

// peerError decodes the error member of a reply to one of our calls, replacing a malformed one
// by a -32603.
func (c *Conn) peerError(raw json.RawMessage) *Error {
	var e struct {
		Code    json.Number     `json:"code"`
		Message *string         `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(raw, &e); err == nil && e.Message != nil {
		if code, err := strconv.ParseInt(string(e.Code), 10, 64); err == nil {
			out := &Error{Code: code, Message: *e.Message}
			if e.Data != nil {
				out.Data = e.Data
			}
			return out
		}
	}
	c.logf("rpc: %s: %s", msgBadErrorObj, raw)
	return &Error{Code: CodeInternalError, Message: msgBadErrorObj}
}

// appendResponse appends the response line to id carrying result, or e when e is not nil. It
// fails only when result cannot be encoded; line is then returned unchanged.
func appendResponse(line []byte, id json.RawMessage, result any, e *Error) ([]byte, error) {
	start := len(line)
	line = append(append(line, `{"jsonrpc":"2.0","id":`...), id...)
	var err error
	if e != nil {
		line, err = appendJSON(append(line, `,"error":`...), e)
	} else {
		line, err = appendJSON(append(line, `,"result":`...), result)
	}
	if err != nil {
		return line[:start], err
	}
	return append(line, '}', '\n'), nil
}

// appendErrorResponse appends the response line to id carrying e, which must encode (its Data is
// nil or encodable); if it does not, -32603 goes instead.
func appendErrorResponse(line []byte, id json.RawMessage, e *Error) []byte {
	out, err := appendResponse(line, id, nil, e)
	if err != nil {
		out, _ = appendResponse(line, id, nil, &Error{Code: CodeInternalError, Message: msgInternal})
	}
	return out
}

// appendJSON appends v encoded without HTML escaping. A json.RawMessage inside v is copied as
// encoding/json leaves it (compacted); if it was HTML-escaped by json.Marshal, the \u003c,
// \u003e and \u0026 escapes are turned back, so output never depends on how a value was built.
// An [Encoded] v is appended as it is.
func appendJSON(dst []byte, v any) ([]byte, error) {
	if b, ok := v.(Encoded); ok {
		return append(dst, b...), nil
	}
	buf := bytes.NewBuffer(dst)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	start := len(dst)
	if err := enc.Encode(v); err != nil {
		return dst, err
	}
	out := buf.Bytes()
	out = out[:len(out)-1] // Encode's newline
	if hasHTMLEscape(out[start:]) {
		body := append([]byte(nil), out[start:]...)
		out = appendUnescapedHTML(out[:start], body)
	}
	return out, nil
}

// hasHTMLEscape reports whether b may hold json.Marshal's HTML escapes (\u003c, \u003e,
// \u0026). Other \u00XX escapes, which encoding/json writes for every control character (an
// ANSI colour's ESC, a NUL), do not count: they stay as they are, and a reply full of them is
// not copied and scanned a second time.
func hasHTMLEscape(b []byte) bool {
	for {
		i := bytes.Index(b, []byte(`\u00`))
		if i < 0 || i+6 > len(b) {
			return false
		}
		if _, ok := htmlEscapes[string(b[i+4:i+6])]; ok {
			return true
		}
		b = b[i+4:]
	}
}

// writeError writes an error reply of our own, to id (nil for "id": null).
func (c *Conn) writeError(id json.RawMessage, e *Error) {
	if id == nil {
		id = json.RawMessage("null")
	}
	c.writeLine(appendErrorResponse(getLine(), id, e), true)
}

// writeLine admits one complete line for output, waiting while the output queue is full, and
// writes it at once on this goroutine when direct is allowed and nothing else is queued. After
// the first failed write nothing more is written, and the connection is closed: the peer is gone.
func (c *Conn) writeLine(line []byte, direct bool) error {
	if !direct {
		return c.out.enqueue(line, c.closing)
	}
	ok, err := c.out.reserve(line, c.closing)
	if ok {
		c.out.write(line, c.closing, c.Close)
	}
	return err
}
