//go:build !(linux && (amd64 || arm64))

package engine

import (
	"errors"
	"io/fs"
	"syscall"
)

// unlink removes the entry name of h through its os.Root, which removes a symlink itself rather
// than its target; dir requires name to be a directory (os.Root.Remove refuses a non-empty one).
func (h dirHandle) unlink(name string, dir bool) error {
	if err := h.mnt.changeErr(name); err != nil {
		return err
	}
	fi, err := h.root.Lstat(name)
	if err != nil {
		return err
	}
	if fi.IsDir() != dir {
		return &fs.PathError{Op: "remove", Path: name, Err: errors.New("file type changed")}
	}
	return h.root.Remove(name)
}

// renameAt renames from's oldname to to's newname. os.Root has no rename across two roots, so
// this portable version renames through the names' own root when both handles are the same
// directory and otherwise refuses (move_file across directories needs the Linux descriptor path).
func renameAt(from dirHandle, oldname string, to dirHandle, newname string) error {
	if err := renameGuard(from, oldname, to, newname); err != nil {
		return err
	}
	a, err1 := from.root.Stat(".")
	b, err2 := to.root.Stat(".")
	if err1 != nil || err2 != nil || !sameFile(a, b) {
		return errCrossDirRename
	}
	return from.root.Rename(oldname, newname)
}

// stat returns the FileInfo of the open directory itself.
func (h dirHandle) stat() (fs.FileInfo, error) { return h.root.Stat(".") }

// sameEntry is sameFile: dirHandle's FileInfos come from os.Root here.
func sameEntry(a, b fs.FileInfo) bool { return sameFile(a, b) }

// renameNoReplace has no atomic no-replace rename here: the caller's check that newname is
// absent is all there is (EINVAL sends it to renameAt).
func renameNoReplace(from dirHandle, oldname string, to dirHandle, newname string) error {
	return syscall.EINVAL
}
