package engine

import (
	"io/fs"
	"syscall"

	"github.com/fsbox/fsbox/engine/internal/fserr"
	"github.com/fsbox/fsbox/schema"
)

// openRegular opens the regular file r names for reading and verifies, on the open descriptor,
// that it is a regular file and the very file resolve saw (same device and inode as the resolved
// Lstat), so a component swapped after the check can neither block the call nor redirect it to a
// different (say, denied) file in the root. Errors: not_found, not_a_file (a directory),
// not_regular_file, changed_during_request, and the OS kinds. On Linux the open is a descriptor
// walk (openFileAt) with plain read(2) on the result: no runtime poller registration.
func (e *Engine) openRegular(op string, r *resolved) (entryFile, fs.FileInfo, *Error) {
	if err := e.wantRegular(op, r); err != nil {
		return nil, nil, err
	}
	f, fi, err := e.openFileAt(r.rel)
	if err != nil {
		return nil, nil, e.openError(op, r, err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, errNotRegular(op, r)
	}
	if !sameFile(fi, r.info) {
		f.Close()
		return nil, nil, errChanged(op, r)
	}
	return f, fi, nil
}

// openResolved opens the regular file at the resolved root-relative path rel for reading and
// checks that it is want (openRegular): walkers use it for the targets of symlinked entries.
func openResolved(e *Engine, rel string, want fs.FileInfo) (entryFile, int64, bool) {
	f, fi, err := e.openRegular("", &resolved{spelling: rel, lexical: rel, rel: rel, exists: true, info: want})
	if err != nil {
		return nil, 0, false
	}
	return f, fi.Size(), true
}

// maxReopens bounds how often openStable re-resolves a file that was replaced under it.
const maxReopens = 3

// openStable is openRegular for a file that may be replaced concurrently by an atomic rename
// (another write_file): when the opened file is not the one resolved, the spelling is resolved
// and checked again (same resolved path required) and the open retried, so a reader sees the new
// content instead of an error. It returns the resolution the file matches.
func (e *Engine) openStable(op string, r *resolved, a access) (*resolved, entryFile, fs.FileInfo, *Error) {
	for i := 0; ; i++ {
		f, fi, err := e.openRegular(op, r)
		if err == nil || err.Kind != schema.KindChangedDuringRequest || i == maxReopens {
			return r, f, fi, err
		}
		again, _, rerr := e.resolveFor(op, r.spelling, a)
		if rerr != nil {
			return nil, nil, nil, rerr
		}
		if again.rel != r.rel {
			return nil, nil, nil, err
		}
		r = again
	}
}

// wantRegular checks, on the resolution, that r names an existing regular file.
func (e *Engine) wantRegular(op string, r *resolved) *Error {
	switch {
	case !r.exists:
		return fserr.Errorf(op, r.rel, schema.KindNotFound, "File not found: %s", r.spelling)
	case r.info.IsDir():
		return fserr.Errorf(op, r.rel, schema.KindNotAFile, "'%s' is a directory, not a file.", r.spelling)
	case !r.info.Mode().IsRegular():
		return errNotRegular(op, r)
	}
	return nil
}

// openError maps an error of opening r: a swap the os.Root or the descriptor walk refused
// (errDirSwapped), or a path that vanished or changed type, is changed_during_request; a root
// deleted meanwhile (errRootGone) is not_found; the rest go through fserr.FromOS.
func (e *Engine) openError(op string, r *resolved, err error) *Error {
	switch {
	case err == errRootGone:
		return errRootGoneFor(op)
	case err == errDirSwapped, fserr.IsRootEscape(err):
		return errChanged(op, r)
	}
	switch {
	case errorsIsErrno(err, syscall.ENOENT):
		return fserr.Errorf(op, r.rel, schema.KindNotFound, "File not found: %s", r.spelling)
	case errorsIsErrno(err, syscall.ELOOP), errorsIsErrno(err, syscall.ENOTDIR):
		return errChanged(op, r)
	case errorsIsErrno(err, syscall.ENXIO), errorsIsErrno(err, syscall.ENODEV):
		return errNotRegular(op, r)
	}
	return fserr.FromOS(op, r.rel, r.spelling, err)
}

// errRootGoneFor is the error of a call whose root directory was deleted while the engine runs.
func errRootGoneFor(op string) *Error {
	return fserr.Errorf(op, "", schema.KindNotFound, "The root directory no longer exists.")
}

// errNotRegular is the error for a FIFO, socket or device.
func errNotRegular(op string, r *resolved) *Error {
	return fserr.Errorf(op, r.rel, schema.KindNotRegularFile, "Path %s exists and is not a regular file.", fserr.PyRepr(r.spelling))
}

// errChanged is the error for a path that changed between resolution and use.
func errChanged(op string, r *resolved) *Error {
	return fserr.Errorf(op, r.rel, schema.KindChangedDuringRequest, "Path %s changed while it was being used. Retry.", fserr.PyRepr(r.spelling))
}

// errorsIsErrno reports whether err wraps errno.
func errorsIsErrno(err error, errno syscall.Errno) bool {
	for err != nil {
		if e, ok := err.(syscall.Errno); ok {
			return e == errno
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		err = u.Unwrap()
	}
	return false
}
