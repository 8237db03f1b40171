package fserr

import (
	"errors"
	"io/fs"
	"syscall"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// TestOSErrorMapping pins the kind, the message and retry-or-fatal of each errno FromOS maps,
// and that errors.Is compares kinds.
func TestOSErrorMapping(t *testing.T) {
	cases := []struct {
		err   error
		kind  schema.ErrorKind
		msg   string
		fatal bool
	}{
		{&fs.PathError{Op: "openat", Path: "/secret/host/path", Err: syscall.EACCES}, "permission_denied", "[Errno 13] Permission denied: 'hello.txt'", false},
		{syscall.EPERM, "permission_denied", "[Errno 1] Operation not permitted: 'hello.txt'", false},
		{syscall.ENOTDIR, "parent_not_directory", "[Errno 20] Not a directory: 'hello.txt'", false},
		{syscall.EISDIR, "not_a_file", "[Errno 21] Is a directory: 'hello.txt'", false},
		{syscall.EEXIST, "already_exists", "[Errno 17] File exists: 'hello.txt'", false},
		{syscall.ENOTEMPTY, "directory_not_empty", "", false},
		{syscall.ENODEV, "not_regular_file", "", false},
		{syscall.EINVAL, "invalid_path", "[Errno 22] Invalid argument: 'hello.txt'", false},
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
		e := FromOS("write_file", "hello.txt", "hello.txt", c.err)
		if e.Kind != c.kind || c.msg != "" && e.Msg != c.msg || e.Retry() == c.fatal {
			t.Errorf("FromOS(%v) = %s %q retry=%v; want %s %q fatal=%v", c.err, e.Kind, e.Msg, e.Retry(), c.kind, c.msg, c.fatal)
		}
		if e.Error() != "write_file hello.txt: "+e.Msg {
			t.Errorf("Error() = %q", e.Error())
		}
	}
	if !errors.Is(FromOS("x", "", "n", syscall.EROFS), &Error{Kind: "read_only_filesystem"}) {
		t.Errorf("errors.Is does not compare kinds")
	}
}

func TestPyRepr(t *testing.T) {
	cases := map[string]string{
		"a":           `'a'`,
		"it's":        `"it's"`,
		`it's "x"`:    `'it\'s "x"'`,
		"tab\there":   `'tab\there'`,
		"nl\n":        `'nl\n'`,
		"\x00\x7f":    `'\x00\x7f'`,
		"back\\slash": `'back\\slash'`,
		"é\u200b":     `'é\u200b'`,
		"\xff":        `'\udcff'`,
		"\U0001F600":  "'\U0001F600'",
	}
	for in, want := range cases {
		if got := PyRepr(in); got != want {
			t.Errorf("PyRepr(%q) = %s; want %s", in, got, want)
		}
	}
}
