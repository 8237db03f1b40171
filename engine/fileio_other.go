//go:build !unix

package engine

import (
	"io/fs"
	"os"
	"syscall"
)

// openFlagsRead opens for reading. Outside unix there is no O_NOFOLLOW or O_DIRECTORY: os.Root
// still refuses to leave the root, and the identity checks of openRegular (same file
// as resolved, right type) are the only guard against a component swapped for an in-root link.
const openFlagsRead = os.O_RDONLY | syscall.O_CLOEXEC

// sameInode defers to os.SameFile outside unix (ok is false).
func sameInode(a, b fs.FileInfo) (same, ok bool) { return false, false }
