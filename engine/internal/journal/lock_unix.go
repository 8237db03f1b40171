//go:build unix

package journal

import "syscall"

// lockSession takes the journal directory's exclusive flock for the session: a second session
// (another fsbox process, or another session of this one) on the same directory is refused with
// ErrBusy rather than interleaving its entries. The lock goes with the descriptor, so a killed
// process never leaves it behind.
func (j *Journal) lockSession() error {
	if err := syscall.Flock(int(j.dirF.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return ErrBusy
	}
	return nil
}
