package fsboxclient

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// How long Close waits: for the answer to shutdown, then for the process to exit once its stdin is
// closed, before it kills the process. Variables only so tests can shorten them.
var (
	shutdownTimeout = 2 * time.Second
	exitTimeout     = 3 * time.Second
)

// Client is a connection to one fsbox server process. Its methods are safe for concurrent use;
// calls are pipelined on the one connection. Close it to stop the server.
type Client struct {
	opts    Options
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	stderr  *tail             // the last bytes of the server's stderr
	errOut  io.Writer         // Options.Stderr (or os.Stderr) plus stderr, behind one lock
	session *InitializeResult // set by Start, read-only afterwards

	writeMu sync.Mutex // serialises writes to stdin, one whole line at a time

	mu      sync.Mutex           // guards the fields below
	nextID  int64                // id of the last request sent
	pending map[int64]chan reply // calls waiting for their response; nil once the connection is dead
	err     error                // why the connection is dead; nil while it is alive
	closing bool                 // Close has begun: a dying connection fails calls with ErrClosed

	readerDone chan struct{} // closed when the reader has stopped
	exited     chan struct{} // closed when the process has been waited for
	exitErr    error         // the process's exit status; set before exited is closed

	callbacks context.Context // passed to OnChangeRequest; cancelled by Close
	cancel    context.CancelFunc

	closeOnce sync.Once
}

// reply is what a pending call receives: a result or an error.
type reply struct {
	result json.RawMessage
	err    error
}

// message is any JSON-RPC 2.0 message on the wire.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *wireError      `json:"error,omitempty"`
}

type wireError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// spawn starts `bin serve` with its stdout on a pipe only the reader touches, so exec's Wait can
// never close it under the reader and lose the last lines.
func spawn(bin string, opts Options) (*Client, error) {
	out, childOut, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("fsboxclient: %w", err)
	}
	c := &Client{
		opts:       opts,
		cmd:        exec.Command(bin, append([]string{"serve"}, opts.Audit.args()...)...),
		stderr:     &tail{},
		pending:    map[int64]chan reply{},
		readerDone: make(chan struct{}),
		exited:     make(chan struct{}),
	}
	c.callbacks, c.cancel = context.WithCancel(context.Background())
	stderr := opts.Stderr
	if stderr == nil {
		stderr = os.Stderr
	}
	c.errOut = &lockedWriter{w: io.MultiWriter(stderr, c.stderr)}
	c.cmd.Stdout = childOut
	c.cmd.Stderr = c.errOut
	c.cmd.WaitDelay = exitTimeout // bounds the stderr copy if something inherited the pipe
	if c.stdin, err = c.cmd.StdinPipe(); err != nil {
		out.Close()
		childOut.Close()
		return nil, fmt.Errorf("fsboxclient: %w", err)
	}
	if err := c.cmd.Start(); err != nil {
		out.Close()
		childOut.Close()
		return nil, fmt.Errorf("fsboxclient: starting %s serve: %w", bin, err)
	}
	childOut.Close()
	go func() {
		c.exitErr = c.cmd.Wait()
		close(c.exited)
	}()
	go c.read(out)
	return c, nil
}

// read handles the server's messages in wire order until stdout ends, then fails every pending
// call at once.
func (c *Client) read(out *os.File) {
	defer close(c.readerDone)
	defer out.Close()
	r := bufio.NewReader(out)
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			c.handle(line)
		}
		if err != nil {
			c.fail(c.exitError())
			return
		}
	}
}

// exitError describes the server's exit, waiting briefly for the exit status.
func (c *Client) exitError() error {
	status := "it closed its stdout"
	select {
	case <-c.exited:
		if c.exitErr != nil {
			status = c.exitErr.Error()
		} else {
			status = "exit status 0"
		}
	case <-time.After(time.Second):
	}
	if s := c.stderr.String(); s != "" {
		return fmt.Errorf("%w (%s); its stderr ended with:\n%s", ErrConnectionLost, status, s)
	}
	return fmt.Errorf("%w (%s)", ErrConnectionLost, status)
}

// handle dispatches one line: a response, an event notification or a change request.
func (c *Client) handle(line []byte) {
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		c.logf("ignoring a line that is not JSON-RPC: %v", err)
		return
	}
	switch {
	case m.Method == methodEvent && m.ID == nil:
		if c.opts.OnEvent == nil {
			return
		}
		e, err := DecodeEvent(m.Params)
		if err != nil {
			c.logf("ignoring a malformed event: %v", err)
			return
		}
		c.opts.OnEvent(e)
	case m.Method != "" && m.ID != nil:
		go c.serve(m)
	case m.Method != "":
		// A notification this client does not know: nothing to answer.
	default:
		c.resolve(m)
	}
}

// resolve delivers a response to the call waiting for it.
func (c *Client) resolve(m message) {
	id, err := strconv.ParseInt(string(m.ID), 10, 64)
	if err != nil {
		c.logf("ignoring a response with id %s", m.ID)
		return
	}
	c.mu.Lock()
	ch := c.pending[id]
	delete(c.pending, id)
	c.mu.Unlock()
	if ch == nil {
		return // the caller gave up (context cancelled)
	}
	if m.Error != nil {
		ch <- reply{err: toError(m.Error)}
		return
	}
	ch <- reply{result: m.Result}
}

// toError turns a JSON-RPC error into *Error, reading fsbox's data member when there is one.
func toError(w *wireError) *Error {
	e := &Error{Code: w.Code, Message: w.Message, Data: w.Data}
	var data ErrorData
	if len(w.Data) > 0 && json.Unmarshal(w.Data, &data) == nil {
		e.Kind, e.Retry = data.Kind, data.Retry
		if data.Path != nil {
			e.Path = *data.Path
		}
		// A server that predates counts_as_retry counts every retry.
		var has struct {
			CountsAsRetry *bool `json:"counts_as_retry"`
		}
		e.CountsAsRetry = data.Retry
		if json.Unmarshal(w.Data, &has) == nil && has.CountsAsRetry != nil {
			e.CountsAsRetry = *has.CountsAsRetry
		}
	}
	return e
}

// serve answers a request from the server: change_request goes to OnChangeRequest.
func (c *Client) serve(m message) {
	if m.Method != methodChangeRequest || c.opts.OnChangeRequest == nil {
		c.respond(m.ID, nil, &wireError{Code: CodeMethodNotFound, Message: "this client does not serve " + m.Method})
		return
	}
	var req ChangeRequest
	if err := json.Unmarshal(m.Params, &req.FileChangeRequest); err != nil {
		c.respond(m.ID, nil, &wireError{Code: CodeInvalidParams, Message: "malformed change request: " + err.Error()})
		return
	}
	err := c.opts.OnChangeRequest(c.callbacks, &req)
	var refused *RefusedError
	var edited *EditedError
	switch {
	case err == nil:
		c.respond(m.ID, ChangeRequestResult{Approve: true}, nil)
	case errors.As(err, &edited):
		// approve false: a server that predates edits refuses the change rather than applying
		// the model's unedited one.
		c.respond(m.ID, ChangeRequestResult{Approve: false, Decision: new("edit"), Content: edited.Content, Arguments: edited.Arguments}, nil)
	case errors.As(err, &refused):
		answer := ChangeRequestResult{Approve: false}
		if refused.Reason != "" {
			answer.Reason = new(refused.Reason)
		}
		c.respond(m.ID, answer, nil)
	default:
		c.respond(m.ID, nil, &wireError{Code: -32603, Message: "change request handler failed: " + err.Error()})
	}
}

// respond writes the response to a server request; a dead connection has nobody to answer.
func (c *Client) respond(id json.RawMessage, result any, werr *wireError) {
	resp := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  any             `json:"result,omitempty"`
		Error   *wireError      `json:"error,omitempty"`
	}{"2.0", id, result, werr}
	if err := c.write(resp); err != nil {
		c.logf("could not answer %s: %v", id, err)
	}
}

// call sends a request and waits for its response, decoding the result into result (unless nil).
// If ctx ends first, the server is asked to cancel the request and call returns ctx.Err().
func (c *Client) call(ctx context.Context, method string, params, result any) error {
	ch := make(chan reply, 1)
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return err
	}
	c.nextID++
	id := c.nextID
	c.pending[id] = ch
	c.mu.Unlock()

	req := struct {
		JSONRPC string `json:"jsonrpc"`
		ID      int64  `json:"id"`
		Method  string `json:"method"`
		Params  any    `json:"params,omitempty"`
	}{"2.0", id, method, params}
	if err := c.write(req); err != nil {
		c.forget(id)
		return c.deadOr(err)
	}
	select {
	case r := <-ch:
		if r.err != nil {
			return r.err
		}
		if result != nil {
			if err := json.Unmarshal(r.result, result); err != nil {
				return fmt.Errorf("fsboxclient: decoding the result of %s: %w", method, err)
			}
		}
		return nil
	case <-ctx.Done():
		c.forget(id)
		_ = c.write(struct {
			JSONRPC string       `json:"jsonrpc"`
			Method  string       `json:"method"`
			Params  CancelParams `json:"params"`
		}{"2.0", methodCancelRequest, CancelParams{ID: json.RawMessage(strconv.FormatInt(id, 10))}})
		return ctx.Err()
	}
}

// forget drops a pending call whose caller stopped waiting.
func (c *Client) forget(id int64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// deadOr returns the connection's error if a failed write was due to the server dying (waiting
// briefly for the reader to notice), else err.
func (c *Client) deadOr(err error) error {
	select {
	case <-c.readerDone:
	case <-time.After(time.Second):
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return c.err
	}
	return fmt.Errorf("fsboxclient: writing to the server: %w", err)
}

// write sends one message as one line.
func (c *Client) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("fsboxclient: encoding a message: %w", err)
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err = c.stdin.Write(append(b, '\n'))
	return err
}

// fail marks the connection dead and fails every pending call with err (ErrClosed once Close has
// begun). Only the first call has an effect.
func (c *Client) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	if c.closing {
		err = ErrClosed
	}
	c.err = err
	for _, ch := range c.pending {
		ch <- reply{err: err}
	}
	c.pending = nil
}

// Close stops the server: it cancels the context of OnChangeRequest, sends shutdown, closes the
// server's stdin, waits for it to exit and kills it if it does not. Calls in flight fail with
// ErrClosed. Close is idempotent and safe to
// call concurrently; it returns once the process is gone.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		c.cancel() // a change request handler waiting on ctx gives up now
		c.mu.Lock()
		c.closing = true
		alive := c.err == nil
		c.mu.Unlock()
		if alive {
			ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
			_ = c.call(ctx, methodShutdown, nil, nil) // a server that is already gone cannot answer
			cancel()
		}
		c.stdin.Close()
		select {
		case <-c.exited:
		case <-time.After(exitTimeout):
			_ = c.cmd.Process.Kill()
			<-c.exited
		}
		select {
		case <-c.readerDone:
		case <-time.After(exitTimeout): // a grandchild may still hold stdout open
		}
		c.fail(ErrClosed)
	})
	return nil
}

// logf reports a protocol oddity where the server's stderr goes; the connection carries on.
func (c *Client) logf(format string, args ...any) {
	fmt.Fprintf(c.errOut, "fsboxclient: "+format+"\n", args...)
}

// lockedWriter serialises writes from the stderr copier and logf, so Options.Stderr need not be
// safe for concurrent use.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// tail keeps the last tailSize bytes written to it: the server's stderr, for error messages.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailSize = 2048

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailSize {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-tailSize:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.buf))
}
