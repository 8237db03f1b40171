//go:build linux && (amd64 || arm64)

package engine

import (
	"io/fs"
	"runtime"
	"syscall"
	"unsafe"
)

// unlink removes the entry name of h without following it (unlinkat relative to the directory's
// descriptor); dir selects rmdir semantics (AT_REMOVEDIR), which refuse a non-empty directory.
func (h dirHandle) unlink(name string, dir bool) error {
	if err := h.mnt.changeErr(name); err != nil {
		return err
	}
	flags := 0
	if dir {
		flags = atRemoveDir
	}
	p, err := syscall.BytePtrFromString(name)
	if err != nil {
		return err
	}
	for {
		_, _, errno := syscall.Syscall(syscall.SYS_UNLINKAT, uintptr(h.fd), uintptr(unsafe.Pointer(p)), uintptr(flags))
		switch errno {
		case 0:
			return nil
		case syscall.EINTR:
			continue
		}
		return errno
	}
}

// atRemoveDir is AT_REMOVEDIR.
const atRemoveDir = 0x200

// renameAt renames from's entry oldname to to's entry newname (renameat on the two directory
// descriptors), so neither end is resolved by path again.
func renameAt(from dirHandle, oldname string, to dirHandle, newname string) error {
	if err := renameGuard(from, oldname, to, newname); err != nil {
		return err
	}
	for {
		err := syscall.Renameat(from.fd, oldname, to.fd, newname)
		if err != syscall.EINTR {
			return err
		}
	}
}

// stat returns the FileInfo of the open directory itself (fstat).
func (h dirHandle) stat() (fs.FileInfo, error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(h.fd, &st); err != nil {
		return nil, err
	}
	return &statInfo{name: ".", st: st}, nil
}

// sameEntry is sameFile for FileInfos that may come from a dirHandle (whose statInfo
// os.SameFile does not know): the same device, inode and type.
func sameEntry(a, b fs.FileInfo) bool {
	if a == nil || b == nil {
		return false
	}
	x, ok1 := a.Sys().(*syscall.Stat_t)
	y, ok2 := b.Sys().(*syscall.Stat_t)
	return ok1 && ok2 && x.Dev == y.Dev && x.Ino == y.Ino && a.Mode().Type() == b.Mode().Type()
}

// renameNoReplace is renameat2(RENAME_NOREPLACE): the kernel refuses (EEXIST) instead of
// replacing an entry that appeared at newname. A filesystem without the flag answers EINVAL.
func renameNoReplace(from dirHandle, oldname string, to dirHandle, newname string) error {
	if err := renameGuard(from, oldname, to, newname); err != nil {
		return err
	}
	nr := map[string]uintptr{"amd64": 316, "arm64": 276}[runtime.GOARCH]
	op, err := syscall.BytePtrFromString(oldname)
	if err != nil {
		return err
	}
	np, err := syscall.BytePtrFromString(newname)
	if err != nil {
		return err
	}
	const renameNoReplaceFlag = 1
	for {
		_, _, errno := syscall.Syscall6(nr, uintptr(from.fd), uintptr(unsafe.Pointer(op)), uintptr(to.fd), uintptr(unsafe.Pointer(np)), renameNoReplaceFlag, 0)
		switch errno {
		case 0:
			return nil
		case syscall.EINTR:
			continue
		}
		return errno
	}
}
