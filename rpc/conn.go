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
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/fsbox/fsbox/rpc/jsonl"
)

// Conn is one connection being served by [Serve]. Handlers receive it to talk back to the client.
// Its methods are safe for concurrent use.
type Conn struct {
	lines    *jsonl.Reader // the read loop's, whichever goroutine runs it
	out      *outbox
	outCalls calls
	h        Handler
	hold     bool
	inline   func(string) bool
	logf     func(string, ...any)
	slots    chan struct{} // one token per non-inline handler at work (not waiting in Call)
	queue    *gate         // requests read but not yet holding a slot

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
	go c.readLoop()
	var err error
	select {
	case <-c.idle:
		c.mu.Lock()
		err = c.readErr
		c.mu.Unlock()
		// Every handler has answered; what they wrote is queued. Wait for it to reach w.
		if !c.out.drain(ctx.Done(), c.closing) && ctx.Err() != nil {
			err = ctx.Err()
		}
	case <-ctx.Done():
		err = ctx.Err()
	case <-c.closing:
	}
	c.Close()
	c.stop()
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
		hold:     opts.HoldNotifications,
		inline:   opts.Inline,
		logf:     opts.Logf,
		closing:  make(chan struct{}),
		inflight: make(map[string][]*pending),
		idle:     make(chan struct{}),
		lines:    jsonl.NewReader(r, max),
		out:      newOutbox(w, positiveOr(opts.MaxOutputBytes, DefaultMaxOutputBytes)),
		outCalls: calls{waiting: make(map[string]chan callReply)},
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
	go c.out.run(c.closing, c.Close)
	return c
}

// dispatch starts the handler of a request or notification read by the read loop; everything
// it does before returning happens before the next line is read. It reports true when the
// calling goroutine ran the handler itself, having started a new read loop first: then the
// caller's read loop must return.
func (c *Conn) dispatch(msg *jsonl.Message) (tookOver bool) {
	if msg.Method == CancelMethod {
		perr := c.cancelRequest(msg.Params)
		switch {
		case msg.Kind != jsonl.Request:
			if perr != nil {
				c.logf("rpc: %s notification refused: %s", CancelMethod, perr.Message)
			}
		case perr != nil:
			c.writeLine(appendErrorResponse(getLine(), msg.ID, perr), true)
		default:
			line, _ := appendResponse(getLine(), msg.ID, nil, nil) // a null result always encodes
			c.writeLine(line, true)
		}
		return false
	}
	req := &Request{Method: msg.Method, Params: msg.Params, Notif: msg.Kind == jsonl.Notification, ID: msg.ID}
	inline := c.inline(req.Method)
	size := len(msg.Params)
	// Backpressure: when the queue of requests waiting for a slot is full, the read loop waits
	// here, and so stops reading. Responses to our Calls and cancels behind this line wait too,
	// but never for long: a handler waiting in Call holds no slot (see Call), so slots free
	// up as long as handlers finish, and the queue drains.
	if !inline && !c.queue.enter(size, c.closing) {
		return false // closing: nobody will read a reply
	}
	if !c.start() {
		if !inline {
			c.queue.leave(size)
		}
		return false // closing: nobody will read a reply
	}
	ctx, cancel := context.WithCancel(c.base)
	j := &job{c: c, msg: msg, req: req, ctx: ctx, cancel: cancel, size: size}
	if !req.Notif {
		// Registered here, on the read loop, so that a cancel on the very next line finds it.
		j.fl = c.register(string(msg.ID), cancel)
	}
	ctx = context.WithValue(ctx, jobKey{}, j)
	if inline {
		j.run(context.WithValue(ctx, inlineKey{}, true))
		return false
	}
	// Fast path: no other request waits and a slot is free. The handler runs on this goroutine
	// at once, and a new goroutine takes over reading (so a $/cancel_request is still read while
	// the handler works): the request's path has no goroutine handoff, only the reader's has.
	if c.queue.alone() {
		select {
		case c.slots <- struct{}{}:
			j.slotted.Store(true)
			c.queue.leave(size)
			go c.readLoop()
			j.run(ctx)
			j.releaseSlot()
			return true
		default:
		}
	}
	go j.runWhenSlotFree(ctx)
	return false
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
	msg    *jsonl.Message
	req    *Request
	ctx    context.Context
	cancel context.CancelFunc
	fl     *pending // nil for a notification
	size   int      // bytes of params counted in Conn.queue until the job takes a slot

	slotted atomic.Bool // holds a token of Conn.slots

	heldMu   sync.Mutex
	held     []byte // guarded by heldMu: the last notification, not yet admitted (HoldNotifications)
	answered bool   // guarded by heldMu: the reply has taken what was held; nothing is held any more
}

// jobKey marks the ctx of a handler with its job, so that Call can lend its slot and Notify
// can hold a notification for the reply.
type jobKey struct{}

// run runs the handler with ctx and answers. The reply is admitted for output before the
// handler is counted out (so that Serve, draining output once no handler runs, waits for it),
// and written after: a write that blocks, because the peer reads nothing, then keeps only this
// goroutine, not Serve.
func (j *job) run(ctx context.Context) {
	finished := false
	defer func() {
		j.cancel()
		if !finished {
			j.c.finish()
		}
	}()
	result, err := j.c.call(ctx, j.req)
	line, direct := j.answer(result, err)
	j.cancel()
	finished = true
	j.c.finish()
	if direct {
		j.c.out.write(line, j.c.closing, j.c.Close)
	}
}

// runWhenSlotFree runs the job once Options.MaxConcurrent allows, unless it is cancelled first.
func (j *job) runWhenSlotFree(ctx context.Context) {
	select {
	case j.c.slots <- struct{}{}:
		j.slotted.Store(true)
		j.c.queue.leave(j.size)
		defer j.releaseSlot()
	case <-j.ctx.Done():
		j.c.queue.leave(j.size)
		line, direct := j.answer(nil, j.ctx.Err()) // as if the handler had returned at once
		j.c.finish()
		if direct {
			j.c.out.write(line, j.c.closing, j.c.Close)
		}
		return
	}
	j.run(ctx)
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

// answer admits the reply to a request for output, with the notification held before it if
// any, and returns it when the caller must write it (see outbox.reserve). For a notification it
// only logs an error, and lets a held notification go.
func (j *job) answer(result any, err error) (line []byte, direct bool) {
	j.heldMu.Lock()
	line, j.held, j.answered = j.held, nil, true
	j.heldMu.Unlock()
	if j.req.Notif {
		if err != nil && !j.c.isClosing() {
			j.c.logf("rpc: notification %q: %v", j.req.Method, err)
		}
		if line == nil {
			return nil, false
		}
		return j.c.admit(line)
	}
	cancelled := j.c.unregister(string(j.msg.ID), j.fl)
	if j.c.isClosing() {
		return nil, false // nothing can be written; the handler's error is only the closing's echo
	}
	if line == nil {
		line = getLine()
	}
	if err == nil {
		out, merr := appendResponse(line, j.msg.ID, result, nil)
		if merr == nil {
			return j.c.admit(out)
		}
		err = fmt.Errorf("encoding result: %w", merr)
	}
	e := j.c.wireError(j.req.Method, err, cancelled)
	return j.c.admit(appendErrorResponse(line, j.msg.ID, e))
}

// admit reserves line for output; see outbox.reserve. A write error is the closing's echo.
func (c *Conn) admit(line []byte) ([]byte, bool) {
	direct, err := c.out.reserve(line, c.closing)
	if err != nil {
		if !c.isClosing() { // a failed write closes the connection: the peer is gone, quietly
			c.logf("rpc: writing response: %v", err)
		}
		return nil, false
	}
	return line, direct
}

// hold keeps line as the job's last notification, admitting the one it held before. Once the
// reply is on its way (a goroutine of the handler's still notifying), it admits line at once.
func (j *job) hold(line []byte) error {
	j.heldMu.Lock()
	if j.answered {
		j.heldMu.Unlock()
		return j.c.writeLine(line, false)
	}
	prev := j.held
	j.held = line
	j.heldMu.Unlock()
	if prev != nil {
		return j.c.writeLine(prev, false)
	}
	return nil
}

// takeHeld returns the held notification, if any, and forgets it.
func (j *job) takeHeld() []byte {
	j.heldMu.Lock()
	defer j.heldMu.Unlock()
	line := j.held
	j.held = nil
	return line
}

// flushHeld admits the held notification for output, before something that must follow it.
func (j *job) flushHeld() error {
	if line := j.takeHeld(); line != nil {
		return j.c.writeLine(line, false)
	}
	return nil
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
	if _, merr := json.Marshal(e.Data); merr != nil {
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
// for byte after removing insignificant whitespace, params.id; an id not in flight is ignored.
// The params are decoded strictly (see [cancelID]): anything else is refused with the -32602
// returned, and nothing is cancelled.
func (c *Conn) cancelRequest(params json.RawMessage) *Error {
	raw, perr := cancelID(params)
	if perr != nil {
		return perr
	}
	var id bytes.Buffer
	if json.Compact(&id, raw) != nil {
		return &Error{Code: CodeInvalidParams, Message: msgCancelID}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, fl := range c.inflight[id.String()] {
		fl.cancelled = true
		fl.cancel()
	}
	return nil
}

// cancelID returns the id of $/cancel_request params, which must be exactly {"id": <id>}: an
// object whose one member is named "id", case-sensitively (encoding/json would take "ID" or "Id"
// too), given once, holding a string or an integer. Anything else is a -32602 naming the member.
// A misspelled cancel is refused rather than guessed at, as every message of the server is.
func cancelID(params json.RawMessage) (json.RawMessage, *Error) {
	bad := func(msg string) (json.RawMessage, *Error) {
		return nil, &Error{Code: CodeInvalidParams, Message: "invalid params: " + CancelMethod + ": " + msg}
	}
	if len(params) == 0 || params[0] != '{' {
		return bad(`params must be an object {"id": <id of the request to cancel>}`)
	}
	var id json.RawMessage
	i := jsonl.SkipSpace(params, 1)
	for i < len(params) && params[i] == '"' {
		end := jsonl.SkipString(params, i)
		name := string(params[i+1 : end-1])
		if strings.IndexByte(name, '\\') >= 0 && json.Unmarshal(params[i:end], &name) != nil {
			return bad("malformed member name")
		}
		i = jsonl.SkipSpace(params, end)
		if i >= len(params) || params[i] != ':' {
			return bad("malformed object")
		}
		start := jsonl.SkipSpace(params, i+1)
		i = jsonl.SkipValue(params, start)
		switch {
		case name != "id" && strings.EqualFold(name, "id"):
			return bad(fmt.Sprintf("unknown member `%s`; did you mean `id`?", name))
		case name != "id":
			return bad(fmt.Sprintf("unknown member `%s`; the only member is `id`", name))
		case id != nil:
			return bad("member `id` is given twice")
		}
		id = params[start:i]
		if i = jsonl.SkipSpace(params, i); i < len(params) && params[i] == ',' {
			i = jsonl.SkipSpace(params, i+1)
		}
	}
	switch {
	case id == nil:
		return bad("missing member `id`")
	case !jsonl.ValidID(id):
		return nil, &Error{Code: CodeInvalidParams, Message: msgCancelID}
	}
	return id, nil
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

// Notify sends a notification to the client. It returns once the notification is admitted
// for output (waiting while the queue is full: see [Options.MaxOutputBytes]); output is written
// in the order it was admitted, so a notification sent by a handler is on the wire before that
// handler's response. With [Options.HoldNotifications], a handler's last notification waits for
// its next notification, Call or reply, and goes out in the same write. params nil omits the
// params member. It returns [ErrClosed] once the connection is closed (also by a failed write),
// ctx.Err() if ctx is already done, and an error if params cannot be marshalled.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if c.isClosing() {
		return ErrClosed
	}
	line, err := appendOutgoing(getLine(), "", method, params)
	if err != nil {
		putLine(line)
		return fmt.Errorf("rpc: notify %s: %w", method, err)
	}
	if j, _ := ctx.Value(jobKey{}).(*job); j != nil && c.hold && j.c == c {
		return j.hold(line)
	}
	return c.writeLine(line, false)
}

// appendOutgoing appends a call (id not "") or notification line of ours.
func appendOutgoing(line []byte, id, method string, params any) ([]byte, error) {
	start := len(line)
	line = append(line, `{"jsonrpc":"2.0"`...)
	if id != "" {
		line = strconv.AppendQuote(append(line, `,"id":`...), id)
	}
	var err error
	if line, err = appendJSON(append(line, `,"method":`...), method); err != nil {
		return line[:start], err
	}
	if params != nil {
		if line, err = appendJSON(append(line, `,"params":`...), params); err != nil {
			return line[:start], err
		}
	}
	return append(line, '}', '\n'), nil
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
	j, _ := ctx.Value(jobKey{}).(*job)
	if j != nil && j.c != c {
		j = nil
	}
	if j != nil {
		if err := j.flushHeld(); err != nil {
			return c.sendError("call", method, err)
		}
	}
	id, ch := c.outCalls.newCall()
	line, err := appendOutgoing(getLine(), id, method, params)
	if err != nil {
		c.outCalls.forget(id)
		putLine(line)
		return fmt.Errorf("rpc: call %s: %w", method, err)
	}
	if err := c.writeLine(line, false); err != nil {
		c.outCalls.forget(id)
		return c.sendError("call", method, err)
	}
	// While it waits for the peer, the handler lends its slot: otherwise handlers waiting for
	// replies could take every slot, the read loop would stop at the next request, and the
	// replies behind it would never be read.
	if j != nil && j.releaseSlot() {
		defer j.retakeSlot()
	}
	var r callReply
	select {
	case r = <-ch:
	case <-ctx.Done():
		c.outCalls.abandon(id)
		if c.calls.Err() != nil {
			return ErrClosed // the connection ended with ctx: the more useful answer
		}
		return ctx.Err()
	case <-c.calls.Done():
		c.outCalls.abandon(id)
		return ErrClosed
	}
	if r.err != nil {
		return r.err
	}
	if result != nil && r.result != nil {
		if err := json.Unmarshal(r.result, result); err != nil {
			return fmt.Errorf("rpc: call %s: decoding result: %w", method, err)
		}
	}
	return nil
}

// sendError maps an error from the send path.
func (c *Conn) sendError(op, method string, err error) error {
	if errors.Is(err, ErrClosed) {
		return ErrClosed
	}
	return fmt.Errorf("rpc: %s %s: %w", op, method, err)
}

// Close closes the connection: nothing more is read or written, every handler's ctx is
// cancelled, pending Calls return [ErrClosed] at once, and Serve returns once the handlers have.
// Replies not yet written are lost. Close is idempotent and always returns nil.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() {
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
