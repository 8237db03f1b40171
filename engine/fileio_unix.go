//go:build unix

package engine

import (
	"os"
	"syscall"
)

// openFlagsRead opens for reading without ever blocking (a FIFO swapped in after the check opens
// at once and is refused by fstat) and without following a final symlink itself (os.Root follows
// in-root links, which the identity checks of openRegular and openDir catch).
const openFlagsRead = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOFOLLOW | syscall.O_CLOEXEC

// openFlagsDir is openFlagsRead for a directory: the open fails on anything else.
const openFlagsDir = openFlagsRead | syscall.O_DIRECTORY
