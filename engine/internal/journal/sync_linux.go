package journal

import (
	"os"
	"syscall"
)

// datasync makes f's content durable (fdatasync: the data and the size, not the times).
func datasync(f *os.File) error { return syscall.Fdatasync(int(f.Fd())) }
