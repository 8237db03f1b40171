package engine

import (
	"context"
	"errors"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

func TestCall_CancelledContextAndUnknownTool(t *testing.T) {
	fx := makeFixture(t, "hello.txt: x\n")
	e := fx.engine(schema.Config{Tools: []string{"read_file"}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := e.Call(ctx, "read_file", []byte(`{"path":"hello.txt"}`), Hooks{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call = %v; want context.Canceled", err)
	}
	for _, name := range []string{"write_file", "grep", "nope"} {
		_, err := e.Call(context.Background(), name, []byte(`{}`), Hooks{})
		var ee *Error
		if !errors.As(err, &ee) || ee.Kind != "unknown_tool" {
			t.Errorf("Call(%s) = %v; want unknown_tool", name, err)
		}
	}
	for _, raw := range []string{`[]`, `"x"`, `{"path":"hello.txt"} {}`, `{"PATH":"hello.txt"}`, `{"path":1}`} {
		_, err := e.Call(context.Background(), "read_file", []byte(raw), Hooks{})
		var ee *Error
		if !errors.As(err, &ee) || ee.Kind != "invalid_arguments" {
			t.Errorf("Call(read_file, %s) = %v; want invalid_arguments", raw, err)
		}
	}
	if _, err := e.Call(context.Background(), "read_file", nil, Hooks{}); err == nil {
		t.Errorf("read_file without arguments succeeded")
	}
}
