package server_test

import (
	"context"
	"io"
	"os"
	"testing"

	"github.com/fsbox/fsbox/conformance"
	"github.com/fsbox/fsbox/schema"
	"github.com/fsbox/fsbox/server"
)

// TestConformance runs the whole conformance suite against the server in-process: every vector
// must pass or be listed, with a reason, in conformance/baselines/inproc.txt. Vectors with a
// host_config run on a server whose host fixed the policy to that file, as fsbox serve --config
// does.
func TestConformance(t *testing.T) {
	dial := conformance.PipeDialer(func(ctx context.Context, r io.Reader, w io.Writer) error {
		return server.New(server.Options{Version: "test"}).Serve(ctx, r, w)
	})
	withConfig := func(ctx context.Context, file string) (io.ReadWriteCloser, error) {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		var cfg schema.Config
		if err := schema.Decode(data, &cfg); err != nil {
			return nil, err
		}
		return conformance.PipeDialer(func(ctx context.Context, r io.Reader, w io.Writer) error {
			return server.New(server.Options{Version: "test", Config: cfg, FixedPolicy: true}).Serve(ctx, r, w)
		})(ctx)
	}
	conformance.RunTest(t, conformance.DialTargetWithConfig("inproc", dial, withConfig), "inproc")
}
