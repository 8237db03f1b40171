//go:build unix

package conformance

import "syscall"

// mkfifo makes the named pipe of a fixture entry with "fifo": true.
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }
