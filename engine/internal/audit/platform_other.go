//go:build unix && !linux

package audit

import "golang.org/x/sys/unix"

// syncData makes the written lines durable: fsync. A FIFO or socket has nothing to sync
// (EINVAL), which is not a failure.
func syncData(fd int) error {
	if err := unix.Fsync(fd); err != nil && err != unix.EINVAL {
		return err
	}
	return nil
}

// dirOpen is how directories are opened where O_PATH does not exist.
const dirOpen = unix.O_RDONLY
