package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/sourcegraph/jsonrpc2"
)

// Conn is one connection being served by [Serve]. Handlers receive it to talk back to the client.
// Its methods are safe for concurrent use.
type Conn struct {
	jc     *jsonrpc2.Conn
	s      *stream
	h      Handler
	inline func(string) bool
	logf   func(string, ...any)
	slots  chan struct{} // one token per non-inline handler at work (not waiting in Call)
	queue  *gate         // requests read but not yet holding a slot

	base       context.Context // parent of every handler's ctx
	cancelBase context.CancelFunc
	calls      context.Context // done once no reply to a Call can arrive any more
	endCalls   context.CancelFunc
	closing    chan struct{} // closed by Close
	closeOnce  sync.Once

	mu       sync.Mutex
	inflight map[string][]*pending // guarded by mu: requests running, by id as sent
	running  int                   // guarded by mu: handlers running, inline ones included
	stopping bool                  // guarded by mu: no handler starts any more
	idle     chan struct{}         // closed when stopping and running == 0
	idleSent bool                  // guarded by mu
	readErr  error                 // guarded by mu: why input ended, if not EOF
}

// pending is a running request, for $/cancel_request.
type pending struct {
	cancel    context.CancelFunc
	cancelled bool // guarded by Conn.mu
}

// inlineKey marks the ctx of an inline handler, so that Call can refuse instead of deadlocking.
type inlineKey struct{}

// Serve serves one connection: it reads requests from r, one JSON value per line, and writes
// responses and notifications to w, until
//
//   - r reaches EOF (or fails, or [Conn.Shutdown] is called): nothing more is read, the requests
//     in flight finish and are answered, and Serve returns nil, or the read error if r failed;
//   - ctx is done: handlers' contexts are cancelled and Serve returns ctx.Err();
//   - [Conn.Close] is called or writing to w fails: handlers' contexts are cancelled and Serve returns nil.
//
// In every case Serve returns only after every handler it started has returned. It never closes
// r or w. If r blocks, one goroutine may stay blocked in r.Read after Serve returns, until r
// returns; a process that exits after Serve does not care.
//
// The rules Serve applies to the bytes are listed in the package documentation.
func Serve(ctx context.Context, r io.Reader, w io.Writer, h Handler, opts Options) error {
	c := newConn(ctx, r, w, h, opts)
	var err error
	select {
	case <-c.idle:
		c.mu.Lock()
		err = c.readErr
		c.mu.Unlock()
		// Every handler has answered; what they wrote is queued. Wait for it to reach w.
		if !c.s.out.drain(ctx.Done(), c.closing) && ctx.Err() != nil {
			err = ctx.Err()
		}
	case <-ctx.Done():
		err = ctx.Err()
	case <-c.closing:
	}
	c.Close()
	c.stop()
	c.jc.Close()
	<-c.idle
	return err
}

func newConn(ctx context.Context, r io.Reader, w io.Writer, h Handler, opts Options) *Conn {
	max := opts.MaxMessageBytes
	if max <= 0 {
		max = DefaultMaxMessageBytes
	}
	c := &Conn{
		h:        h,
		inline:   opts.Inline,
		logf:     opts.Logf,
		closing:  make(chan struct{}),
		inflight: make(map[string][]*pending),
		idle:     make(chan struct{}),
	}
	c.slots = make(chan struct{}, positiveOr(opts.MaxConcurrent, DefaultMaxConcurrent()))
	// One request of the largest size always fits, so the bound in bytes never refuses a line
	// the framing accepted.
	c.queue = newGate(positiveOr(opts.MaxQueued, DefaultMaxQueued), max)
	if c.inline == nil {
		c.inline = func(string) bool { return false }
	}
	if c.logf == nil {
		c.logf = log.New(os.Stderr, "", log.LstdFlags).Printf
	}
	c.base, c.cancelBase = context.WithCancel(ctx)
	c.calls, c.endCalls = context.WithCancel(context.Background())
	c.s = &stream{
		conn:    c,
		lines:   newLineReader(r, max),
		replyTo: make(map[uint64]reply),
		calls:   make(map[string]bool),
		out:     newOutbox(w, positiveOr(opts.MaxOutputBytes, DefaultMaxOutputBytes)),
		closed:  make(chan struct{}),
		ready:   make(chan struct{}),
	}
	go c.s.out.run(c.s.closed, c.Close)
	// The library closes itself when this context ends; Serve closes it explicitly instead.
	c.jc = jsonrpc2.NewConn(context.WithoutCancel(ctx), c.s, dispatcher{c}, jsonrpc2.SetLogger(logger(c.logf)))
	close(c.s.ready)
	return c
}

// logger adapts Logf to the library's Logger.
type logger func(string, ...any)

func (l logger) Printf(format string, args ...any) { l(format, args...) }

// dispatcher is the library's Handler. The library calls it on its read loop, one message at a
// time, so everything it does before returning happens before the next line is read.
type dispatcher struct{ c *Conn }

func (d dispatcher) Handle(_ context.Context, _ *jsonrpc2.Conn, jr *jsonrpc2.Request) {
	c := d.c
	in := c.s.take(jr.ID.Num)
	if in == nil {
		c.logf("rpc: internal error: no pending message for key %d", jr.ID.Num)
		return
	}
	msg := in.msg
	if msg.method == CancelMethod {
		c.cancelRequest(msg.params)
		if msg.kind == kindRequest {
			c.reply(in, nil, nil, false)
		}
		return
	}
	req := &Request{Method: msg.method, Params: msg.params, Notif: msg.kind == kindNotification, ID: msg.id}
	inline := c.inline(req.Method)
	size := len(msg.params)
	// Backpressure: when the queue of requests waiting for a slot is full, the read loop waits
	// here, and so stops reading. Responses to our Calls and cancels behind this line wait too,
	// but never for long: a handler waiting in Call holds no slot (see Call), so slots free
	// up as long as handlers finish, and the queue drains.
	if !inline && !c.queue.enter(size, c.closing) {
		return // closing: nobody will read a reply
	}
	if !c.start() {
		if !inline {
			c.queue.leave(size)
		}
		return // closing: nobody will read a reply
	}
	ctx, cancel := context.WithCancel(c.base)
	j := &job{c: c, in: in, req: req, ctx: ctx, cancel: cancel, size: size}
	if !req.Notif {
		// Registered here, on the read loop, so that a cancel on the very next line finds it.
		j.fl = c.register(string(msg.id), cancel)
	}
	if inline {
		j.run(context.WithValue(ctx, inlineKey{}, true))
		return
	}
	go j.runWhenSlotFree()
}

// positiveOr returns n if it is positive, else def.
func positiveOr(n, def int) int {
	if n > 0 {
		return n
	}
	return def
}

// job is one request or notification being handled.
type job struct {
	c      *Conn
	in     *incoming
	req    *Request
	ctx    context.Context
	cancel context.CancelFunc
	fl     *pending // nil for a notification
	size   int      // bytes of params counted in Conn.queue until the job takes a slot

	slotted atomic.Bool // holds a token of Conn.slots
}

// jobKey marks the ctx of a non-inline handler with its job, so that Call can lend its slot.
type jobKey struct{}

// run runs the handler with ctx and answers.
func (j *job) run(ctx context.Context) {
	defer j.c.finish()
	defer j.cancel()
	result, err := j.c.call(ctx, j.req)
	j.answer(result, err)
}

// runWhenSlotFree runs the job once Options.MaxConcurrent allows, unless it is cancelled first.
func (j *job) runWhenSlotFree() {
	select {
	case j.c.slots <- struct{}{}:
		j.slotted.Store(true)
		j.c.queue.leave(j.size)
		defer j.releaseSlot()
	case <-j.ctx.Done():
		j.c.queue.leave(j.size)
		defer j.c.finish()
		j.answer(nil, j.ctx.Err()) // as if the handler had returned at once
		return
	}
	j.run(context.WithValue(j.ctx, jobKey{}, j))
}

// releaseSlot gives the job's slot back, if it holds one, and reports whether it did.
func (j *job) releaseSlot() bool {
	if j.slotted.CompareAndSwap(true, false) {
		<-j.c.slots
		return true
	}
	return false
}

// retakeSlot waits for a slot again after a Call, unless the connection closes first.
func (j *job) retakeSlot() {
	select {
	case j.c.slots <- struct{}{}:
		j.slotted.Store(true)
	case <-j.c.closing:
	}
}

// answer replies to a request; for a notification it only logs an error.
func (j *job) answer(result any, err error) {
	if j.req.Notif {
		if err != nil && !j.c.isClosing() {
			j.c.logf("rpc: notification %q: %v", j.req.Method, err)
		}
		return
	}
	j.c.reply(j.in, result, err, j.c.unregister(string(j.in.msg.id), j.fl))
}

// call runs the handler, turning a panic into an error.
func (c *Conn) call(ctx context.Context, req *Request) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	return c.h.Handle(ctx, c, req)
}

// reply writes the response to in. cancelled reports whether $/cancel_request named it.
func (c *Conn) reply(in *incoming, result any, err error, cancelled bool) {
	if c.isClosing() {
		return // nothing can be written; the handler's error is only the closing's echo
	}
	var body []byte
	if err == nil {
		raw, merr := encode(result)
		if merr != nil {
			err = fmt.Errorf("encoding result: %w", merr)
		} else {
			body = append([]byte(`"result":`), raw...)
		}
	}
	if err != nil {
		body = errorBody(c.wireError(in.msg.method, err, cancelled))
	}
	c.s.expectReply(in.key, reply{id: in.msg.id, body: body})
	placeholder := json.RawMessage("null")
	resp := &jsonrpc2.Response{ID: jsonrpc2.ID{Num: in.key}, Result: &placeholder}
	if err := c.jc.SendResponse(context.Background(), resp); err != nil {
		c.s.takeReply(in.key)
		if !c.isClosing() { // a failed write closes the connection: the peer is gone, quietly
			c.logf("rpc: %s: writing response: %v", in.msg.method, err)
		}
	}
}

// wireError maps a handler's error to the error object sent: see rules 3 to 5 of "Handling" in
// the package documentation. The result always encodes.
func (c *Conn) wireError(method string, err error, cancelled bool) *Error {
	var e *Error
	switch {
	case cancelled:
		return &Error{Code: CodeRequestCancelled, Message: msgCancelled}
	case c.base.Err() != nil && errors.Is(err, context.Canceled):
		// The connection is ending (ctx done, Close): the handler's error is its echo, not news.
		return &Error{Code: CodeRequestCancelled, Message: msgCancelled}
	case !errors.As(err, &e):
		c.logf("rpc: %s: %v", method, err)
		return &Error{Code: CodeInternalError, Message: msgInternal}
	case e.Code == 0:
		c.logf("rpc: %s: error with code 0: %v", method, err)
		return &Error{Code: CodeInternalError, Message: msgInternal}
	}
	if _, merr := encode(e); merr != nil {
		c.logf("rpc: %s: encoding error data: %v", method, merr)
		return &Error{Code: CodeInternalError, Message: msgInternal}
	}
	return e
}

// register records a running request under its id as sent.
func (c *Conn) register(id string, cancel context.CancelFunc) *pending {
	fl := &pending{cancel: cancel}
	c.mu.Lock()
	c.inflight[id] = append(c.inflight[id], fl)
	c.mu.Unlock()
	return fl
}

// unregister forgets fl and reports whether it was cancelled by $/cancel_request.
func (c *Conn) unregister(id string, fl *pending) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	list := c.inflight[id]
	for i, x := range list {
		if x == fl {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(c.inflight, id)
	} else {
		c.inflight[id] = list
	}
	return fl.cancelled
}

// cancelRequest handles $/cancel_request: it cancels every running request whose id is, byte
// for byte after removing insignificant whitespace, params.id. Anything else is ignored.
func (c *Conn) cancelRequest(params json.RawMessage) {
	var p struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(params, &p) != nil || !validID(p.ID) {
		return
	}
	var id bytes.Buffer
	if json.Compact(&id, p.ID) != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, fl := range c.inflight[id.String()] {
		fl.cancelled = true
		fl.cancel()
	}
}

// start counts a handler in, unless the connection is stopping.
func (c *Conn) start() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopping {
		return false
	}
	c.running++
	return true
}

// finish counts a handler out, after its reply is written.
func (c *Conn) finish() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.running--
	c.signalIdle()
}

// stop makes the connection start no more handlers and stop reading; pending Calls fail.
func (c *Conn) stop() {
	c.endCalls()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopping = true
	c.signalIdle()
}

// signalIdle closes idle once stopping and no handler runs. c.mu must be held.
func (c *Conn) signalIdle() {
	if c.stopping && c.running == 0 && !c.idleSent {
		c.idleSent = true
		close(c.idle)
	}
}

func (c *Conn) isClosing() bool {
	select {
	case <-c.closing:
		return true
	default:
		return false
	}
}

func (c *Conn) stopped() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stopping
}

func (c *Conn) setReadErr(err error) {
	c.mu.Lock()
	c.readErr = err
	c.mu.Unlock()
}

// Notify sends a notification to the client. It returns once the notification is queued for
// output (waiting while the queue is full: see [Options.MaxOutputBytes]); output is written in
// the order it was queued, so a notification sent by a handler is on the wire before that
// handler's response. params nil omits the params member. It returns [ErrClosed] once the
// connection is closed (also by a failed write), ctx.Err() if ctx is already done, and an error
// if params cannot be marshalled.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := c.jc.Notify(ctx, method, params); err != nil {
		return c.sendError("notify", method, err)
	}
	return nil
}

// Call sends a request to the client and waits for its reply, which it unmarshals into result
// (a pointer, or nil to discard it). The request's id is a string "srv-<n>", never reused.
//
// A JSON-RPC error reply is returned as an [*Error] whose Data is the raw json.RawMessage.
// If ctx is done first, Call returns ctx.Err() (a late reply is then discarded). If the
// connection closes, or input ends so that no reply can arrive, Call returns [ErrClosed] at once.
// Called from an inline handler (see [Options.Inline]), where the reply could never be read,
// Call fails at once instead of deadlocking.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	if ctx.Value(inlineKey{}) != nil {
		return fmt.Errorf("rpc: call %s: not allowed from an inline handler (its reply could not be read)", method)
	}
	if c.calls.Err() != nil {
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	id := c.s.newCall()
	w, err := c.jc.DispatchCall(ctx, method, params, jsonrpc2.PickID(jsonrpc2.ID{Str: id, IsString: true}))
	if err != nil {
		c.s.takeCall(id)
		return c.sendError("call", method, err)
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(c.calls, cancel)()
	// While it waits for the peer, the handler lends its slot: otherwise handlers waiting for
	// replies could take every slot, the read loop would stop at the next request, and the
	// replies behind it would never be read.
	if j, _ := ctx.Value(jobKey{}).(*job); j != nil && j.releaseSlot() {
		defer j.retakeSlot()
	}
	err = w.Wait(wctx, result)
	var je *jsonrpc2.Error
	switch {
	case err == nil:
		return nil
	case c.calls.Err() != nil, errors.Is(err, jsonrpc2.ErrClosed):
		return ErrClosed // also when ctx ended with the connection: the more useful answer
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.As(err, &je):
		e := &Error{Code: je.Code, Message: je.Message}
		if je.Data != nil {
			e.Data = *je.Data
		}
		return e
	}
	return fmt.Errorf("rpc: call %s: decoding result: %w", method, err)
}

// sendError maps an error from the library's send path.
func (c *Conn) sendError(op, method string, err error) error {
	if errors.Is(err, jsonrpc2.ErrClosed) || errors.Is(err, ErrClosed) {
		return ErrClosed
	}
	return fmt.Errorf("rpc: %s %s: %w", op, method, err)
}

// Close closes the connection: nothing more is read or written, every handler's ctx is
// cancelled, pending Calls return [ErrClosed] at once, and Serve returns once the handlers have.
// Replies not yet written are lost. Close is idempotent and always returns nil.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() {
		c.s.Close()
		c.endCalls()
		c.cancelBase()
		close(c.closing)
	})
	return nil
}

// Shutdown ends the connection gracefully, as if input had reached EOF after the request being
// handled: nothing more is read, the requests in flight (the caller's included) finish and are
// answered, and then Serve returns nil. Pending Calls return [ErrClosed], since their replies
// will not be read. A handler for a "shutdown" method calls it and returns its result.
func (c *Conn) Shutdown() {
	c.stop()
}
