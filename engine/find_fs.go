package engine

import (
	"io/fs"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
)

// maxFindDirReads bounds the directory listings of one find_files call (find rule 5): ten times
// a large monorepo's directory count, so only a pattern that multiplies the walk meets it. A
// variable so tests can lower it.
var maxFindDirReads = 100_000

// prefetchQueue bounds the subdirectory listings queued ahead of doublestar's walk.
const prefetchQueue = 256

// walkFS is the fs.FS doublestar walks: root-relative names over the engine's root.
//
//   - It opens only directories it has resolved (no symlink on the way at the time of the
//     check), recording each real subdirectory a listing shows, so a directory reached through
//     the walk costs no resolution, and one named literally in the pattern is resolved once
//     through the core's resolver. doublestar, with WithNoFollow, never enters a symlinked
//     directory by a wildcard.
//   - Listings are by descriptor (dirHandle): each directory is opened relative to its parent,
//     which stays open while the walk is below it (doublestar walks depth first).
//   - For a pattern with "**", whose walk visits every visible subdirectory, the subdirectories
//     of each listing are listed ahead by a few goroutines, so the walk mostly finds its next
//     listing done: a directory listing is a system call or two, and those run in parallel.
//
// Only doublestar's goroutine calls the fs.FS methods; the prefetch goroutines touch only their
// jobs and the pending map.
type walkFS struct {
	e     *Engine
	real  map[string]string // spelling (root-relative) → resolved path
	reads int               // ReadDir calls so far (find rule 5)
	stack []openDir         // directories listed along the walk's current path, outermost first
	// The last listing: doublestar lists each directory twice in a row for "**/x" (once to match
	// x in it, once to walk on), and the second costs nothing this way.
	lastReal string
	lastEnts []fs.DirEntry

	prefetch bool // the pattern has "**"
	workers  sync.WaitGroup
	mu       sync.Mutex
	wake     *sync.Cond          // signals jobs or stopped; uses mu
	jobs     []prefetchJob       // a stack: the walk wants the newest first; guarded by mu
	stopped  bool                // guarded by mu
	pending  map[string]*listing // resolved path → a listing queued or done; guarded by mu
}

// sharedHandle is a directory handle shared by the walk's stack and the prefetches of its
// subdirectories; the last user closes it.
type sharedHandle struct {
	h    dirHandle
	refs atomic.Int32
}

func newShared(h dirHandle) *sharedHandle {
	s := &sharedHandle{h: h}
	s.refs.Store(1)
	return s
}

func (s *sharedHandle) release() {
	if s.refs.Add(-1) == 0 {
		s.h.close()
	}
}

// openDir is a directory on the walk's current path.
type openDir struct {
	real string
	sh   *sharedHandle
}

// listing is a directory listed ahead of the walk.
type listing struct {
	taken atomic.Bool // a prefetcher or the walk itself claimed the job
	done  chan struct{}
	sh    *sharedHandle // the directory, still open; nil on error
	ents  []fs.DirEntry // sorted
	err   error
}

// prefetchJob lists the subdirectory name of parent ahead of the walk.
type prefetchJob struct {
	parent *sharedHandle // one reference held for the job
	name   string
	l      *listing
}

func newWalkFS(e *Engine, base string, prefetch bool) *walkFS {
	w := &walkFS{e: e, real: map[string]string{base: base}, prefetch: prefetch}
	if prefetch {
		w.pending = map[string]*listing{}
		w.wake = sync.NewCond(&w.mu)
		for range min(max(runtime.GOMAXPROCS(0), 2), 8) {
			w.workers.Add(1)
			go w.prefetcher()
		}
	}
	return w
}

// prefetcher serves prefetch jobs, newest first (the walk is depth first, so the newest queued
// are the subdirectories it enters next), until the walk ends.
func (w *walkFS) prefetcher() {
	defer w.workers.Done()
	for {
		w.mu.Lock()
		for len(w.jobs) == 0 && !w.stopped {
			w.wake.Wait()
		}
		if w.stopped {
			w.mu.Unlock()
			return
		}
		j := w.jobs[len(w.jobs)-1]
		w.jobs = w.jobs[:len(w.jobs)-1]
		w.mu.Unlock()
		if j.l.taken.CompareAndSwap(false, true) {
			j.l.fill(j.parent, j.name)
		}
		j.parent.release()
	}
}

// fill lists the subdirectory name of parent into l.
func (l *listing) fill(parent *sharedHandle, name string) {
	h, err := parent.h.child(name)
	if err == nil {
		l.ents, l.err = h.list()
		sortEntries(l.ents)
		l.sh = newShared(h)
	} else {
		l.err = err
	}
	close(l.done)
}

// close stops the prefetchers and closes every handle still open.
func (w *walkFS) close() {
	if w.prefetch {
		w.mu.Lock()
		w.stopped = true
		for _, j := range w.jobs {
			j.parent.release()
		}
		w.jobs = nil
		w.wake.Broadcast()
		w.mu.Unlock()
		w.workers.Wait()
		for _, l := range w.pending {
			if l.taken.Load() {
				<-l.done
				if l.sh != nil {
					l.sh.release()
				}
			}
		}
	}
	for _, d := range w.stack {
		d.sh.release()
	}
	w.stack = nil
}

// popTo drops from the stack every directory that is not an ancestor of real.
func (w *walkFS) popTo(real string) {
	parent, _ := parentRel(real)
	for len(w.stack) > 0 {
		top := w.stack[len(w.stack)-1].real
		if top == "." || top == parent || strings.HasPrefix(parent, top+"/") {
			return
		}
		w.stack[len(w.stack)-1].sh.release()
		w.stack = w.stack[:len(w.stack)-1]
	}
}

// list returns the sorted entries of the resolved directory real and its handle, pushed on the
// stack: from a prefetch when one was queued, else opened now (relative to its parent when the
// parent is on the stack, else from the root).
func (w *walkFS) list(real string) (*sharedHandle, []fs.DirEntry, error) {
	w.popTo(real)
	if w.prefetch {
		w.mu.Lock()
		l := w.pending[real]
		delete(w.pending, real)
		w.mu.Unlock()
		if l != nil {
			if l.taken.CompareAndSwap(false, true) {
				// Not started yet: list it here rather than wait behind other jobs.
				if n := len(w.stack); n > 0 && w.stack[n-1].real == parentOf(real) {
					l.fill(w.stack[n-1].sh, leafOf(real))
				} else {
					l.err = fs.ErrNotExist
					close(l.done)
				}
			}
			<-l.done
			if l.err != nil {
				if l.sh != nil {
					l.sh.release()
				}
				return nil, nil, l.err
			}
			w.stack = append(w.stack, openDir{real: real, sh: l.sh})
			return l.sh, l.ents, nil
		}
	}
	parent, leaf := parentRel(real)
	var h dirHandle
	var err error
	if n := len(w.stack); n > 0 && w.stack[n-1].real == parent && real != "." {
		h, err = w.stack[n-1].sh.h.child(leaf)
	} else {
		h, err = openDirHandle(w.e, real, nil)
	}
	if err != nil {
		return nil, nil, err
	}
	sh := newShared(h)
	w.stack = append(w.stack, openDir{real: real, sh: sh})
	ents, err := h.list()
	sortEntries(ents)
	return sh, ents, err
}

// queue lists the subdirectory name of the directory sh (resolved path real) ahead of the walk,
// if the queue has room. Subdirectories are queued last first, so the first is on top.
func (w *walkFS) queue(sh *sharedHandle, name, real string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, dup := w.pending[real]; dup || len(w.jobs) >= prefetchQueue {
		return
	}
	l := &listing{done: make(chan struct{})}
	w.pending[real] = l
	sh.refs.Add(1)
	w.jobs = append(w.jobs, prefetchJob{parent: sh, name: name, l: l})
	w.wake.Signal()
}

func parentOf(real string) string { p, _ := parentRel(real); return p }
func leafOf(real string) string   { _, l := parentRel(real); return l }

// realOf returns the resolved path of a root-relative spelling.
func (w *walkFS) realOf(name string) (string, bool) {
	if r, ok := w.real[name]; ok {
		return r, true
	}
	res, err := w.e.resolveRel("", name)
	if err != nil || !res.exists {
		return "", false
	}
	w.real[name] = res.rel
	return res.rel, true
}

func (w *walkFS) Open(name string) (fs.File, error) {
	real, ok := w.realOf(name)
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return w.e.root.OpenFile(real, openFlagsRead, 0)
}

func (w *walkFS) Stat(name string) (fs.FileInfo, error) {
	real, ok := w.realOf(name)
	if !ok {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	return w.e.root.Lstat(real)
}

func (w *walkFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if w.reads++; w.reads > maxFindDirReads {
		return nil, nil
	}
	real, ok := w.realOf(name)
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	if w.denied(real, name) {
		return nil, nil // walk rule 4: nothing below a denied directory is shown
	}
	if real == w.lastReal && w.lastEnts != nil {
		return w.lastEnts, nil
	}
	sh, ents, err := w.list(real)
	if err != nil {
		return nil, err
	}
	w.lastReal, w.lastEnts = real, ents
	for i := len(ents) - 1; i >= 0; i-- {
		de := ents[i]
		if !de.IsDir() {
			continue
		}
		child, childReal := joinChild(name, de.Name()), joinChild(real, de.Name())
		w.real[child] = childReal
		if w.prefetch && !strings.HasPrefix(de.Name(), ".") && !w.denied(childReal, child) {
			w.queue(sh, de.Name(), childReal)
		}
	}
	return ents, nil
}

// denied reports whether a denied pattern matches a directory.
func (w *walkFS) denied(real, name string) bool {
	return len(w.e.policy.denied) > 0 && w.e.walkDenied(real, name)
}
