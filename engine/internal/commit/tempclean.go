package commit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Temporary files of a write are named ".fsbox-<pid>-<16 hex digits>.tmp": hidden, the writing
// process's id in decimal, 8 random bytes. The exact form is what lets a later session tell its
// own leftovers from a user's file that merely looks similar.
const (
	tempPrefix  = ".fsbox-"
	tempSuffix  = ".tmp"
	tempRandHex = 16
)

// StaleTempAge is how old a leftover temporary file whose pid belongs to a live process must be
// before it is swept: the pid may have been reused, but no write takes an hour between creating
// its temporary file and renaming it while another process waits on the directory's lock.
const StaleTempAge = time.Hour

// maxSweptDirs bounds the directories one Engine remembers as swept; once that many were swept,
// further directories are not swept in this session (a later session will).
const maxSweptDirs = 4096

// sweepBatch is how many names a sweep reads at a time between cancellation checks.
const sweepBatch = 256

// NewTempName returns a fresh temporary file name of this process.
func NewTempName() string {
	var rnd [tempRandHex / 2]byte
	rand.Read(rnd[:])
	return tempPrefix + strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(rnd[:]) + tempSuffix
}

// ParseTempName returns the pid of a name in the exact form newTempName makes (decimal pid
// without a leading zero, 16 lowercase hex digits), ok false for anything else.
func ParseTempName(name string) (pid int, ok bool) {
	mid, ok := strings.CutPrefix(name, tempPrefix)
	if !ok {
		return 0, false
	}
	if mid, ok = strings.CutSuffix(mid, tempSuffix); !ok {
		return 0, false
	}
	digits, rnd, ok := strings.Cut(mid, "-")
	if !ok || len(rnd) != tempRandHex || digits == "" || digits[0] == '0' || len(digits) > 10 {
		return 0, false
	}
	for _, c := range rnd {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return 0, false
		}
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	pid, err := strconv.Atoi(digits)
	if err != nil || pid > 1<<31-1 {
		return 0, false
	}
	return pid, true
}

// fileID is a file's device and inode.
type fileID struct{ dev, ino uint64 }

// Sweeper removes the temporary files that killed fsbox processes left behind. When a write
// holds the cross-process lock of a directory ([Lock]) for the first time in a session, it
// reads the directory's names once and removes each file that is provably a stale temporary of
// fsbox:
//
//  1. its name has the exact form of newTempName (a user's ".fsbox-foo.tmp" does not);
//  2. it is a regular file (Lstat: a symlink, directory or FIFO so named is left alone, and
//     nothing is followed) owned by this process's effective user;
//  3. the directory's lock is held, which no other fsbox process can hold while one of its
//     temporary files exists there: every writer creates, renames or removes its temporary file
//     under that lock, and the kernel releases it only when the writer is done or dead;
//  4. its pid names no live process, or the file is older than StaleTempAge (the pid may have
//     been reused): a second, independent proof, which also keeps the sweep safe where the lock
//     is not exclusive across machines.
//
// Why on write, per directory, once per session: a crash leaves the temporary file in the
// directory being written, so the next write there is the natural moment; a read-only session
// never deletes anything; and sweeping each directory once bounds the cost to one pass over its
// names (no stat unless a name matches), not one pass per write. A sweep at start would have to
// walk the whole tree (unbounded) or would find only the top level's files. The sweep honours
// cancellation (a cancelled sweep is retried by a later write) and remembers at most
// maxSweptDirs directories.
//
// Not swept: temporary files of fsbox versions before this naming (".fsbox-<16 hex>.tmp"), whose
// writers took no lock, so nothing proves them dead; anything on a file system or platform
// without the lock ([Lock.held] false).
type Sweeper struct {
	mu    sync.Mutex
	swept map[fileID]bool // guarded by mu
}

// Sweep removes the stale temporary files of the directory dir, whose lock l the caller holds,
// unless it was swept already in this session.
func (s *Sweeper) Sweep(ctx context.Context, dir *os.Root, l *Lock) {
	if !l.Held {
		return
	}
	id, ok := fileKey(l.Info)
	if !ok {
		return
	}
	s.mu.Lock()
	skip := s.swept[id] || len(s.swept) >= maxSweptDirs
	s.mu.Unlock()
	if skip {
		return
	}
	d, err := dir.Open(".")
	if err != nil {
		return
	}
	defer d.Close()
	for {
		if ctx.Err() != nil {
			return
		}
		names, err := d.Readdirnames(sweepBatch)
		for _, name := range names {
			if pid, ok := ParseTempName(name); ok {
				removeStaleTemp(dir, name, pid)
			}
		}
		if err != nil {
			break
		}
	}
	s.mu.Lock()
	if s.swept == nil {
		s.swept = map[fileID]bool{}
	}
	s.swept[id] = true
	s.mu.Unlock()
}

// removeStaleTemp removes the temporary file name of process pid in dir when rules 2 and 4 of
// [Sweeper] hold (the caller ensures 1 and 3).
func removeStaleTemp(dir *os.Root, name string, pid int) {
	fi, err := dir.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() || !ownedByUs(fi) {
		return
	}
	if processAlive(pid) && time.Since(fi.ModTime()) < StaleTempAge {
		return
	}
	dir.Remove(name)
}
