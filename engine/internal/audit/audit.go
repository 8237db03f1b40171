// Package audit writes fsbox's audit log: one line per call, each with a single write(2) on a
// descriptor opened O_APPEND, so a line is either wholly in the file or not at all, and is in the
// file before the caller goes on to send the call's reply. It numbers the lines (a sequence that
// runs on across rotations) and rotates the file by size (FILE → FILE.1 → … → FILE.Keep).
//
// It knows nothing of tools, paths or records: the engine builds each line, and decides what one
// may contain (never file contents, never host paths). It protects against a log file that is
// not what the host named (a symlink or FIFO planted at the name, a hard link that gives the file
// a second name elsewhere, a file renamed away between rotations) and against a line torn by a
// concurrent writer of this process. It does not protect against another process writing the
// same file (lines stay whole, but two processes' sequences interleave and their rotations
// race: give each process a log of its own), nor against the host's own account altering the
// file: it is an append-only record, not a signed one.
//
// A failed write, a short write or a failed rotation latches: every later Append fails with the
// same error (see [Writer.Err]), so nothing is ever recorded after a gap.
package audit

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
)

// Options say where the log goes.
type Options struct {
	// Path is the log file, created (mode 0600) when missing and appended to otherwise. Its
	// directory is opened once, now; later rotations happen in that very directory, whatever
	// its path names by then.
	Path string
	// File is a descriptor the host opened (--audit-fd): a regular file, a FIFO or a socket.
	// It cannot rotate. Exactly one of Path and File is set.
	File *os.File
	// MaxBytes rotates the log before a line would take it past this size; 0 never rotates.
	// Only with Path.
	MaxBytes int64
	// Keep is how many rotated files are kept (FILE.1 is the newest); at least 1 with MaxBytes.
	Keep int
	// Sync makes every line durable (fdatasync) before Append returns; without it a line is in
	// the kernel's page cache, which survives the process being killed but not a power loss.
	Sync bool
}

// FileID identifies a file or directory: device and inode.
type FileID struct{ Dev, Ino uint64 }

// ErrUnsupported is returned where the platform offers no O_APPEND descriptor interface.
var ErrUnsupported = errors.New("the audit log is not supported on this platform")

// Writer appends lines to the log. It is safe for concurrent use.
type Writer struct {
	opts Options

	mu      sync.Mutex
	fd      int    // the log's descriptor
	size    int64  // bytes in the current file (regular files only)
	seq     uint64 // the last sequence number written
	err     error  // the latched failure, nil while the log is healthy
	closed  bool
	file    *os.File // keeps a host-supplied descriptor alive
	dirFD   int      // O_PATH descriptor of the log's directory, -1 without Path
	base    string   // the log's name in that directory
	regular bool     // the log is a regular file (it may rotate and has ancestors)
	fileID  FileID   // the current log file
	dirID   FileID   // the log's directory (with Path)

	ancestors map[FileID]bool // the log's directory and each directory above it
}

// Err returns the latched failure, or nil while every line so far was written whole.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Within reports whether a directory identified by id holds the log: it is the log's
// directory or one above it. A host uses it to refuse a root or mount the model could reach
// the log through. It is false for a log that is not a regular file, or whose directory could
// not be found (a deleted file, a descriptor without /proc): no name of it lies anywhere.
func (w *Writer) Within(id FileID) bool { return w.ancestors[id] }

// RotatesAbove reports whether the log rotates (so the process may create and remove files
// beneath its directory) in a directory that is dir or one above it: rotation would then open
// more than the log's own directory to the process. dir is an open directory.
func (w *Writer) RotatesAbove(dir *os.File) bool {
	if w.RotateDir() == "" {
		return false
	}
	return ancestorsOfFile(dir)[w.dirID]
}

// RotateDir returns "/proc/self/fd/N", the log's directory as the descriptor opened at Open, when
// the log rotates (the kernel's confinement must then let the process create, rename and remove
// files there); "" otherwise.
func (w *Writer) RotateDir() string {
	if w.opts.MaxBytes <= 0 || w.dirFD < 0 {
		return ""
	}
	return "/proc/self/fd/" + strconv.Itoa(w.dirFD)
}

// Append writes one line: `{"seq":N,` followed by rest (the remainder of a JSON object, without
// its opening brace) and a newline, in one write(2), and returns N. N counts the lines this
// Writer wrote, from 1, across rotations. It rotates first when the line would take the file past
// MaxBytes. Any failure latches (see the package comment).
func (w *Writer) Append(rest []byte) (uint64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return 0, errors.New("the audit log is closed")
	}
	if w.err != nil {
		return 0, w.err
	}
	seq := w.seq + 1
	line := make([]byte, 0, len(rest)+32)
	line = append(line, `{"seq":`...)
	line = strconv.AppendUint(line, seq, 10)
	line = append(line, ',')
	line = append(line, rest...)
	line = append(line, '\n')
	if w.regular && w.opts.MaxBytes > 0 && w.size > 0 && w.size+int64(len(line)) > w.opts.MaxBytes {
		if err := w.rotate(); err != nil {
			w.err = fmt.Errorf("rotating the audit log: %w", err)
			return 0, w.err
		}
	}
	n, err := writeOnce(w.fd, line)
	if err == nil && n != len(line) {
		err = fmt.Errorf("short write: %d of %d bytes", n, len(line))
	}
	if err == nil && w.opts.Sync {
		err = syncData(w.fd)
	}
	w.size += int64(n)
	if err != nil {
		w.err = fmt.Errorf("writing the audit log: %w", err)
		return 0, w.err
	}
	w.seq = seq
	return seq, nil
}

// Close closes the log; later Appends fail.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	return w.closeFDs()
}
