//go:build windows

package journal

import (
	"os"

	"golang.org/x/sys/windows"
)

// lockSession takes an exclusive lock on session.lock in the journal directory for the session
// (Windows cannot lock a directory handle): a second session on the same directory is refused
// with ErrBusy. The lock goes with the handle, so a killed process never leaves it behind.
func (j *Journal) lockSession() error {
	f, err := j.root.OpenFile("session.lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	ol := new(windows.Overlapped)
	if err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol); err != nil {
		f.Close()
		return ErrBusy
	}
	j.lockF = f
	return nil
}
