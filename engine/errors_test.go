package engine

import (
	"context"
	"errors"
	"io/fs"
	"syscall"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

func TestOSErrorMapping(t *testing.T) {
	cases := []struct {
		err   error
		kind  schema.ErrorKind
		msg   string
		fatal bool
	}{
		{&fs.PathError{Op: "openat", Path: "/secret/host/path", Err: syscall.EACCES}, "permission_denied", "[Errno 13] Permission denied: 'hello.txt'", false},
		{syscall.ENOSPC, "no_space", "[Errno 28] No space left on device: 'hello.txt'", true},
		{syscall.EDQUOT, "no_space", "", true},
		{syscall.EROFS, "read_only_filesystem", "[Errno 30] Read-only file system: 'hello.txt'", true},
		{syscall.EIO, "io_error", "[Errno 5] Input/output error: 'hello.txt'", true},
		{syscall.ENAMETOOLONG, "name_too_long", "The path name is too long.", false},
		{syscall.ELOOP, "symlink_loop", "The path resolves through a symlink loop.", false},
		{syscall.EILSEQ, "invalid_path", "The path name contains a byte sequence the filesystem cannot represent.", false},
		{syscall.ENOENT, "not_found", "", false},
		{syscall.ENXIO, "not_regular_file", "", false},
		{errors.New("openat x: path escapes from parent"), "changed_during_request", "", false},
	}
	for _, c := range cases {
		e := osError("write_file", "hello.txt", "hello.txt", c.err)
		if e.Kind != c.kind || c.msg != "" && e.Msg != c.msg || e.Retry() == c.fatal {
			t.Errorf("osError(%v) = %s %q retry=%v; want %s %q fatal=%v", c.err, e.Kind, e.Msg, e.Retry(), c.kind, c.msg, c.fatal)
		}
		if e.Error() != "write_file hello.txt: "+e.Msg {
			t.Errorf("Error() = %q", e.Error())
		}
	}
	if !errors.Is(osError("x", "", "n", syscall.EROFS), &Error{Kind: "read_only_filesystem"}) {
		t.Errorf("errors.Is does not compare kinds")
	}
}

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
