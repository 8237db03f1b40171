//go:build unix

package commit

import "os"

// WithFd runs fn on f's descriptor while f holds a reference to it (SyscallConn.Control), so a
// concurrent Close cannot hand the number to another file meanwhile; it returns fn's error, or
// the error of reaching the descriptor.
func WithFd(f *os.File, fn func(fd int) error) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = fn(int(fd)) }); err != nil {
		return err
	}
	return ferr
}
