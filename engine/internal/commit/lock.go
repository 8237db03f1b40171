package commit

import (
	"context"
	"io/fs"
	"os"
)

// Lock is fsbox's cross-process write lock: an exclusive advisory lock (flock(2), LOCK_EX) on
// the directory a change lands in, held from the content check to the rename (for a change
// nobody is asked about, from the read the change is computed from). Every fsbox process takes it
// for every write_file and edit_file, so between fsbox processes (and between goroutines of one,
// since each lock is a separate open of the directory) the hash check and the rename are atomic:
// of two edits based on one content exactly one lands and the other is stale_hash, and an
// update another fsbox process reported as written is never overwritten unseen.
//
// Why the directory, of the three ways to get such a lock:
//
//  1. flock on the target file: a write replaces the target's inode by rename, so a lock on the
//     old inode does not exclude a process that opens the new one; every taker would have to
//     re-check after locking that the locked inode is still the one at the path, and retry. It
//     cannot lock a file that does not exist yet (a create), needs read access to the target,
//     and contends with whatever locks a user's own tools put on their files.
//  2. a sibling lock file (".<name>.fsbox-lock", O_EXCL as git's index.lock): a file the model
//     and the walkers must never see, created and removed on every write, left behind by a kill
//     (O_EXCL existence then needs dead-owner detection, with its own races), and, when removed
//     after use, open to the same inode race as 1.
//  3. flock on the parent directory (this): the directory is not replaced by the rename, so the
//     lock and the file it guards cannot come apart; nothing is created, so nothing can be left
//     behind, hidden or escaped through; the kernel drops the lock when the process dies (a
//     SIGKILL included); creates, write-only files and overwrites are locked alike. The cost is
//     granularity: changes to different files of one directory are serialised too, for the
//     length of one check-to-rename (hash, temporary write, fsync, rename), never while a client
//     decides about a change request.
//
// The lock is taken on a descriptor of the verified parent directory (the sub-root commitFile
// opens, checked with fstat against the directory resolved), so it never follows a symlink and
// never names a path outside the root. It is taken after the in-process per-path lock
// (the engine's lockChange) and released before it, and a call holds at most one, so locks are
// always taken in the same order and cannot deadlock. Waiting for it honours the call's context.
//
// What it does not protect against: a writer that takes no lock (an editor, git, a script) is
// not excluded. Its change is detected (stale_hash, or changed_during_request for a file
// replaced) when it lands before fsbox's hash check, or replaces the file before the identity
// check right before the rename. A write it makes in place (into the same inode) between the hash
// check and the rename, or a replacement between that last identity check and the rename, is
// overwritten by fsbox's rename and lost; the window is that of one check-to-rename. Where the
// file system does not support flock (some network file systems: NFS refuses it on directories),
// the lock is skipped and only the in-process serialisation holds; temporary files are then never
// swept (see [Sweeper]), since nothing proves a writer dead. Windows builds take no
// cross-process lock.
type Lock struct {
	File *os.File    // "." of the locked directory; closing it releases the lock
	Info fs.FileInfo // fstat of f, to check that a later open is the same directory
	// Held is true when the OS lock is Held; false where the file system cannot lock (the call
	// then proceeds with the in-process lock only).
	Held bool
}

// LockDir opens "." of dir and takes fsbox's exclusive lock on it, waiting while another holds
// it unless ctx ends first (the error is then ctx's).
func LockDir(ctx context.Context, dir *os.Root) (*Lock, error) {
	f, err := dir.Open(".")
	if err != nil {
		return nil, err
	}
	return LockFile(ctx, f)
}

// LockFile is lockDir on an open directory f, which it owns from then on.
func LockFile(ctx context.Context, f *os.File) (*Lock, error) {
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	held, err := lockExclusive(ctx, f)
	if err != nil {
		// On cancellation lockExclusive has handed f to the waiter, which closes it.
		if ctx.Err() == nil {
			f.Close()
		}
		return nil, err
	}
	return &Lock{File: f, Info: fi, Held: held}, nil
}

// Unlock releases the lock (nil-safe).
func (l *Lock) Unlock() {
	if l != nil {
		l.File.Close()
	}
}
