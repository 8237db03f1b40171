//go:build !(linux && (amd64 || arm64))

package engine

import (
	"io/fs"
	"os"
	"syscall"
)

// dirHandle is a directory being walked, through an os.Root confined to it (the Linux version
// works on a bare descriptor instead; see walk_fd_linux.go).
type dirHandle struct {
	root *os.Root
}

// openDirHandle opens the root-relative directory rel and checks that it is want.
func openDirHandle(e *Engine, rel string, want fs.FileInfo) (dirHandle, error) {
	sub, err := e.root.OpenRoot(rel)
	if err != nil {
		return dirHandle{}, err
	}
	if want != nil {
		if fi, err := sub.Stat("."); err != nil || !os.SameFile(fi, want) {
			sub.Close()
			return dirHandle{}, errDirSwapped
		}
	}
	return dirHandle{root: sub}, nil
}

func (h dirHandle) close() { h.root.Close() }

func (h dirHandle) child(name string) (dirHandle, error) {
	sub, err := h.root.OpenRoot(name)
	if err != nil {
		return dirHandle{}, err
	}
	return dirHandle{root: sub}, nil
}

// readlink returns the target of the symlink name below h.
func (h dirHandle) readlink(name string) (string, error) { return h.root.Readlink(name) }

// mkdir creates the directory name below h; the os.Root keeps it inside the root.
func (h dirHandle) mkdir(name string) error { return h.root.Mkdir(name, 0o777) }

func (h dirHandle) list() ([]fs.DirEntry, error) {
	f, err := h.root.OpenFile(".", os.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

func (h dirHandle) lstat(name string) (fs.FileInfo, error) { return h.root.Lstat(name) }

// openEntry opens the regular file name for reading without blocking and checks on the
// descriptor that it is a regular file; with sameAsListed also that it is the very file an Lstat
// saw, since os.Root would follow a symlink swapped in meanwhile.
func (h dirHandle) openEntry(name string, sameAsListed bool) (entryFile, int64, bool) {
	var before fs.FileInfo
	if sameAsListed {
		fi, err := h.root.Lstat(name)
		if err != nil || !fi.Mode().IsRegular() {
			return nil, 0, false
		}
		before = fi
	}
	f, err := h.root.OpenFile(name, openFlagsRead, 0)
	if err != nil {
		return nil, 0, false
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || before != nil && !os.SameFile(fi, before) {
		f.Close()
		return nil, 0, false
	}
	return f, fi.Size(), true
}

// openResolved opens the regular file at the resolved root-relative path rel for reading and
// checks that it is want (see the Linux version).
func openResolved(e *Engine, rel string, want fs.FileInfo) (entryFile, int64, bool) {
	f, fi, err := e.openRegular("", &resolved{spelling: rel, lexical: rel, rel: rel, exists: true, info: want})
	if err != nil {
		return nil, 0, false
	}
	return f, fi.Size(), true
}

// statResolved reports whether rel is still want (see the Linux version; here os.Root's Lstat is
// all there is, so this only catches a replaced final component).
func statResolved(e *Engine, rel string, want fs.FileInfo) bool {
	fi, err := e.root.Lstat(rel)
	return err == nil && os.SameFile(fi, want)
}

// componentStepsCounted reports that this walk's os.Root opens are not counted in componentSteps.
const componentStepsCounted = false
