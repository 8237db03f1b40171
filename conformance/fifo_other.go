//go:build !unix

package conformance

import (
	"errors"
	"io/fs"
)

// mkfifo fails where the platform has no named pipes in the file system. Vectors with a FIFO
// fixture need the "fifo" capability, which such a platform does not declare, so they are skipped
// before this is reached.
func mkfifo(path string) error {
	return &fs.PathError{Op: "mkfifo", Path: path, Err: errors.ErrUnsupported}
}
