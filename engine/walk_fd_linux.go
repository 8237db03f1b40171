//go:build linux && (amd64 || arm64)

package engine

import (
	"encoding/binary"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/fsbox/fsbox/engine/internal/commit"
	"github.com/fsbox/fsbox/engine/internal/relpath"
)

// On Linux the walkers hold each directory as a bare descriptor and work relative to it with
// single-name system calls: getdents64 to list (names and types, no stat per entry, which
// (*os.File).ReadDir does for a directory opened in an os.Root), fstatat for sizes, and openat
// with O_NOFOLLOW for files and subdirectories. One name per call, no symlink followed, starting
// from a directory os.Root opened and checked: a walk cannot leave the root whatever is renamed
// or swapped meanwhile. A system call costs a microsecond or more on a virtual machine, so this
// halves a walk's cost against going through os.Root's path walk and the runtime poller
// (epoll_ctl and fcntl on every open).

// direntBufBytes is the getdents buffer: about a thousand names per system call.
const direntBufBytes = 32 << 10

// dirHandle is an open directory descriptor.
type dirHandle struct {
	fd  int
	mnt mountPos // where it sits among the mounts (mount.go); zero without mounts
}

// openDirHandle opens the root-relative directory rel (resolved: no symlink in it) one component
// at a time from the root's descriptor with O_NOFOLLOW, and checks that it is want (the
// directory resolve saw). Walking by descriptor matters: resolve checked rel's components one
// Lstat at a time, and a component swapped for a symlink since (to a denied directory, say)
// would be followed by a path open through os.Root, leading the walk into a directory nobody
// checked. Here a swapped component fails the open (changed_during_request for the caller).
func openDirHandle(e *Engine, rel string, want fs.FileInfo) (dirHandle, error) {
	h, err := e.topHandle()
	if err != nil {
		return dirHandle{}, err
	}
	for _, name := range relpath.Split(rel) {
		componentSteps.Add(1)
		next, err := h.child(name)
		h.close()
		if err == syscall.ELOOP || err == syscall.ENOTDIR {
			return dirHandle{}, errDirSwapped
		}
		if err != nil {
			return dirHandle{}, err
		}
		h = next
	}
	if want != nil {
		var st syscall.Stat_t
		if err := syscall.Fstat(h.fd, &st); err != nil {
			h.close()
			return dirHandle{}, err
		}
		ws, ok := want.Sys().(*syscall.Stat_t)
		if !ok || ws.Dev != st.Dev || ws.Ino != st.Ino {
			h.close()
			return dirHandle{}, errDirSwapped
		}
	}
	return h, nil
}

// topHandle is a handle on the root directory.
func (e *Engine) topHandle() (dirHandle, error) { return rootHandle(e.top, e.rootPos()) }

// handle is a handle on the mounted directory.
func (m *mount) handle() (dirHandle, error) { return rootHandle(m.top, mountPos{ro: m.readOnly}) }

// rootHandle is a handle on the directory of top (the engine's root or a mount's, opened once in
// New) at pos: a fresh open of it relative to its descriptor, made while the os.File holds a
// reference to that descriptor, so an engine closed meanwhile fails the call instead of opening
// relative to a reused descriptor number.
// A root whose directory was deleted is errRootGone.
func rootHandle(top *os.File, pos mountPos) (dirHandle, error) {
	fd := -1
	// A new open of "." rather than a dup: a duplicate would share the directory offset that
	// getdents advances, so a second listing would come back empty.
	err := commit.WithFd(top, func(s int) error {
		var oerr error
		fd, oerr = openat(s, ".", syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC)
		return oerr
	})
	if err != nil {
		return dirHandle{}, err
	}
	h := dirHandle{fd: fd, mnt: pos}
	// The os.Root keeps its directory open even after the root is deleted; a deleted directory
	// has no links and lists empty, so without this check walkers would answer "No matches
	// found." where every other tool answers not_found.
	var rst syscall.Stat_t
	if err := syscall.Fstat(h.fd, &rst); err != nil {
		h.close()
		return dirHandle{}, err
	}
	if rst.Nlink == 0 {
		h.close()
		return dirHandle{}, errRootGone
	}
	return h, nil
}

// confirmResolved reports whether the FileInfo of a resolution still describes the file at rel.
// Here walkComponents is itself a descriptor walk with O_NOFOLLOW at every component, so its
// FileInfo came from fstatat on the very parent directory reached: nothing to confirm. Openers
// still check identity on the descriptor they open.
func confirmResolved(e *Engine, rel string, want fs.FileInfo) bool { return true }

// openFileAt opens the root-relative rel for reading by descriptor: its directory one O_NOFOLLOW
// component at a time from the root (openDirHandle), then the file itself (openRead).
func (e *Engine) openFileAt(rel string) (entryFile, fs.FileInfo, error) {
	dir, name := relpath.Parent(rel)
	h, err := openDirHandle(e, dir, nil)
	if err != nil {
		return nil, nil, err
	}
	defer h.close()
	f, fi, err := h.openRead(name)
	if err != nil {
		return nil, nil, err
	}
	return f, fi, nil
}

// createTemp creates the new file name (O_EXCL, never following a link) in the directory dirFile
// holds (dir, open), by openat on its descriptor: a blocking descriptor that os.NewFile keeps out
// of the runtime poller (an os.Root open registers every file with it, five system calls wasted).
func createTemp(_ *os.Root, dirFile *os.File, name string, perm fs.FileMode) (*os.File, error) {
	fd := -1
	err := commit.WithFd(dirFile, func(s int) error {
		for {
			var oerr error
			fd, oerr = syscall.Openat(s, name, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, uint32(perm))
			if oerr != syscall.EINTR {
				return oerr
			}
		}
	})
	if err != nil {
		return nil, &fs.PathError{Op: "openat", Path: name, Err: err}
	}
	return os.NewFile(uintptr(fd), name), nil
}

// openDirFile opens the root-relative directory rel by descriptor walk as an *os.File that the
// runtime poller does not know (os.NewFile of a blocking descriptor), for the directory lock.
func openDirFile(e *Engine, rel string) (*os.File, bool) {
	h, err := openDirHandle(e, rel, nil)
	if err != nil {
		return nil, false
	}
	return os.NewFile(uintptr(h.fd), "."), true
}

func (h dirHandle) close() { syscall.Close(h.fd) }

// child opens the subdirectory name, refusing a symlink; a mount point opens the mounted
// directory.
func (h dirHandle) child(name string) (dirHandle, error) {
	if m := h.mnt.mountAt(name); m != nil {
		mh, err := m.handle()
		if err == errRootGone {
			err = syscall.ENOENT
		}
		return mh, err
	}
	fd, err := openat(h.fd, name, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC)
	if err != nil {
		return dirHandle{}, err
	}
	return dirHandle{fd: fd, mnt: h.mnt.child(name)}, nil
}

// readlink returns the target of the symlink name below h (readlinkat); a target longer than
// relpath.MaxBytes is an error.
func (h dirHandle) readlink(name string) (string, error) {
	if h.mnt.mountAt(name) != nil {
		return "", &fs.PathError{Op: "readlinkat", Path: name, Err: syscall.EINVAL}
	}
	p, err := syscall.BytePtrFromString(name)
	if err != nil {
		return "", err
	}
	buf := make([]byte, relpath.MaxBytes+1)
	for {
		n, _, errno := syscall.Syscall6(syscall.SYS_READLINKAT, uintptr(h.fd), uintptr(unsafe.Pointer(p)),
			uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), 0, 0)
		if errno == syscall.EINTR {
			continue
		}
		if errno != 0 {
			return "", &fs.PathError{Op: "readlinkat", Path: name, Err: errno}
		}
		if int(n) > relpath.MaxBytes {
			return "", &fs.PathError{Op: "readlinkat", Path: name, Err: syscall.ENAMETOOLONG}
		}
		return string(buf[:n]), nil
	}
}

// openSelf opens h's directory once more, as an *os.File of its own (a new open file
// description, so fsbox's lock taken on it excludes every other open, this process's included).
func (h dirHandle) openSelf() (*os.File, error) {
	fd, err := openat(h.fd, ".", syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), "."), nil
}

// mkdir creates the directory name below h with mkdirat; it never follows a symlink at name.
func (h dirHandle) mkdir(name string) error {
	if h.mnt.mountAt(name) != nil {
		return &fs.PathError{Op: "mkdirat", Path: name, Err: syscall.EEXIST}
	}
	if h.mnt.ro {
		return &fs.PathError{Op: "mkdirat", Path: name, Err: syscall.EROFS}
	}
	for {
		err := syscall.Mkdirat(h.fd, name, 0o777)
		if err != syscall.EINTR {
			if err != nil {
				return &fs.PathError{Op: "mkdirat", Path: name, Err: err}
			}
			return nil
		}
	}
}

// list returns the entries with the types getdents reports; an entry of unknown type
// (DT_UNKNOWN) is lstat'ed.
func (h dirHandle) list() ([]fs.DirEntry, error) {
	var out []fs.DirEntry
	buf := make([]byte, direntBufBytes)
	// getdents continues from the descriptor's offset; a handle is listed once.
	for {
		n, err := syscall.ReadDirent(h.fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return out, err
		}
		if n <= 0 {
			break
		}
		out = parseDirents(buf[:n], out)
	}
	out = h.mnt.mountEntries(out)
	kept := out[:0]
	for _, de := range out {
		if t, ok := de.(*typedDirent); ok && t.unknown {
			fi, err := h.lstat(t.name)
			if err != nil {
				continue // gone meanwhile
			}
			t.typ, t.unknown = fi.Mode().Type(), false
		}
		kept = append(kept, de)
	}
	return kept, nil
}

// lstat stats the entry name without following it.
func (h dirHandle) lstat(name string) (fs.FileInfo, error) {
	if m := h.mnt.mountAt(name); m != nil {
		return m.stat(name)
	}
	var st syscall.Stat_t
	for {
		err := fstatat(h.fd, name, &st, atSymlinkNoFollow)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "lstat", Path: name, Err: err}
		}
		return &statInfo{name: name, st: st}, nil
	}
}

// openEntry opens the regular file name for reading: O_NOFOLLOW, so a symlink swapped in since
// the listing is refused rather than followed (to, say, a denied file); O_NONBLOCK, so a FIFO
// swapped in cannot block; then fstat keeps regular files only and gives the size. The second
// argument is for the portable version.
func (h dirHandle) openEntry(name string, _ bool) (entryFile, int64, bool) {
	f, fi, err := h.openRead(name)
	if err != nil {
		return nil, 0, false
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, 0, false
	}
	return f, fi.Size(), true
}

// openRead opens the entry name for reading with O_NOFOLLOW and O_NONBLOCK (a FIFO swapped in
// opens at once, for the caller's type check to refuse) and fstats the descriptor. A mount point
// is a directory: EISDIR.
func (h dirHandle) openRead(name string) (rawFile, *statInfo, error) {
	if h.mnt.mountAt(name) != nil {
		return 0, nil, syscall.EISDIR
	}
	fd, err := openat(h.fd, name, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC)
	if err != nil {
		return 0, nil, err
	}
	fi := &statInfo{name: name}
	if err := syscall.Fstat(fd, &fi.st); err != nil {
		syscall.Close(fd)
		return 0, nil, err
	}
	return rawFile(fd), fi, nil
}

func openat(dirfd int, name string, flags int) (int, error) {
	for {
		fd, err := syscall.Openat(dirfd, name, flags, 0)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}

const atSymlinkNoFollow = 0x100 // AT_SYMLINK_NOFOLLOW

// parseDirents appends the entries of one getdents64 result (struct linux_dirent64: d_ino u64,
// d_off s64, d_reclen u16, d_type u8, NUL-terminated d_name) to out, without "." and "..".
func parseDirents(buf []byte, out []fs.DirEntry) []fs.DirEntry {
	for len(buf) >= 19 {
		reclen := int(binary.NativeEndian.Uint16(buf[16:18]))
		if reclen < 19 || reclen > len(buf) {
			break
		}
		rec := buf[:reclen]
		buf = buf[reclen:]
		name := rec[19:]
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		if len(name) == 0 || string(name) == "." || string(name) == ".." {
			continue
		}
		d := &typedDirent{name: string(name)}
		switch rec[18] {
		case syscall.DT_REG:
		case syscall.DT_DIR:
			d.typ = fs.ModeDir
		case syscall.DT_LNK:
			d.typ = fs.ModeSymlink
		case syscall.DT_FIFO:
			d.typ = fs.ModeNamedPipe
		case syscall.DT_SOCK:
			d.typ = fs.ModeSocket
		case syscall.DT_CHR:
			d.typ = fs.ModeDevice | fs.ModeCharDevice
		case syscall.DT_BLK:
			d.typ = fs.ModeDevice
		default:
			d.unknown = true
		}
		out = append(out, d)
	}
	return out
}

// sortTyped sorts a listing that is all *typedDirent (a descriptor walk's, with no mount point
// in it) by name, reading the names directly instead of through two interface calls per
// comparison (8% of a list_directory); it reports false, sorting nothing, for any other listing.
func sortTyped(ents []fs.DirEntry) bool {
	typed := make([]*typedDirent, len(ents))
	for i, de := range ents {
		t, ok := de.(*typedDirent)
		if !ok {
			return false
		}
		typed[i] = t
	}
	slices.SortFunc(typed, func(a, b *typedDirent) int { return strings.Compare(a.name, b.name) })
	for i, t := range typed {
		ents[i] = t
	}
	return true
}

// typedDirent is an fs.DirEntry that knows its name and type only.
type typedDirent struct {
	name    string
	typ     fs.FileMode
	unknown bool // DT_UNKNOWN: typ still to be filled in by an lstat
}

func (d *typedDirent) Name() string      { return d.name }
func (d *typedDirent) IsDir() bool       { return d.typ.IsDir() }
func (d *typedDirent) Type() fs.FileMode { return d.typ }
func (d *typedDirent) Info() (fs.FileInfo, error) {
	return nil, &fs.PathError{Op: "info", Path: d.name, Err: syscall.ENOTSUP}
}

// statInfo is the fs.FileInfo of a raw stat.
type statInfo struct {
	name string
	st   syscall.Stat_t
}

func (s *statInfo) Name() string       { return s.name }
func (s *statInfo) Size() int64        { return s.st.Size }
func (s *statInfo) Mode() fs.FileMode  { return modeOfStat(s.st.Mode) | fs.FileMode(s.st.Mode&0o777) }
func (s *statInfo) ModTime() time.Time { return time.Unix(s.st.Mtim.Unix()) }
func (s *statInfo) IsDir() bool        { return s.Mode().IsDir() }
func (s *statInfo) Sys() any           { return &s.st }

// statInfo is its own fs.DirEntry, so a listing's stat'ed entries need no wrapper.
func (s *statInfo) Type() fs.FileMode          { return s.Mode().Type() }
func (s *statInfo) Info() (fs.FileInfo, error) { return s, nil }

// modeOfStat maps st_mode's file type to fs.FileMode type bits.
func modeOfStat(m uint32) fs.FileMode {
	switch m & syscall.S_IFMT {
	case syscall.S_IFDIR:
		return fs.ModeDir
	case syscall.S_IFLNK:
		return fs.ModeSymlink
	case syscall.S_IFIFO:
		return fs.ModeNamedPipe
	case syscall.S_IFSOCK:
		return fs.ModeSocket
	case syscall.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFBLK:
		return fs.ModeDevice
	}
	return 0
}

// rawFile reads a descriptor with read(2) directly; regular files never block, so the runtime
// poller has nothing to add.
type rawFile int

func (f rawFile) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(int(f), p)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 0, err
		}
		if n == 0 && len(p) > 0 {
			return 0, io.EOF
		}
		return n, nil
	}
}

func (f rawFile) Close() error { return syscall.Close(int(f)) }

// componentStepsCounted reports that this descriptor walk counts its steps in componentSteps.
const componentStepsCounted = true
