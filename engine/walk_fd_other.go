//go:build !(linux && (amd64 || arm64))

package engine

import (
	"errors"
	"io/fs"
	"os"
	"syscall"

	"github.com/fsbox/fsbox/engine/internal/relpath"
)

// dirHandle is a directory being walked, through an os.Root confined to it (the Linux version
// works on a bare descriptor instead; see walk_fd_linux.go).
type dirHandle struct {
	root *os.Root
	mnt  mountPos // where it sits among the mounts (mount.go); zero without mounts
}

// openDirHandle opens the root-relative directory rel one component at a time (so mounts are
// entered like on Linux) and checks that it is want.
func openDirHandle(e *Engine, rel string, want fs.FileInfo) (dirHandle, error) {
	h, err := rootHandle(e.root, e.rootPos())
	if err != nil {
		return dirHandle{}, err
	}
	for _, name := range relpath.Split(rel) {
		next, err := h.child(name)
		h.close()
		if errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.ENOTDIR) {
			return dirHandle{}, errDirSwapped
		}
		if err != nil {
			return dirHandle{}, err
		}
		h = next
	}
	if want != nil {
		if fi, err := h.root.Stat("."); err != nil || !os.SameFile(fi, want) {
			h.close()
			return dirHandle{}, errDirSwapped
		}
	}
	return h, nil
}

// rootHandle is a handle on the directory of root (the engine's root or a mount's) at pos.
func rootHandle(root *os.Root, pos mountPos) (dirHandle, error) {
	sub, err := root.OpenRoot(".")
	if err != nil {
		return dirHandle{}, err
	}
	return dirHandle{root: sub, mnt: pos}, nil
}

func (h dirHandle) close() { h.root.Close() }

func (h dirHandle) child(name string) (dirHandle, error) {
	if m := h.mnt.mountAt(name); m != nil {
		return rootHandle(m.root, mountPos{ro: m.readOnly})
	}
	if fi, err := h.root.Lstat(name); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return dirHandle{}, syscall.ELOOP
	}
	sub, err := h.root.OpenRoot(name)
	if err != nil {
		return dirHandle{}, err
	}
	return dirHandle{root: sub, mnt: h.mnt.child(name)}, nil
}

// readlink returns the target of the symlink name below h.
func (h dirHandle) readlink(name string) (string, error) {
	if h.mnt.mountAt(name) != nil {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: syscall.EINVAL}
	}
	return h.root.Readlink(name)
}

// openSelf opens h's directory once more, as an *os.File of its own (to take fsbox's lock on).
func (h dirHandle) openSelf() (*os.File, error) { return h.root.Open(".") }

// mkdir creates the directory name below h; the os.Root keeps it inside the root.
func (h dirHandle) mkdir(name string) error {
	if h.mnt.mountAt(name) != nil {
		return &fs.PathError{Op: "mkdir", Path: name, Err: fs.ErrExist}
	}
	if h.mnt.ro {
		return &fs.PathError{Op: "mkdir", Path: name, Err: syscall.EROFS}
	}
	return h.root.Mkdir(name, 0o777)
}

func (h dirHandle) list() ([]fs.DirEntry, error) {
	f, err := h.root.OpenFile(".", os.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	return h.mnt.mountEntries(ents), err
}

func (h dirHandle) lstat(name string) (fs.FileInfo, error) {
	if m := h.mnt.mountAt(name); m != nil {
		return m.stat(name)
	}
	return h.root.Lstat(name)
}

// openEntry opens the regular file name for reading without blocking and checks on the
// descriptor that it is a regular file; with sameAsListed also that it is the very file an Lstat
// saw, since os.Root would follow a symlink swapped in meanwhile.
func (h dirHandle) openEntry(name string, sameAsListed bool) (entryFile, int64, bool) {
	if h.mnt.mountAt(name) != nil {
		return nil, 0, false // a directory
	}
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

// openFileAt opens the root-relative rel for reading through the os.Root that holds it.
func (e *Engine) openFileAt(rel string) (entryFile, fs.FileInfo, error) {
	root, sub, _ := e.rootFor(rel)
	f, err := root.OpenFile(sub, openFlagsRead, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// createTemp creates the new file name in dir through the os.Root.
func createTemp(dir *os.Root, dirFile *os.File, name string, perm fs.FileMode) (*os.File, error) {
	return dir.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_CLOEXEC, perm)
}

// sortTyped has no typed listing to sort here.
func sortTyped(ents []fs.DirEntry) bool { return false }

// openDirFile has no descriptor walk here: lockParent goes through openParent.
func openDirFile(e *Engine, rel string) (*os.File, bool) { return nil, false }

// confirmResolved is statResolved: os.Root's Lstat in walkComponents follows in-root symlinks.
func confirmResolved(e *Engine, rel string, want fs.FileInfo) bool { return statResolved(e, rel, want) }

// statResolved reports whether rel is still want (see the Linux version; here os.Root's Lstat is
// all there is, so this only catches a replaced final component).
func statResolved(e *Engine, rel string, want fs.FileInfo) bool {
	root, sub, _ := e.rootFor(rel)
	fi, err := root.Lstat(sub)
	return err == nil && os.SameFile(fi, want)
}

// componentStepsCounted reports that this walk's os.Root opens are not counted in componentSteps.
const componentStepsCounted = false
