// Package commit holds what makes a change land crash-atomically and one at a time across
// processes: the directory lock (Lock: flock on the parent directory a change lands in, held from
// the content check to the rename), the names of the hidden temporary files a change is written
// to (NewTempName, ParseTempName), and the sweep of temporary files a killed writer left behind
// (Sweeper).
//
// It protects against two fsbox processes both landing changes based on one content (the lock
// makes check-and-rename atomic between them) and against a crash or a kill leaving a mix of old
// and new content or a visible leftover (temporary files are hidden, renamed into place whole, and
// swept only when their owner is provably gone). It does not exclude writers that take no lock
// (editors, git, scripts), whose changes the engine detects by hash and identity checks instead,
// and where the file system cannot flock it degrades to the engine's in-process lock. It knows
// directories and descriptors, not paths the model named: the engine opens and verifies the
// directory before handing it over.
package commit
