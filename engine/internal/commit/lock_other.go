//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package commit

import (
	"context"
	"io/fs"
	"os"
)

// lockExclusive takes no cross-process lock where flock(2) is not available: changes are then
// serialised inside one process only (see [Lock]).
func lockExclusive(ctx context.Context, f *os.File) (held bool, err error) { return false, nil }

// fileKey, ownedByUs and processAlive are not needed without a lock: nothing is ever swept.
func fileKey(fs.FileInfo) (fileID, bool) { return fileID{}, false }
func ownedByUs(fs.FileInfo) bool         { return false }
func processAlive(int) bool              { return true }
