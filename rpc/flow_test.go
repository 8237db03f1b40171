package rpc

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestBackpressure_StalledReader attacks with a client that sends many requests with large
// replies and reads nothing: the server must stop reading (the client's writes block) with a
// bounded number of handlers started, and once the client reads again every request is answered
// exactly once. Without backpressure the server reads every request and starts every handler,
// each holding its reply.
func TestBackpressure_StalledReader(t *testing.T) {
	const (
		n          = 2000
		replyBytes = 64 << 10
		maxConc    = 2
		maxQueued  = 4
		maxOut     = 256 << 10
	)
	// Started handlers beyond the ones holding slots have replied: their replies are queued
	// (at most maxOut/replyBytes of them, plus one over), or are being written (one).
	const bound = maxConc + maxOut/replyBytes + 2
	var started atomic.Int64
	reply := strings.Repeat("r", replyBytes)
	h := HandlerFunc(func(ctx context.Context, c *Conn, req *Request) (any, error) {
		started.Add(1)
		return reply, nil
	})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Serve(context.Background(), inR, outW, h, Options{MaxConcurrent: maxConc, MaxQueued: maxQueued, MaxOutputBytes: maxOut, Logf: t.Logf})
		outW.Close()
	}()
	var sent atomic.Int64
	go func() {
		for i := range n {
			if _, err := fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":"big"}`+"\n", i); err != nil {
				return
			}
			sent.Add(1)
		}
		inW.Close()
	}()
	t.Cleanup(func() { inW.Close(); inR.Close(); outR.Close() })

	// What is asserted is the bound on handlers started and that the sender is held up.
	untilSettled(t, func() int64 {
		s := started.Load()
		if s > bound {
			t.Fatalf("%d handlers started while the client read nothing; want at most %d", s, bound)
		}
		if sent.Load() == n {
			t.Fatalf("the server read all %d requests while the client read nothing; want it to stop reading", n)
		}
		return s + sent.Load()<<20
	})
	t.Logf("stalled after %d requests sent, %d handlers started", sent.Load(), started.Load())

	seen := make(map[int]int, n)
	sc := bufio.NewScanner(outR)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m struct {
			ID     int    `json:"id"`
			Result string `json:"result"`
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil || len(m.Result) != replyBytes {
			t.Fatalf("unexpected line %.100s: %v", sc.Text(), err)
		}
		seen[m.ID]++
	}
	if err := <-done; err != nil {
		t.Fatalf("Serve = %v", err)
	}
	for i := range n {
		if seen[i] != 1 {
			t.Errorf("request %d answered %d times; want once", i, seen[i])
		}
	}
}

// TestBackpressure_CallsNeverDeadlock pins the rule that keeps backpressure from deadlocking
// with server→client calls: a handler waiting in Call lends its slot. With 2 slots and a queue
// of 1, ten requests that each ask the client all get to ask before any reply is sent, so the
// replies, which the client writes after all ten requests, are read and every request is answered.
// Were slots held while waiting, the read loop would stop at the fourth request, before the replies.
func TestBackpressure_CallsNeverDeadlock(t *testing.T) {
	const n = 10
	p := serve(t, askHandler, Options{MaxConcurrent: 2, MaxQueued: 1})
	for i := range n {
		p.send(`{"jsonrpc":"2.0","id":%d,"method":"ask"}`, i)
	}
	var calls []wireMsg
	for range n {
		m := p.recvMsg()
		if m.Method != "ask" {
			t.Fatalf("got %s; want a call", m.line)
		}
		calls = append(calls, m)
	}
	for _, c := range calls {
		p.send(`{"jsonrpc":"2.0","id":%s,"result":"yes"}`, c.ID)
	}
	seen := map[string]bool{}
	for range n {
		m := p.recvMsg()
		if m.code() != 0 || seen[string(m.ID)] {
			t.Fatalf("got %s; want each request answered once", m.line)
		}
		seen[string(m.ID)] = true
	}
	if err := p.wait(); err != nil {
		t.Errorf("Serve = %v; want nil", err)
	}
}

// TestBackpressure_CloseWhileStalled pins that a connection whose peer reads nothing still
// closes: Close wakes every writer waiting for room, so handlers return and Serve returns,
// although the one goroutine blocked in w.Write stays there.
func TestBackpressure_CloseWhileStalled(t *testing.T) {
	var started atomic.Int64
	h := HandlerFunc(func(ctx context.Context, c *Conn, req *Request) (any, error) {
		started.Add(1)
		return strings.Repeat("x", 1<<10), nil
	})
	inR, inW := io.Pipe()
	_, outW := io.Pipe() // never read
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, inR, outW, h, Options{MaxConcurrent: 2, MaxQueued: 2, MaxOutputBytes: 4 << 10, Logf: t.Logf})
	}()
	go func() {
		for i := 0; ; i++ {
			if _, err := fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":"x"}`+"\n", i); err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { inW.Close(); inR.Close() })
	for started.Load() < 4 { // output queue full, handlers waiting to write
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if err != context.Canceled {
			t.Errorf("Serve = %v; want context.Canceled", err)
		}
	case <-time.After(failsafe):
		t.Fatal("Serve did not return after ctx was cancelled while the peer read nothing")
	}
}

// TestBackpressure_StalledReaderOwnOutput is the same attack with output the handlers do not
// return: lines the read loop answers itself (not JSON, answered -32700 with a parse error) and
// notifications a handler sends before its reply. A client that reads nothing must still stop
// the server reading: the sender is held up, long before everything was sent.
func TestBackpressure_StalledReaderOwnOutput(t *testing.T) {
	const n = 20000
	note := strings.Repeat("e", 4<<10)
	h := HandlerFunc(func(ctx context.Context, c *Conn, req *Request) (any, error) {
		for range 4 {
			if err := c.Notify(ctx, "event", map[string]string{"pad": note}); err != nil {
				return nil, err
			}
		}
		return "ok", nil
	})
	for _, shape := range []string{"parse-errors", "notifications"} {
		t.Run(shape, func(t *testing.T) {
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			go func() {
				Serve(context.Background(), inR, outW, h, Options{MaxConcurrent: 2, MaxQueued: 4, MaxOutputBytes: 64 << 10, HoldNotifications: true, Logf: func(string, ...any) {}})
				outW.Close()
			}()
			var sent atomic.Int64
			go func() {
				pad := strings.Repeat("x", 1<<10)
				for i := range n {
					line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"m"}`+"\n", i)
					if shape == "parse-errors" {
						line = "{not json " + pad + "\n"
					}
					if _, err := io.WriteString(inW, line); err != nil {
						return
					}
					sent.Add(1)
				}
			}()
			t.Cleanup(func() { inW.Close(); inR.Close(); outR.Close() })
			untilSettled(t, func() int64 {
				if sent.Load() == n {
					t.Fatalf("the server read all %d lines while the client read nothing; want it to stop reading", n)
				}
				return sent.Load()
			})
			t.Logf("%s: stalled after %d lines sent", shape, sent.Load())
		})
	}
}

// untilSettled calls observe every 20 ms until what it returns stopped moving (15 observations in
// a row), failing the test after failsafe. The waiting only paces the observation: observe
// asserts.
func untilSettled(t *testing.T, observe func() int64) {
	t.Helper()
	last, quiet := int64(-1), 0
	for deadline := time.Now().Add(failsafe); quiet < 15; {
		if time.Now().After(deadline) {
			t.Fatal("the connection never settled")
		}
		time.Sleep(20 * time.Millisecond)
		if now := observe(); now == last {
			quiet++
		} else {
			last, quiet = now, 0
		}
	}
}
