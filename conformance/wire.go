package conformance

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// AnswerFunc answers one change_request; a non-nil *RPCError answers with that error.
type AnswerFunc func(params any) (result any, rpcErr *RPCError)

// Outcome is what one call produced.
type Outcome struct {
	Result any
	// Error is the failure flattened: {code, message, kind, retry, path, data}.
	Error          map[string]any
	Events         []any
	ChangeRequests []any
	// Skipped is set when a binding adapter cannot perform the call.
	Skipped string
	// Sent is what the session really sent when it differs from the suite's arguments (an MCP
	// mapping's tool name and translated, absolute arguments): strings the client sent are never
	// leaks.
	Sent any
}

// wireConn is the runner's own JSON-RPC 2.0 client: one JSON message per line, responses routed by
// id, server-to-client requests and notifications recorded. It deliberately shares no code with
// the server it grades.
type wireConn struct {
	w     io.Writer
	close func() error

	wmu sync.Mutex

	mu          sync.Mutex
	nextID      int
	pending     map[string]chan map[string]any
	unsolicited []any
	events      []any
	crs         []any
	answer      AnswerFunc
	violations  []string
	stray       strayLines
	notify      chan struct{}
	done        chan struct{}
	readErr     error
	// current is the id of the call request() is waiting for, and currentDone closes when it is
	// answered: a scripted cancel sends $/cancel_request for it and withholds its answer until then.
	current     string
	currentDone chan struct{}
}

// cancelAnswer, returned by an AnswerFunc, cancels the call instead of answering its change request.
var cancelAnswer = &RPCError{Message: "cancel the call"}

func newWireConn(r io.Reader, w io.Writer, closeFn func() error) *wireConn {
	c := &wireConn{w: w, close: closeFn, pending: map[string]chan map[string]any{},
		notify: make(chan struct{}, 1), done: make(chan struct{})}
	go c.readLoop(r)
	return c
}

func (c *wireConn) readLoop(r io.Reader) {
	br := bufio.NewReaderSize(r, 1<<16)
	defer close(c.done)
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			c.dispatch(line)
		}
		if err != nil {
			c.mu.Lock()
			if err != io.EOF {
				c.readErr = err
			}
			c.mu.Unlock()
			return
		}
	}
}

func (c *wireConn) dispatch(line []byte) {
	if !isJSONLine(line) {
		c.stray.add(line) // a banner or log line: counted once for the summary, not a failure
		return
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var msg map[string]any
	if err := dec.Decode(&msg); err != nil || dec.More() {
		c.violate(fmt.Sprintf("stdout carried a line that is not one JSON object: %s", quoteShort(line)))
		return
	}
	if v, _ := msg["jsonrpc"].(string); v != "2.0" {
		c.violate(fmt.Sprintf(`message without "jsonrpc": "2.0": %s`, quoteShort(line)))
	}
	method, hasMethod := msg["method"].(string)
	id, hasID := msg["id"]
	switch {
	case hasMethod && hasID:
		c.mu.Lock()
		answer := c.answer
		if method == "change_request" {
			c.crs = append(c.crs, msg["params"])
		}
		c.mu.Unlock()
		go c.serverRequest(method, id, msg["params"], answer)
	case hasMethod:
		if method == "event" {
			c.mu.Lock()
			c.events = append(c.events, msg["params"])
			c.mu.Unlock()
		}
	default:
		key := idKey(id)
		c.mu.Lock()
		ch, ok := c.pending[key]
		if ok && hasID {
			delete(c.pending, key)
		} else {
			c.unsolicited = append(c.unsolicited, msg)
		}
		c.mu.Unlock()
		if ok && hasID {
			ch <- msg
		} else {
			select {
			case c.notify <- struct{}{}:
			default:
			}
		}
	}
}

func (c *wireConn) violate(s string) {
	c.mu.Lock()
	c.violations = append(c.violations, s)
	c.mu.Unlock()
}

func (c *wireConn) serverRequest(method string, id, params any, answer AnswerFunc) {
	resp := map[string]any{"jsonrpc": "2.0", "id": id}
	switch {
	case method != "change_request":
		resp["error"] = RPCError{Code: -32601, Message: "method not found: " + method}
	case answer == nil:
		resp["result"] = map[string]any{"approve": true}
	default:
		res, rpcErr := answer(params)
		if rpcErr == cancelAnswer {
			c.mu.Lock()
			target, done := c.current, c.currentDone
			c.mu.Unlock()
			_ = c.writeMsg(map[string]any{"jsonrpc": "2.0", "method": "$/cancel_request", "params": map[string]any{"id": target}})
			select {
			case <-done:
			case <-c.done:
			case <-time.After(30 * time.Second):
			}
			res, rpcErr = map[string]any{"approve": false, "reason": "cancelled"}, nil
		}
		if rpcErr != nil {
			resp["error"] = rpcErr
		} else {
			resp["result"] = res
		}
	}
	_ = c.writeMsg(resp)
}

func idKey(id any) string { b, _ := json.Marshal(id); return string(b) }

func (c *wireConn) writeMsg(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return c.writeLine(b)
}

func (c *wireConn) writeLine(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.w.Write(append(b, '\n'))
	return err
}

// send writes a request and returns the channel its response arrives on.
func (c *wireConn) send(method string, params any) (chan map[string]any, error) {
	return c.sendTracked(method, params, nil)
}

// sendTracked is send; with a non-nil done it also makes the request the current call, the one a
// scripted cancel names.
func (c *wireConn) sendTracked(method string, params any, done chan struct{}) (chan map[string]any, error) {
	c.mu.Lock()
	c.nextID++
	id := fmt.Sprintf("c-%d", c.nextID)
	if done != nil {
		c.current, c.currentDone = id, done
	}
	ch := make(chan map[string]any, 1)
	c.pending[idKey(id)] = ch
	c.mu.Unlock()
	msg := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	return ch, c.writeMsg(msg)
}

func (c *wireConn) wait(ctx context.Context, ch chan map[string]any) (map[string]any, error) {
	select {
	case m := <-ch:
		return m, nil
	case <-c.done:
		select {
		case m := <-ch:
			return m, nil
		default:
		}
		return nil, errors.New("the server closed its output before answering")
	case <-ctx.Done():
		return nil, fmt.Errorf("no answer: %w", ctx.Err())
	}
}

// request sends one request and waits for it, collecting the events and change requests that
// arrived meanwhile.
func (c *wireConn) request(ctx context.Context, method string, params any, answer AnswerFunc) (*Outcome, error) {
	done := make(chan struct{})
	defer close(done)
	c.mu.Lock()
	c.events, c.crs, c.answer = nil, nil, answer
	c.mu.Unlock()
	ch, err := c.sendTracked(method, params, done)
	if err != nil {
		return nil, fmt.Errorf("writing the request: %w", err)
	}
	msg, err := c.wait(ctx, ch)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	out := &Outcome{Events: c.events, ChangeRequests: c.crs}
	c.events, c.crs = nil, nil
	c.mu.Unlock()
	fillOutcome(out, msg)
	return out, nil
}

func fillOutcome(out *Outcome, msg map[string]any) {
	if e, ok := msg["error"]; ok {
		out.Error = flattenError(e)
		return
	}
	out.Result = msg["result"]
}

// flattenError turns {code, message, data: {kind, retry, path}} into one flat object.
func flattenError(e any) map[string]any {
	m, _ := e.(map[string]any)
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	if d, ok := m["data"].(map[string]any); ok {
		for _, k := range []string{"kind", "retry", "counts_as_retry", "path", "supported"} {
			if v, ok := d[k]; ok {
				out[k] = v
			}
		}
	}
	return out
}

// raw writes a line as is and collects the responses it causes: everything not answering one of
// the runner's own requests, up to a sentinel request sent after it (and at least want of them).
func (c *wireConn) raw(ctx context.Context, line []byte, want int, expectEOF bool) ([]any, error) {
	c.mu.Lock()
	c.unsolicited = nil
	c.mu.Unlock()
	if err := c.writeLine(line); err != nil {
		return nil, fmt.Errorf("writing the raw line: %w", err)
	}
	if expectEOF {
		select {
		case <-c.done:
		case <-ctx.Done():
			return c.takeUnsolicited(), errors.New("the server did not close its output")
		}
		return c.takeUnsolicited(), nil
	}
	ch, err := c.send("tools/list", nil)
	if err != nil {
		return nil, err
	}
	if _, err := c.wait(ctx, ch); err != nil {
		return c.takeUnsolicited(), fmt.Errorf("the connection did not survive: the request after the raw line got %v", err)
	}
	for {
		c.mu.Lock()
		n := len(c.unsolicited)
		c.mu.Unlock()
		if n >= want {
			return c.takeUnsolicited(), nil
		}
		select {
		case <-c.notify:
		case <-c.done:
			return c.takeUnsolicited(), nil
		case <-ctx.Done():
			return c.takeUnsolicited(), nil
		}
	}
}

func (c *wireConn) takeUnsolicited() []any {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.unsolicited
	c.unsolicited = nil
	return out
}

func (c *wireConn) takeViolations() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.violations
	c.violations = nil
	return out
}

// wireSession drives a server over JSON-RPC: the inproc and server: targets.
type wireSession struct {
	c      *wireConn
	stderr func() string
}

func (s *wireSession) Start(ctx context.Context, p StartParams) (any, map[string]any, error) {
	cfg := map[string]any{}
	for k, v := range p.Config {
		cfg[k] = v
	}
	caps := map[string]any{"events": p.Events, "change_requests": p.ChangeRequests}
	if p.ResultShape != nil {
		caps["result_shape"] = *p.ResultShape
	}
	params := map[string]any{
		"protocol_version": "1",
		"client_info":      map[string]any{"name": "fsbox-conformance", "version": "1"},
		"config":           cfg,
		"capabilities":     caps,
	}
	out, err := s.c.request(ctx, "initialize", params, nil)
	if err != nil {
		return nil, nil, err
	}
	return out.Result, out.Error, nil
}

func (s *wireSession) Call(ctx context.Context, tool string, args any, answer AnswerFunc) (*Outcome, error) {
	params := map[string]any{"name": tool}
	if args != nil {
		params["arguments"] = args
	}
	return s.c.request(ctx, "tools/call", params, answer)
}

func (s *wireSession) Request(ctx context.Context, method string, params any) (*Outcome, error) {
	return s.c.request(ctx, method, params, nil)
}

func (s *wireSession) Raw(ctx context.Context, line []byte, want int, expectEOF bool) ([]any, error) {
	return s.c.raw(ctx, line, want, expectEOF)
}

// Parallel sends every call before waiting for any.
func (s *wireSession) Parallel(ctx context.Context, calls []Step, args []any) ([]*Outcome, error) {
	chans := make([]chan map[string]any, len(calls))
	for i, st := range calls {
		params := map[string]any{"name": st.Call, "arguments": args[i]}
		ch, err := s.c.send("tools/call", params)
		if err != nil {
			return nil, err
		}
		chans[i] = ch
	}
	outs := make([]*Outcome, len(calls))
	for i, ch := range chans {
		msg, err := s.c.wait(ctx, ch)
		if err != nil {
			return nil, err
		}
		outs[i] = &Outcome{}
		fillOutcome(outs[i], msg)
	}
	return outs, nil
}

func (s *wireSession) Side(ctx context.Context, tool string, args any) (*Outcome, error) {
	ch, err := s.c.send("tools/call", map[string]any{"name": tool, "arguments": args})
	if err != nil {
		return nil, err
	}
	msg, err := s.c.wait(ctx, ch)
	if err != nil {
		return nil, err
	}
	out := &Outcome{}
	fillOutcome(out, msg)
	return out, nil
}

func (s *wireSession) Violations() []string { return s.c.takeViolations() }

func (s *wireSession) strayLines() *strayLines { return &s.c.stray }

func (s *wireSession) Close() string {
	_ = s.c.close()
	if s.stderr != nil {
		return s.stderr()
	}
	return ""
}

// splitCommand splits a command line into argv: whitespace separates, single and double quotes
// group, backslash escapes outside single quotes. No shell is involved.
func splitCommand(s string) ([]string, error) {
	var args []string
	var cur strings.Builder
	inArg, quote := false, rune(0)
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\\' && i+1 < len(rs):
			i++
			cur.WriteRune(rs[i])
			inArg = true
		case quote == '"':
			if r == '"' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inArg = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inArg {
				args = append(args, cur.String())
				cur.Reset()
				inArg = false
			}
		default:
			cur.WriteRune(r)
			inArg = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated %c quote in %q", quote, s)
	}
	if inArg {
		args = append(args, cur.String())
	}
	if len(args) == 0 {
		return nil, errors.New("empty command line")
	}
	return args, nil
}
