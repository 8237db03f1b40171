package audit

import "golang.org/x/sys/unix"

// syncData makes the written lines durable: fdatasync (the data and the size, not timestamps).
// A FIFO or socket has nothing to sync (EINVAL), which is not a failure.
func syncData(fd int) error {
	if err := unix.Fdatasync(fd); err != nil && err != unix.EINVAL {
		return err
	}
	return nil
}

// dirOpen is how directories are opened: O_PATH, which reads nothing (and which Landlock does not
// check), yet serves as the base of openat, renameat and fstatat.
const dirOpen = unix.O_PATH
