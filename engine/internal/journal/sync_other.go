//go:build !linux

package journal

import "os"

// datasync makes f's content durable; without fdatasync, a full fsync.
func datasync(f *os.File) error { return f.Sync() }
