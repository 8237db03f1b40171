//go:build unix

package audit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// Open opens the log as o says. For Path: the directory is opened (O_PATH) and kept; the file is
// opened beneath it O_WRONLY|O_APPEND|O_CREAT|O_NOFOLLOW|O_NONBLOCK|O_CLOEXEC, mode 0600, and
// must be a regular file with one link (a symlink at the name fails with ELOOP; a FIFO, device or
// a file with a second name is refused). For File: the descriptor must be a regular file with one
// link, a FIFO or a socket, and it must have been opened for appending when it is a regular file.
func Open(o Options) (*Writer, error) {
	switch {
	case (o.Path == "") == (o.File == nil):
		return nil, errors.New("audit: exactly one of a path and a descriptor")
	case o.MaxBytes < 0:
		return nil, fmt.Errorf("audit: the rotation size must not be negative, got %d", o.MaxBytes)
	case o.MaxBytes > 0 && o.File != nil:
		return nil, errors.New("a host-supplied descriptor cannot rotate: it has no name to rename")
	case o.MaxBytes > 0 && o.Keep < 1:
		return nil, fmt.Errorf("rotation keeps at least 1 old file, got %d", o.Keep)
	}
	w := &Writer{opts: o, fd: -1, dirFD: -1}
	var err error
	if o.File != nil {
		err = w.adopt(o.File)
	} else {
		err = w.openPath(o.Path)
	}
	if err != nil {
		w.closeFDs()
		return nil, err
	}
	return w, nil
}

func (w *Writer) openPath(path string) error {
	dir, base := filepath.Split(path)
	if base == "" || base == "." || base == ".." {
		return fmt.Errorf("%s does not name a file", path)
	}
	if dir == "" {
		dir = "."
	}
	var err error
	w.dirFD, err = unix.Open(dir, dirOpen|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("opening the directory of %s: %w", path, err)
	}
	w.base = base
	if err := w.openFile(0); err != nil {
		return fmt.Errorf("opening %s: %w", path, err)
	}
	w.ancestors = ancestorsOf(w.dirFD)
	var st unix.Stat_t
	if err := unix.Fstat(w.dirFD, &st); err != nil {
		return err
	}
	w.dirID = FileID{uint64(st.Dev), uint64(st.Ino)}
	return nil
}

// ancestorsOfFile is ancestorsOf for an open directory.
func ancestorsOfFile(dir *os.File) map[FileID]bool {
	var ids map[FileID]bool
	rc, err := dir.SyscallConn()
	if err != nil {
		return nil
	}
	rc.Control(func(fd uintptr) { ids = ancestorsOf(int(fd)) })
	return ids
}

// openFile opens the log's name in its directory (extra: O_EXCL for a fresh file after a
// rotation) and checks it.
func (w *Writer) openFile(extra int) error {
	fd, err := unix.Openat(w.dirFD, w.base, unix.O_WRONLY|unix.O_APPEND|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC|extra, 0o600)
	if err != nil {
		if errors.Is(err, unix.ELOOP) {
			return errors.New("the name is a symbolic link; the audit log must be a regular file")
		}
		return err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return err
	}
	if err := checkRegular(&st); err != nil {
		unix.Close(fd)
		return err
	}
	if w.fd >= 0 {
		unix.Close(w.fd)
	}
	w.fd, w.size, w.regular = fd, st.Size, true
	w.fileID = FileID{uint64(st.Dev), uint64(st.Ino)}
	return nil
}

// checkRegular refuses a log file the model might reach by another name, or that is not a file.
func checkRegular(st *unix.Stat_t) error {
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return errors.New("not a regular file")
	}
	if st.Nlink > 1 {
		return fmt.Errorf("the file has %d hard links; a second name could lie where the model reaches it", st.Nlink)
	}
	return nil
}

// adopt takes a host-supplied descriptor.
func (w *Writer) adopt(f *os.File) error {
	fd := int(f.Fd())
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("audit descriptor %d: %w", fd, err)
	}
	w.file, w.fd = f, fd
	// Not inherited by anything the process starts (post_edit hooks): only fsbox writes here.
	unix.CloseOnExec(fd)
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFIFO, unix.S_IFSOCK:
		return nil
	case unix.S_IFREG:
	default:
		return fmt.Errorf("audit descriptor %d is not a regular file, FIFO or socket", fd)
	}
	if err := checkRegular(&st); err != nil {
		return fmt.Errorf("audit descriptor %d: %w", fd, err)
	}
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		return fmt.Errorf("audit descriptor %d: %w", fd, err)
	}
	if flags&unix.O_APPEND == 0 || flags&unix.O_ACCMODE == unix.O_RDONLY {
		return fmt.Errorf("audit descriptor %d must be open for appending (O_WRONLY|O_APPEND, e.g. 3>>FILE)", fd)
	}
	w.regular, w.size = true, st.Size
	w.fileID = FileID{uint64(st.Dev), uint64(st.Ino)}
	// Where the file lives, so a root around it is refused: its directory through /proc, checked
	// to still hold this very file under that name.
	if p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd)); err == nil && filepath.IsAbs(p) {
		dir, err := unix.Open(filepath.Dir(p), dirOpen|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err == nil {
			var at unix.Stat_t
			if unix.Fstatat(dir, filepath.Base(p), &at, unix.AT_SYMLINK_NOFOLLOW) == nil && at.Dev == st.Dev && at.Ino == st.Ino {
				w.ancestors = ancestorsOf(dir)
			}
			unix.Close(dir)
		}
	}
	return nil
}

// ancestorsOf returns dir and every directory above it, following ".." to the top.
func ancestorsOf(dir int) map[FileID]bool {
	ids := map[FileID]bool{}
	fd, err := unix.Openat(dir, ".", dirOpen|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return ids
	}
	for range 4096 {
		var st unix.Stat_t
		if unix.Fstat(fd, &st) != nil {
			break
		}
		id := FileID{uint64(st.Dev), uint64(st.Ino)}
		if ids[id] {
			break // ".." of the top is the top itself
		}
		ids[id] = true
		up, err := unix.Openat(fd, "..", dirOpen|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			break
		}
		unix.Close(fd)
		fd = up
	}
	unix.Close(fd)
	return ids
}

// rotate renames FILE.(Keep-1) … FILE.1, FILE one up (the oldest is replaced), then creates a
// fresh FILE (O_EXCL: nothing planted at the name in between is used). The name must still be
// the file being written: a log renamed or replaced by someone else is a failure, not a file to
// rename.
func (w *Writer) rotate() error {
	var st unix.Stat_t
	if err := unix.Fstatat(w.dirFD, w.base, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil || (FileID{uint64(st.Dev), uint64(st.Ino)}) != w.fileID {
		return errors.New("the log file was renamed or replaced since it was opened")
	}
	for i := w.opts.Keep; i >= 1; i-- {
		src := w.base
		if i > 1 {
			src = w.base + "." + strconv.Itoa(i-1)
		}
		if err := unix.Renameat(w.dirFD, src, w.dirFD, w.base+"."+strconv.Itoa(i)); err != nil && !errors.Is(err, unix.ENOENT) {
			return err
		}
	}
	return w.openFile(unix.O_EXCL)
}

// writeOnce is one write(2) of b, retried only when it was interrupted before writing anything.
func writeOnce(fd int, b []byte) (int, error) {
	for {
		n, err := unix.Write(fd, b)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if n < 0 {
			n = 0
		}
		return n, err
	}
}

func (w *Writer) closeFDs() error {
	var err error
	if w.file != nil {
		err = w.file.Close()
	} else if w.fd >= 0 {
		err = unix.Close(w.fd)
	}
	w.fd, w.file = -1, nil
	if w.dirFD >= 0 {
		unix.Close(w.dirFD)
		w.dirFD = -1
	}
	return err
}

// IDOf returns the device and inode of fi, false where the platform does not say.
func IDOf(fi os.FileInfo) (FileID, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return FileID{}, false
	}
	return FileID{uint64(st.Dev), uint64(st.Ino)}, true
}
