package rpc

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// peer is the client end of a connection served by Serve over in-memory pipes.
type peer struct {
	t     *testing.T
	in    *io.PipeWriter // client → server
	lines chan string    // server → client, one line each, without "\n"
	done  chan error     // Serve's result
	logs  *logBuffer
}

// serve starts Serve with h and returns the client end. Output is read continuously into a
// buffered channel, so the server never blocks writing while the test is sending.
func serve(t *testing.T, h HandlerFunc, opts Options) *peer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &peer{t: t, in: inW, lines: make(chan string, 1000), done: make(chan error, 1), logs: &logBuffer{}}
	if opts.Logf == nil {
		opts.Logf = p.logs.logf
	}
	go func() {
		p.done <- Serve(context.Background(), inR, outW, h, opts)
		outW.Close()
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<30)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	t.Cleanup(func() { inW.Close(); inR.Close() })
	return p
}

func (p *peer) send(format string, args ...any) {
	p.t.Helper()
	if _, err := fmt.Fprintf(p.in, format+"\n", args...); err != nil {
		p.t.Fatalf("send: %v", err)
	}
}

// failsafe bounds every wait, so that a bug fails the test instead of hanging it; it is never
// used to order events.
const failsafe = 10 * time.Second

// recv returns the next output line.
func (p *peer) recv() string {
	p.t.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			p.t.Fatal("recv: output closed")
		}
		return line
	case <-time.After(failsafe):
		p.t.Fatal("recv: nothing written")
	}
	return ""
}

// recvMsg returns the next output line decoded.
func (p *peer) recvMsg() wireMsg {
	p.t.Helper()
	line := p.recv()
	var m wireMsg
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		p.t.Fatalf("recv: %q: %v", line, err)
	}
	m.line = line
	return m
}

// wait closes the input and returns Serve's result.
func (p *peer) wait() error {
	p.t.Helper()
	p.in.Close()
	select {
	case err := <-p.done:
		return err
	case <-time.After(failsafe):
		p.t.Fatal("Serve did not return")
	}
	return nil
}

type wireMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *Error          `json:"error"`
	line   string
}

// code returns the error code of a reply, 0 for a result.
func (m wireMsg) code() int64 {
	if m.Error == nil {
		return 0
	}
	return m.Error.Code
}

// TestConcurrent_SlowDoesNotDelayFast pins handling rule 1: a handler blocked for ever does not
// hold back a later request's reply.
func TestConcurrent_SlowDoesNotDelayFast(t *testing.T) {
	release := make(chan struct{})
	p := serve(t, func(ctx context.Context, c *Conn, req *Request) (any, error) {
		if req.Method == "slow" {
			<-release
			return "slow", nil
		}
		return "fast", nil
	}, Options{})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"slow"}`)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"fast"}`)
	if m := p.recvMsg(); string(m.ID) != "2" || string(m.Result) != `"fast"` {
		t.Fatalf("first reply = %s; want the fast one", m.line)
	}
	close(release)
	if m := p.recvMsg(); string(m.ID) != "1" || string(m.Result) != `"slow"` {
		t.Fatalf("second reply = %s; want the slow one", m.line)
	}
	if err := p.wait(); err != nil {
		t.Fatalf("Serve = %v; want nil", err)
	}
}

// askHandler calls the client with "ask" and answers with what came back.
func askHandler(ctx context.Context, c *Conn, req *Request) (any, error) {
	switch req.Method {
	case "ask":
		var res json.RawMessage
		err := c.Call(ctx, "ask", map[string]string{"q": "<ok?>"}, &res)
		var e *Error
		switch {
		case err == nil:
			return map[string]any{"answer": res}, nil
		case errors.As(err, &e):
			return map[string]any{"code": e.Code, "message": e.Message, "data": e.Data}, nil
		case errors.Is(err, ErrClosed):
			return "closed", nil
		}
		return nil, err
	case "ping":
		return "pong", nil
	}
	return nil, ErrMethodNotFound(req.Method)
}

// TestCall_FromHandler pins handling rule 1: a handler's Call gets its reply while other requests
// are still served, and replies (results, error objects, even malformed ones) come back typed.
func TestCall_FromHandler(t *testing.T) {
	p := serve(t, askHandler, Options{})
	for i, tc := range []struct{ reply, want string }{
		{`"result":{"approve":true}`, `{"answer":{"approve":true}}`},
		{`"result":null`, `{"answer":null}`},
		{`"error":{"code":-32001,"message":"no","data":{"why":1}}`, `{"code":-32001,"data":{"why":1},"message":"no"}`},
		{`"error":{"code":"bad","message":"no"}`, `{"code":-32603,"data":null,"message":"malformed error object in response"}`},
		{`"error":{"code":1.5}`, `{"code":-32603,"data":null,"message":"malformed error object in response"}`},
	} {
		p.send(`{"jsonrpc":"2.0","id":%d,"method":"ask"}`, i)
		call := p.recvMsg()
		wantID := fmt.Sprintf(`"srv-%d"`, i+1)
		if call.Method != "ask" || string(call.ID) != wantID || string(call.Params) != `{"q":"<ok?>"}` {
			t.Fatalf("server→client call = %s; want method ask, id %s, params unescaped", call.line, wantID)
		}
		// The read loop is not blocked by the waiting handler.
		p.send(`{"jsonrpc":"2.0","id":"p%d","method":"ping"}`, i)
		if m := p.recvMsg(); string(m.Result) != `"pong"` {
			t.Fatalf("ping during call = %s", m.line)
		}
		p.send(`{"jsonrpc":"2.0","id":%s,%s}`, call.ID, tc.reply)
		if m := p.recvMsg(); string(m.ID) != fmt.Sprint(i) || string(m.Result) != tc.want {
			t.Errorf("reply %s: response = %s; want result %s", tc.reply, m.line, tc.want)
		}
	}
	// A second reply to the same call is a reply to an unknown id.
	p.send(`{"jsonrpc":"2.0","id":"srv-1","result":true}`)
	if m := p.recvMsg(); m.code() != CodeInvalidRequest || string(m.ID) != "null" {
		t.Errorf("duplicate reply answered %s; want -32600 id null", m.line)
	}
	if err := p.wait(); err != nil {
		t.Fatalf("Serve = %v; want nil", err)
	}
}

// TestCall_CtxCancelled pins that Call returns ctx.Err() when its ctx ends (here through
// $/cancel_request of the outer request, so the reply is -32800), and that a late reply to it is
// absorbed rather than answered as a stray.
func TestCall_CtxCancelled(t *testing.T) {
	p := serve(t, askHandler, Options{})
	p.send(`{"jsonrpc":"2.0","id":"outer","method":"ask"}`)
	call := p.recvMsg()
	p.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"id":"outer"}}`)
	if m := p.recvMsg(); string(m.ID) != `"outer"` || m.code() != CodeRequestCancelled || m.Error.Message != "request cancelled" {
		t.Fatalf("cancelled call's request answered %s; want -32800", m.line)
	}
	p.send(`{"jsonrpc":"2.0","id":%s,"result":"late"}`, call.ID)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if m := p.recvMsg(); string(m.ID) != "1" {
		t.Fatalf("after a late reply got %s; want the ping's reply", m.line)
	}
	if err := p.wait(); err != nil {
		t.Fatalf("Serve = %v; want nil", err)
	}
}

// TestCall_InputEnds pins handling rule 6: a Call waiting when input reaches EOF fails with
// ErrClosed at once, and its handler's reply is still written.
func TestCall_InputEnds(t *testing.T) {
	p := serve(t, askHandler, Options{})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"ask"}`)
	p.recvMsg() // the call
	p.in.Close()
	if m := p.recvMsg(); string(m.Result) != `"closed"` {
		t.Fatalf("reply after EOF = %s; want result \"closed\"", m.line)
	}
	if err := p.wait(); err != nil {
		t.Fatalf("Serve = %v; want nil", err)
	}
}

// TestCall_Close pins that Close makes a pending Call return ErrClosed at once and Serve return nil.
func TestCall_Close(t *testing.T) {
	got := make(chan error, 1)
	var conn *Conn
	p := serve(t, func(ctx context.Context, c *Conn, req *Request) (any, error) {
		switch req.Method {
		case "ask":
			conn = c
			err := c.Call(ctx, "ask", nil, nil)
			got <- err
			return nil, err
		case "close":
			return nil, c.Close()
		}
		return nil, nil
	}, Options{})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"ask"}`)
	if m := p.recvMsg(); m.Params != nil || strings.Contains(m.line, "params") {
		t.Errorf("call with nil params = %s; want no params member", m.line)
	}
	p.send(`{"jsonrpc":"2.0","id":2,"method":"close"}`)
	select {
	case err := <-got:
		if err != ErrClosed {
			t.Errorf("Call after Close = %v; want ErrClosed", err)
		}
	case <-time.After(failsafe):
		t.Fatal("Call still pending after Close")
	}
	if err := <-p.done; err != nil {
		t.Errorf("Serve = %v; want nil", err)
	}
	if err := conn.Call(context.Background(), "x", nil, nil); err != ErrClosed {
		t.Errorf("Call after Serve returned = %v; want ErrClosed", err)
	}
	if err := conn.Notify(context.Background(), "x", nil); err != ErrClosed {
		t.Errorf("Notify after Serve returned = %v; want ErrClosed", err)
	}
	if err := conn.Close(); err != nil {
		t.Errorf("second Close = %v; want nil", err)
	}
}

// TestCall_FromInlineHandler pins that Call from an inline handler fails instead of deadlocking.
func TestCall_FromInlineHandler(t *testing.T) {
	p := serve(t, func(ctx context.Context, c *Conn, req *Request) (any, error) {
		return nil, c.Call(ctx, "ask", nil, nil)
	}, Options{Inline: func(string) bool { return true }})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"ask"}`)
	if m := p.recvMsg(); m.code() != CodeInternalError {
		t.Fatalf("reply = %s; want -32603", m.line)
	}
	if !strings.Contains(p.logs.String(), "inline handler") {
		t.Errorf("log lacks the reason; log:\n%s", p.logs)
	}
	if err := p.wait(); err != nil {
		t.Fatalf("Serve = %v; want nil", err)
	}
}

// commitStarted hears from each "commit" handler as it starts, so a test can cancel a request
// that is surely running: one still waiting for a work slot is cancelled without running.
var commitStarted = make(chan struct{}, 16)

// waitHandler's "wait" returns ctx.Err() once cancelled, or "released" when release closes;
// "commit" returns a result even after cancellation.
func waitHandler(release <-chan struct{}) HandlerFunc {
	return func(ctx context.Context, c *Conn, req *Request) (any, error) {
		switch req.Method {
		case "wait":
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-release:
				return "released", nil
			}
		case "commit":
			select {
			case commitStarted <- struct{}{}:
			default:
			}
			<-ctx.Done()
			return "committed", nil
		}
		return "pong", nil
	}
}

// TestCancel pins handling rule 5.
func TestCancel(t *testing.T) {
	release := make(chan struct{})
	p := serve(t, waitHandler(release), Options{})

	// A cancel on the very next line finds the request, whatever the id's spelling of spaces.
	ids := []string{`"w"`, `-7`, `123456789012345678901234567890`, `"a\u00e9"`}
	for _, id := range ids {
		p.send(`{"jsonrpc":"2.0","id":%s,"method":"wait"}`, id)
		p.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{ "id" :  %s }}`, id)
		m := p.recvMsg()
		if string(m.ID) != id || m.code() != CodeRequestCancelled {
			t.Errorf("cancelled %s: reply %s; want -32800 to the same id", id, m.line)
		}
	}

	// Many back to back, so that a registration made late (off the read loop) would be missed.
	const burst = 50
	for i := range burst {
		p.send(`{"jsonrpc":"2.0","id":"b%d","method":"wait"}`, i)
		p.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"id":"b%d"}}`, i)
	}
	for range burst {
		if m := p.recvMsg(); m.code() != CodeRequestCancelled {
			t.Errorf("burst: reply %s; want -32800", m.line)
		}
	}

	// A handler that returns a result anyway has it sent.
	p.send(`{"jsonrpc":"2.0","id":"c","method":"commit"}`)
	<-commitStarted
	p.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"id":"c"}}`)
	if m := p.recvMsg(); string(m.Result) != `"committed"` {
		t.Errorf("committed after cancel: reply %s; want the result", m.line)
	}

	// Other ids are not touched: not 1 for "1" or 1.0, not another request.
	p.send(`{"jsonrpc":"2.0","id":1,"method":"wait"}`)
	for _, other := range []string{`"1"`, `2`, `1.0`, `null`} {
		p.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"id":%s}}`, other)
	}
	p.send(`{"jsonrpc":"2.0","id":"ping","method":"ping"}`) // the cancels above were processed before this
	if m := p.recvMsg(); string(m.ID) != `"ping"` {
		t.Fatalf("got %s; want the ping's reply", m.line)
	}
	close(release)
	if m := p.recvMsg(); string(m.ID) != "1" || string(m.Result) != `"released"` {
		t.Errorf("uncancelled request: reply %s; want result released", m.line)
	}
	if err := p.wait(); err != nil {
		t.Fatalf("Serve = %v; want nil", err)
	}
}

// TestNotify_BeforeResponse pins handling rule 2 under concurrency: every notification a
// handler sends is on the wire before that handler's response.
func TestNotify_BeforeResponse(t *testing.T) {
	const requests, notes = 20, 30
	p := serve(t, func(ctx context.Context, c *Conn, req *Request) (any, error) {
		for i := range notes {
			if err := c.Notify(ctx, "event", map[string]any{"req": req.ID, "i": i}); err != nil {
				return nil, err
			}
		}
		return "done", nil
	}, Options{})
	for i := range requests {
		p.send(`{"jsonrpc":"2.0","id":%d,"method":"go"}`, i)
	}
	seen := map[string]int{}
	for range requests * (notes + 1) {
		m := p.recvMsg()
		if m.Method == "event" {
			var ev struct {
				Req json.RawMessage `json:"req"`
				I   int             `json:"i"`
			}
			json.Unmarshal(m.Params, &ev)
			if ev.I != seen[string(ev.Req)] {
				t.Fatalf("request %s: notification %d after %d", ev.Req, ev.I, seen[string(ev.Req)])
			}
			seen[string(ev.Req)]++
			continue
		}
		if n := seen[string(m.ID)]; n != notes {
			t.Fatalf("request %s answered after %d of its %d notifications", m.ID, n, notes)
		}
	}
	if err := p.wait(); err != nil {
		t.Fatalf("Serve = %v; want nil", err)
	}
}

// TestEOF_Drain pins handling rule 6: at EOF, Serve waits for the requests in flight and writes
// their replies before returning nil.
func TestEOF_Drain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		p := serve(t, waitHandler(release), Options{})
		p.send(`{"jsonrpc":"2.0","id":1,"method":"wait"}`)
		p.send(`{"jsonrpc":"2.0","id":2,"method":"wait"}`)
		p.in.Close()
		synctest.Wait() // everything is blocked: the handlers on release, Serve on them
		select {
		case err := <-p.done:
			t.Fatalf("Serve returned %v with requests in flight", err)
		default:
		}
		close(release)
		got := map[string]string{}
		for range 2 {
			m := p.recvMsg()
			got[string(m.ID)] = string(m.Result)
		}
		if got["1"] != `"released"` || got["2"] != `"released"` {
			t.Errorf("replies after EOF = %v; want both released", got)
		}
		if err := <-p.done; err != nil {
			t.Errorf("Serve = %v; want nil", err)
		}
	})
}

// TestShutdown pins Conn.Shutdown: the request calling it and those in flight are answered,
// nothing after it is read, and Serve returns nil without input reaching EOF.
func TestShutdown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		wait := waitHandler(release)
		p := serve(t, func(ctx context.Context, c *Conn, req *Request) (any, error) {
			if req.Method == "shutdown" {
				c.Shutdown()
				return nil, nil
			}
			return wait(ctx, c, req)
		}, Options{Inline: func(m string) bool { return m == "shutdown" }})
		p.send(`{"jsonrpc":"2.0","id":1,"method":"wait"}`)
		p.send(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`)
		if m := p.recvMsg(); string(m.ID) != "2" || string(m.Result) != "null" {
			t.Fatalf("shutdown reply = %s; want null", m.line)
		}
		synctest.Wait()
		select {
		case err := <-p.done:
			t.Fatalf("Serve returned %v with a request in flight", err)
		default:
		}
		close(release)
		if m := p.recvMsg(); string(m.ID) != "1" {
			t.Fatalf("got %s; want the in-flight reply", m.line)
		}
		if err := <-p.done; err != nil {
			t.Errorf("Serve = %v; want nil", err)
		}
		p.in.Close()
		if line, ok := <-p.lines; ok {
			t.Errorf("output after shutdown: %s", line)
		}
	})
}

// TestServe_CtxDone pins that Serve's ctx ending cancels handlers and returns ctx.Err().
func TestServe_CtxDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()
	defer inW.Close()
	started := make(chan struct{})
	stopped := make(chan error, 1)
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, inR, io.Discard, HandlerFunc(func(ctx context.Context, c *Conn, req *Request) (any, error) {
			close(started)
			<-ctx.Done()
			stopped <- ctx.Err()
			return nil, ctx.Err()
		}), Options{})
	}()
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":1,"method":"wait"}`)
	<-started
	cancel()
	if err := <-done; err != context.Canceled {
		t.Errorf("Serve = %v; want context.Canceled", err)
	}
	if err := <-stopped; err == nil {
		t.Error("handler ctx not cancelled")
	}
}

// failWriter fails every write, like a pipe whose reader is gone.
type failWriter struct{ calls int }

func (w *failWriter) Write([]byte) (int, error) { w.calls++; return 0, io.ErrClosedPipe }

// TestWriteError pins handling rule 6: a failed write ends Serve with nil, logs nothing, and
// nothing more is written.
func TestWriteError(t *testing.T) {
	inR, inW := io.Pipe()
	defer inW.Close()
	var logs logBuffer
	w := &failWriter{}
	done := make(chan error, 1)
	go func() {
		done <- Serve(context.Background(), inR, w, HandlerFunc(testHandler), Options{Logf: logs.logf})
	}()
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":1,"method":"echo"}`)
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve = %v; want nil", err)
		}
	case <-time.After(failsafe):
		t.Fatal("Serve did not return after a write error")
	}
	if logs.String() != "" {
		t.Errorf("log after a broken pipe = %q; want nothing", logs.String())
	}
	if w.calls != 1 {
		t.Errorf("%d writes; want 1", w.calls)
	}
}

// errReader returns some data, then a read error.
type errReader struct{ data io.Reader }

func (r *errReader) Read(b []byte) (int, error) {
	n, err := r.data.Read(b)
	if err == io.EOF {
		err = errors.New("device gone")
	}
	return n, err
}

// TestReadError pins that a read error ends input like EOF (requests are answered) and that
// Serve then returns it.
func TestReadError(t *testing.T) {
	var out strings.Builder
	in := &errReader{strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"echo"}`)}
	err := Serve(context.Background(), in, &out, HandlerFunc(testHandler), Options{})
	if err == nil || !strings.Contains(err.Error(), "rpc: reading input: device gone") {
		t.Errorf("Serve = %v; want the read error", err)
	}
	if want := "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":null}\n"; out.String() != want {
		t.Errorf("output = %q; want %q (a last line without newline is served)", out.String(), want)
	}
}

// TestIDs_Concurrent pins the id rules with requests running concurrently (the transcripts run
// inline): every reply carries its request's id byte for byte.
func TestIDs_Concurrent(t *testing.T) {
	ids := []string{`"x"`, `""`, `"\u0041\n"`, `-1`, `0`, `9007199254740993`, `18446744073709551615`,
		`18446744073709551616`, `-123456789012345678901234567890`, `123456789012345678901234567890`}
	var mu sync.Mutex
	p := serve(t, func(ctx context.Context, c *Conn, req *Request) (any, error) {
		mu.Lock()
		defer mu.Unlock()
		return req.ID, nil
	}, Options{})
	for _, id := range ids {
		p.send(`{"jsonrpc":"2.0","id":%s,"method":"id"}`, id)
	}
	got := map[string]bool{}
	for range ids {
		m := p.recvMsg()
		if string(m.ID) != string(m.Result) {
			t.Errorf("reply %s: id differs from the request's", m.line)
		}
		if !strings.Contains(m.line, `"id":`+string(m.Result)+`,`) {
			t.Errorf("reply %s: id not echoed byte for byte", m.line)
		}
		got[string(m.ID)] = true
	}
	for _, id := range ids {
		if !got[id] {
			t.Errorf("no reply to id %s", id)
		}
	}
	if err := p.wait(); err != nil {
		t.Fatalf("Serve = %v; want nil", err)
	}
}

// TestMaxConcurrent pins Options.MaxConcurrent: a handler waiting in Call lends its slot (so the
// next request starts), beyond the bound a request waits for a slot without blocking the read
// loop (an inline ping and a Call's reply still get through), a request cancelled while waiting
// is answered -32800 without running, and a handler whose Call was answered takes a slot again
// before it goes on.
func TestMaxConcurrent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var mu sync.Mutex
		started := map[string]bool{}
		isStarted := func(id string) bool {
			mu.Lock()
			defer mu.Unlock()
			return started[id]
		}
		p := serve(t, func(ctx context.Context, c *Conn, req *Request) (any, error) {
			mu.Lock()
			started[string(req.ID)] = true
			mu.Unlock()
			switch req.Method {
			case "ask":
				return askHandler(ctx, c, req)
			case "wait":
				return waitHandler(release)(ctx, c, req)
			}
			return "pong", nil
		}, Options{MaxConcurrent: 1, Inline: func(m string) bool { return m == "ping" }})
		p.send(`{"jsonrpc":"2.0","id":"ask","method":"ask"}`)
		call := p.recvMsg() // ask waits for its Call, lending the only slot
		p.send(`{"jsonrpc":"2.0","id":1,"method":"wait"}`)
		synctest.Wait()
		if !isStarted("1") {
			t.Fatal("request 1 did not start in the slot lent by the handler waiting in Call")
		}
		p.send(`{"jsonrpc":"2.0","id":2,"method":"wait"}`)
		p.send(`{"jsonrpc":"2.0","id":"ping","method":"ping"}`)
		if m := p.recvMsg(); string(m.ID) != `"ping"` {
			t.Fatalf("got %s; want the inline ping's reply while the slot is taken", m.line)
		}
		synctest.Wait()
		if isStarted("2") {
			t.Error("request 2 started beyond MaxConcurrent")
		}
		p.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"id":2}}`)
		if m := p.recvMsg(); string(m.ID) != "2" || m.code() != CodeRequestCancelled {
			t.Errorf("got %s; want -32800 for the request waiting for a slot", m.line)
		}
		if isStarted("2") {
			t.Error("the request cancelled while waiting ran")
		}
		p.send(`{"jsonrpc":"2.0","id":%s,"result":"yes"}`, call.ID) // read although the slot is taken
		synctest.Wait()
		select {
		case line := <-p.lines:
			t.Fatalf("got %s while request 1 holds the slot; want ask to wait for it", line)
		default:
		}
		close(release)
		if m := p.recvMsg(); string(m.ID) != "1" || string(m.Result) != `"released"` {
			t.Errorf("got %s; want request 1 released", m.line)
		}
		if m := p.recvMsg(); string(m.ID) != `"ask"` {
			t.Errorf("got %s; want the ask reply once it had a slot again", m.line)
		}
		if err := p.wait(); err != nil {
			t.Errorf("Serve = %v; want nil", err)
		}
	})
}

// TestCancelParamsAreStrict: $/cancel_request's params are exactly {"id": <id>}. encoding/json
// would take {"ID": 1} or {"Id": 1} for the id and drop {"id": 1, "reason": …}'s extra member;
// here each is refused, naming the member, and cancels nothing: as a request it is answered
// -32602, as a notification it is logged and the request runs on.
func TestCancelParamsAreStrict(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	var logged []string
	p := serve(t, waitHandler(release), Options{Logf: func(f string, a ...any) {
		mu.Lock()
		logged = append(logged, fmt.Sprintf(f, a...))
		mu.Unlock()
	}})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"wait"}`)
	for params, want := range map[string]string{
		`{"ID":1}`:                 "unknown member `ID`; did you mean `id`?",
		`{"Id":1}`:                 "unknown member `Id`; did you mean `id`?",
		`{"id":1,"reason":"user"}`: "unknown member `reason`; the only member is `id`",
		`{"id":1,"id":2}`:          "member `id` is given twice",
		`{}`:                       "missing member `id`",
		`[1]`:                      "params must be an object",
		`{"id":1.5}`:               "`id`: expected a string or an integer",
	} {
		p.send(`{"jsonrpc":"2.0","id":"k","method":"$/cancel_request","params":%s}`, params)
		m := p.recvMsg()
		if string(m.ID) != `"k"` || m.code() != CodeInvalidParams || !strings.Contains(m.Error.Message, want) {
			t.Errorf("cancel with params %s: reply %s; want -32602 containing %q", params, m.line, want)
		}
		p.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":%s}`, params)
	}
	p.send(`{"jsonrpc":"2.0","id":"ping","method":"ping"}`) // the cancels above were processed before this
	if m := p.recvMsg(); string(m.ID) != `"ping"` {
		t.Fatalf("got %s; want the ping's reply (request 1 must not be cancelled)", m.line)
	}
	p.send(`{"jsonrpc":"2.0","id":"k","method":"$/cancel_request","params":{"id":1}}`)
	got := map[string]bool{}
	for range 2 {
		m := p.recvMsg()
		got[string(m.ID)] = true
		switch string(m.ID) {
		case "1":
			if m.code() != CodeRequestCancelled {
				t.Errorf("request 1: reply %s; want -32800 once a well-formed cancel came", m.line)
			}
		case `"k"`:
			if string(m.Result) != "null" {
				t.Errorf("well-formed cancel request: reply %s; want null", m.line)
			}
		}
	}
	close(release)
	if err := p.wait(); err != nil {
		t.Fatalf("Serve = %v; want nil", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if n := len(logged); n < 7 {
		t.Errorf("%d refused cancel notifications logged, want 7: %q", n, logged)
	}
}
