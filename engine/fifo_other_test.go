//go:build !unix

package engine

import "errors"

// mkfifo has no FIFOs to make on this platform; the tests that need one fail their fixture setup
// here, and the FIFO tests are unix-only files.
func mkfifo(path string) error { return errors.ErrUnsupported }
