//go:build unix

package engine

import (
	"io/fs"
	"os"
	"syscall"
)

// openFlagsRead opens for reading without ever blocking (a FIFO swapped in after the check opens
// at once and is refused by fstat) and without following a final symlink itself (os.Root follows
// in-root links, which the identity checks of openRegular catch).
const openFlagsRead = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOFOLLOW | syscall.O_CLOEXEC

// sameInode compares two FileInfos by device and inode when both carry a stat buffer (os's own
// and the descriptor walk's fstatat results do); ok is false otherwise.
func sameInode(a, b fs.FileInfo) (same, ok bool) {
	sa, okA := a.Sys().(*syscall.Stat_t)
	sb, okB := b.Sys().(*syscall.Stat_t)
	if !okA || !okB {
		return false, false
	}
	return sa.Dev == sb.Dev && sa.Ino == sb.Ino, true
}
