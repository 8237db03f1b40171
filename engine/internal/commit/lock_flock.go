//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package commit

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// lockExclusive takes flock(LOCK_EX) on f. Uncontended it is one non-blocking call; contended,
// a goroutine waits in a blocking flock so the caller can give up when ctx ends: f then belongs
// to that goroutine, which closes it (releasing the lock) once its flock returns. held is false,
// with no error, when the file system cannot lock.
func lockExclusive(ctx context.Context, f *os.File) (held bool, err error) {
	err = flockFile(f, syscall.LOCK_EX|syscall.LOCK_NB)
	switch {
	case err == nil:
		return true, nil
	case lockUnsupported(err):
		return false, nil
	case !errors.Is(err, syscall.EWOULDBLOCK):
		return false, err
	}
	Hook("lock-wait")
	done := make(chan error, 1)
	go func() { done <- flockFile(f, syscall.LOCK_EX) }()
	select {
	case err := <-done:
		if err != nil {
			return false, err
		}
		return true, nil
	case <-ctx.Done():
		go func() {
			<-done
			f.Close()
		}()
		return false, ctx.Err()
	}
}

// flockFile runs flock(2) on f's descriptor, retrying on EINTR.
func flockFile(f *os.File, how int) error {
	return WithFd(f, func(fd int) error {
		for {
			if err := syscall.Flock(fd, how); err != syscall.EINTR {
				return err
			}
		}
	})
}

// lockUnsupported reports a flock error that means the file system cannot lock (NFS refuses
// exclusive locks on a directory with EBADF, others say ENOLCK or EOPNOTSUPP).
func lockUnsupported(err error) bool {
	for _, errno := range []syscall.Errno{syscall.EOPNOTSUPP, syscall.ENOTSUP, syscall.ENOLCK, syscall.EINVAL, syscall.EBADF} {
		if errors.Is(err, errno) {
			return true
		}
	}
	return false
}

// fileKey identifies the file fi describes (device and inode).
func fileKey(fi fs.FileInfo) (fileID, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)}, true
}

// ownedByUs reports whether fi's file belongs to this process's effective user: the only files
// a sweep may remove, since only those this process could have created.
func ownedByUs(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}

// processAlive reports whether a process pid exists in this pid namespace (kill(pid, 0) is not
// ESRCH; EPERM means it exists under another user).
func processAlive(pid int) bool {
	return syscall.Kill(pid, 0) != syscall.ESRCH
}
