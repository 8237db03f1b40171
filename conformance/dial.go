package conformance

import (
	"context"
	"io"
	"testing"
	"time"
)

// ServeFunc serves one protocol session on r and w until EOF, like server.(*Server).Serve.
type ServeFunc func(ctx context.Context, r io.Reader, w io.Writer) error

// PipeDialer turns a ServeFunc into a DialFunc: every dial runs one fresh session on in-memory
// pipes. This is how the inproc target is built without this package importing the server.
func PipeDialer(serve ServeFunc) DialFunc {
	return func(ctx context.Context) (io.ReadWriteCloser, error) {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		sctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			err := serve(sctx, inR, outW)
			_ = inR.Close()
			_ = outW.CloseWithError(err)
		}()
		return &pipeConn{r: outR, w: inW, done: done, cancel: cancel}, nil
	}
}

type pipeConn struct {
	r      *io.PipeReader
	w      *io.PipeWriter
	done   chan struct{}
	cancel context.CancelFunc
}

func (c *pipeConn) Read(p []byte) (int, error)  { return c.r.Read(p) }
func (c *pipeConn) Write(p []byte) (int, error) { return c.w.Write(p) }

// Close sends EOF and waits for the session to end; a session stuck past 5s is cancelled.
func (c *pipeConn) Close() error {
	_ = c.w.Close()
	select {
	case <-c.done:
	case <-time.After(5 * time.Second):
		c.cancel()
		_ = c.r.Close()
	}
	return nil
}

// RunTest runs the whole suite against target inside a Go test, one subtest per vector, with
// the named embedded baseline ("" for none). Any Go implementation of the protocol can call it
// from its own tests, the way fstest.TestFS is used.
func RunTest(t *testing.T, target Target, baseline string) {
	t.Helper()
	o := Options{Target: target, TempDir: t.TempDir()}
	if baseline != "" {
		b, err := LoadBaseline(baseline)
		if err != nil {
			t.Fatal(err)
		}
		o.Baseline = b
	}
	s, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range s.Results {
		t.Run(r.ID, func(t *testing.T) {
			switch r.Status {
			case "fail":
				for _, f := range r.Failures {
					t.Error(f)
				}
				if r.Stderr != "" {
					t.Logf("stderr:\n%s", r.Stderr)
				}
			case "xpass":
				t.Errorf("listed in the %s baseline (%s) but passes: remove the entry", baseline, r.Reason)
			case "xfail":
				t.Skipf("known failure (baseline %s): %s", baseline, r.Reason)
			case "skip":
				t.Skip(r.Reason)
			}
		})
	}
	for _, e := range s.Stale {
		t.Errorf("baseline %s: entry %q matches no vector; remove it", baseline, e)
	}
	p, f, sk, k := s.Counts()
	t.Logf("%d passed, %d failed, %d skipped (%d known failures)", p, f, sk, k)
}
