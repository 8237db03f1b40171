package server_test

import (
	"context"
	"io"
	"testing"

	"github.com/fsbox/fsbox/conformance"
	"github.com/fsbox/fsbox/server"
)

// TestConformance runs the whole conformance suite against the server in-process: every vector
// must pass or be listed, with a reason, in conformance/baselines/inproc.txt.
func TestConformance(t *testing.T) {
	dial := conformance.PipeDialer(func(ctx context.Context, r io.Reader, w io.Writer) error {
		return server.New(server.Options{Version: "test"}).Serve(ctx, r, w)
	})
	conformance.RunTest(t, conformance.DialTarget("inproc", dial), "inproc")
}
