package rpc

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
)

// writeRecorder is an io.Writer that keeps each Write apart.
type writeRecorder struct {
	mu     sync.Mutex
	writes []string
	wrote  chan struct{}
}

func (w *writeRecorder) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.writes = append(w.writes, string(p))
	w.mu.Unlock()
	w.wrote <- struct{}{}
	return len(p), nil
}

// TestHoldNotifications pins what HoldNotifications changes: the handler's last notification
// goes out in the same Write as its reply, an earlier one goes first on its own, and a held one
// goes out before a Call that follows it. Order is as sent in every case; without the option
// each line is a Write of its own.
func TestHoldNotifications(t *testing.T) {
	for _, hold := range []bool{true, false} {
		h := HandlerFunc(func(ctx context.Context, c *Conn, req *Request) (any, error) {
			c.Notify(ctx, "event", map[string]int{"n": 1})
			c.Notify(ctx, "event", map[string]int{"n": 2})
			if req.Method == "ask" {
				var res string
				if err := c.Call(ctx, "ask", nil, &res); err != nil {
					return nil, err
				}
				c.Notify(ctx, "event", map[string]int{"n": 3})
			}
			return "done", nil
		})
		inR, inW := io.Pipe()
		w := &writeRecorder{wrote: make(chan struct{}, 100)}
		done := make(chan error, 1)
		go func() { done <- Serve(context.Background(), inR, w, h, Options{HoldNotifications: hold, Logf: t.Logf}) }()
		waitFor := func(s string) {
			for {
				w.mu.Lock()
				seen := strings.Contains(strings.Join(w.writes, ""), s)
				w.mu.Unlock()
				if seen {
					return
				}
				<-w.wrote
			}
		}
		// One request at a time, so that the writes of the two cannot interleave.
		io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"plain"}`+"\n")
		waitFor(`"id":1,"result"`)
		io.WriteString(inW, `{"jsonrpc":"2.0","id":2,"method":"ask"}`+"\n")
		waitFor(`"method":"ask"`) // the call is written before its reply can be sent
		io.WriteString(inW, `{"jsonrpc":"2.0","id":"srv-1","result":"yes"}`+"\n")
		inW.Close()
		if err := <-done; err != nil {
			t.Fatalf("Serve = %v", err)
		}
		ev := func(n string) string { return `{"jsonrpc":"2.0","method":"event","params":{"n":` + n + `}}` + "\n" }
		reply := func(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"result":"done"}` + "\n" }
		call := `{"jsonrpc":"2.0","id":"srv-1","method":"ask"}` + "\n"
		want := []string{ev("1"), ev("2") + reply("1"), ev("1"), ev("2"), call, ev("3") + reply("2")}
		if !hold {
			want = []string{ev("1"), ev("2"), reply("1"), ev("1"), ev("2"), call, ev("3"), reply("2")}
		}
		if got := w.writes; strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("hold=%v: writes\n%q\nwant\n%q", hold, got, want)
		}
	}
}
