package rpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/sourcegraph/jsonrpc2"
)

// stream is the jsonrpc2.ObjectStream in front of the library. It owns the bytes: it frames and
// validates input, answers malformed input itself, and hands the library only messages the library
// can represent, keyed by internal ids. On output it maps those ids back to the ones the client sent.
//
// The library carries keys; the payloads stay here. Incoming requests reach the library as
// {"id":<key>,"method":...}, where key is a uint64 the stream allocates; the id as sent and the
// params are handed to the dispatcher beside it. The dispatcher answers through the library with
// a placeholder result for <key>, having left the client's id and the encoded result or error in
// replyTo; WriteObject puts them in place. (Left to the library, a result would be marshalled
// three times over and HTML-escaped.) Server→client calls use string ids "srv-<n>", a namespace
// apart from the keys, which only ever appear in responses we write, never in requests.
type stream struct {
	conn  *Conn
	lines *lineReader   // read loop only
	key   uint64        // read loop only: the last key handed out
	next  *incoming     // read loop only: handed from ReadObject to the dispatcher
	ready chan struct{} // closed once conn is fully built; the library starts reading before that

	mu      sync.Mutex
	replyTo map[uint64]reply // guarded by mu: responses the library is about to write, by key
	calls   map[string]bool  // guarded by mu: ids of our calls awaiting a reply
	callSeq uint64           // guarded by mu

	out    *outbox       // every line written: library sends and the read loop's own error replies
	closed chan struct{} // closed by Close
	once   sync.Once
}

// reply is a response waiting for the library to write it.
type reply struct {
	id   json.RawMessage // as the client sent it
	body []byte          // `"result":…` or `"error":…`, encoded without HTML escaping
}

// incoming is a request or notification between ReadObject and the dispatcher.
type incoming struct {
	key uint64
	msg *message
}

var _ jsonrpc2.ObjectStream = (*stream)(nil)

// ReadObject implements jsonrpc2.ObjectStream: it reads lines until one carries a message for the
// library, answering the others itself. At the end of input (or after Shutdown) it stops the
// connection and blocks until Serve has drained it, so that the library does not close the
// connection while handlers still have replies to write.
func (s *stream) ReadObject(v any) error {
	<-s.ready
	for {
		if s.conn.stopped() {
			return s.endInput(nil)
		}
		line, tooLong, err := s.lines.next()
		if err != nil {
			return s.endInput(err)
		}
		if tooLong {
			s.writeError(nil, &Error{Code: CodeInvalidRequest, Message: msgTooLong})
			continue
		}
		line, ok := trimLine(line)
		if !ok {
			continue
		}
		msg, rej := classify(line)
		if rej != nil {
			if !rej.silent {
				s.writeError(rej.id, rej.err)
			}
			continue
		}
		synthetic, ok := s.accept(msg)
		if !ok {
			continue
		}
		return json.Unmarshal(synthetic, v)
	}
}

// accept turns a classified message into the JSON the library will decode, or reports false
// when the message stops here.
func (s *stream) accept(msg *message) ([]byte, bool) {
	if msg.kind != kindResponse {
		s.key++
		s.next = &incoming{key: s.key, msg: msg}
		b, _ := json.Marshal(struct {
			ID     uint64 `json:"id"`
			Method string `json:"method"`
		}{s.key, msg.method})
		return b, true
	}
	var id string
	if len(msg.id) == 0 || string(msg.id) == "null" {
		// An error reply to something we wrote that the peer could not attribute. Answering it
		// could start an endless exchange of errors with a peer that follows the same rules.
		s.conn.logf("rpc: ignoring a reply with no id: %s", msg.error)
		return nil, false
	}
	if msg.id[0] != '"' || json.Unmarshal(msg.id, &id) != nil || !s.takeCall(id) {
		s.writeError(nil, &Error{Code: CodeInvalidRequest, Message: msgStrayReply})
		return nil, false
	}
	resp := struct {
		ID     string          `json:"id"`
		Result json.RawMessage `json:"result,omitempty"`
		Error  *jsonrpc2.Error `json:"error,omitempty"`
	}{ID: id, Result: msg.result}
	if msg.error != nil {
		resp.Result, resp.Error = nil, s.peerError(msg.error)
	}
	b, _ := json.Marshal(resp)
	return b, true
}

// peerError decodes the error member of a reply to one of our calls, replacing one the library
// could not decode (it would drop the connection) by a -32603.
func (s *stream) peerError(raw json.RawMessage) *jsonrpc2.Error {
	var e struct {
		Code    json.Number      `json:"code"`
		Message *string          `json:"message"`
		Data    *json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(raw, &e); err == nil && e.Message != nil {
		if code, err := strconv.ParseInt(string(e.Code), 10, 64); err == nil {
			return &jsonrpc2.Error{Code: code, Message: *e.Message, Data: e.Data}
		}
	}
	s.conn.logf("rpc: %s: %s", msgBadErrorObj, raw)
	return &jsonrpc2.Error{Code: CodeInternalError, Message: msgBadErrorObj}
}

// take returns the request ReadObject last handed to the library as key.
func (s *stream) take(key uint64) *incoming {
	in := s.next
	s.next = nil
	if in == nil || in.key != key {
		return nil
	}
	return in
}

// endInput records the end of input and waits for the connection to close.
func (s *stream) endInput(err error) error {
	if err != nil && err != io.EOF {
		s.conn.setReadErr(fmt.Errorf("rpc: reading input: %w", err))
	}
	s.conn.stop()
	<-s.closed
	return io.EOF // the library treats EOF as a quiet end
}

// newCall allocates the id of an outgoing call and registers it, before it is written, so that
// however fast the reply comes it is recognised.
func (s *stream) newCall() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.callSeq++
	id := "srv-" + strconv.FormatUint(s.callSeq, 10)
	s.calls[id] = true
	return id
}

// takeCall reports whether id is an outgoing call awaiting a reply, and forgets it.
func (s *stream) takeCall(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	ok := s.calls[id]
	delete(s.calls, id)
	return ok
}

// expectReply records the response the library is about to write for key.
func (s *stream) expectReply(key uint64, r reply) {
	s.mu.Lock()
	s.replyTo[key] = r
	s.mu.Unlock()
}

func (s *stream) takeReply(key uint64) (reply, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.replyTo[key]
	delete(s.replyTo, key)
	return r, ok
}

// outgoing is the shape of everything the library writes, as it marshals it.
type outgoing struct {
	ID     json.RawMessage `json:"id"`
	Method json.RawMessage `json:"method"`
	Params json.RawMessage `json:"params"`
}

// WriteObject implements jsonrpc2.ObjectStream. It rewrites what the library marshals into our
// canonical line: "jsonrpc" first, the client's id and our encoding of the result restored, no
// HTML escaping.
func (s *stream) WriteObject(obj any) error {
	b, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	var m outgoing
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	if m.Method == nil { // a response: a placeholder for one in replyTo
		key, err := strconv.ParseUint(string(m.ID), 10, 64)
		r, ok := s.takeReply(key)
		if err != nil || !ok {
			return fmt.Errorf("rpc: writing response: unknown internal id %s", m.ID)
		}
		return s.write(responseLine(r))
	}
	// A call or notification of ours.
	line := make([]byte, 0, len(b)+32)
	line = append(line, `{"jsonrpc":"2.0"`...)
	if m.ID != nil {
		line = append(append(line, `,"id":`...), m.ID...)
	}
	line = appendUnescapedHTML(append(line, `,"method":`...), m.Method)
	if m.Params != nil {
		line = appendUnescapedHTML(append(line, `,"params":`...), m.Params)
	}
	return s.write(append(line, '}', '\n'))
}

// responseLine is the line for r. The id goes in as sent; only the body is unescaped, since an
// id spelled with \u003c must come back spelled so.
func responseLine(r reply) []byte {
	line := make([]byte, 0, len(r.id)+len(r.body)+32)
	line = append(append(line, `{"jsonrpc":"2.0","id":`...), r.id...)
	line = appendUnescapedHTML(append(line, ','), r.body)
	return append(line, '}', '\n')
}

// errorBody is the body of a reply carrying e, which must encode (its Data is nil or encodable).
func errorBody(e *Error) []byte {
	b, err := encode(e)
	if err != nil {
		b, _ = encode(&Error{Code: CodeInternalError, Message: msgInternal})
	}
	return append([]byte(`"error":`), b...)
}

// encode marshals v without HTML escaping and without the Encoder's trailing newline.
func encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

// writeError writes an error reply of our own, to id (nil for "id": null).
func (s *stream) writeError(id json.RawMessage, e *Error) {
	if id == nil {
		id = json.RawMessage("null")
	}
	s.write(responseLine(reply{id: id, body: errorBody(e)}))
}

// write queues one complete line for output, waiting while the output queue is full. After the
// first failed write nothing more is written, and the connection is closed: the peer is gone.
func (s *stream) write(line []byte) error {
	return s.out.put(line, s.closed)
}

// Close implements jsonrpc2.ObjectStream. It does not close the reader or writer given to Serve:
// Serve does not own them.
func (s *stream) Close() error {
	s.once.Do(func() { close(s.closed) })
	return nil
}
