package engine

import (
	"io/fs"
	"runtime"
	"sync"
	"sync/atomic"
)

// prefetchQueue bounds the directory listings queued ahead of a walk.
const prefetchQueue = 256

// maxPrefetchers caps the goroutines listing ahead of one walk (a variable so the benchmark can
// compare against none).
var maxPrefetchers = 8

// A directory listing is a system call or two, and a system call costs a microsecond or more on
// a virtual machine, so the depth-first walkers (find_files' doublestar walk, directory_tree) have
// a few goroutines list the subdirectories they will enter next while they work on the current
// one. The walk stays single-threaded and in order; it only finds its next listing done.

// sharedHandle is a directory handle shared by a walk and the prefetches of its subdirectories;
// the last user closes it.
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

// listing is one subdirectory listed ahead of the walk. Whoever claims it first (a prefetcher, or
// the walk when it needs the listing before any prefetcher started) fills it.
type listing struct {
	parent *sharedHandle // one reference, held until the listing is filled or dropped
	name   string
	taken  atomic.Bool
	done   chan struct{}
	sh     *sharedHandle // the directory, open, one reference for the consumer; nil on error
	ents   []fs.DirEntry // sorted
	err    error
}

// prefetcher runs the listings queued by one walk.
type prefetcher struct {
	list    func(h dirHandle) ([]fs.DirEntry, error) // lists and sorts a directory
	workers sync.WaitGroup
	mu      sync.Mutex
	wake    *sync.Cond          // signals jobs or stopped; uses mu
	jobs    []*listing          // a stack: the walk wants the newest first; guarded by mu
	stopped bool                // guarded by mu
	pending map[string]*listing // resolved path → queued listing not yet taken; guarded by mu
}

// newPrefetcher starts the goroutines of one walk; stop ends them.
func newPrefetcher(list func(h dirHandle) ([]fs.DirEntry, error)) *prefetcher {
	p := &prefetcher{list: list, pending: map[string]*listing{}}
	p.wake = sync.NewCond(&p.mu)
	workers := min(max(runtime.GOMAXPROCS(0), 2), maxPrefetchers)
	if runtime.GOMAXPROCS(0) < minParallelWalkProcs {
		workers = 0 // the walk lists each directory itself when it gets there (take)
	}
	for range workers {
		p.workers.Add(1)
		go p.run()
	}
	return p
}

// run serves listings, newest first (the walk is depth first, so the newest queued are the
// subdirectories it enters next), until stop.
func (p *prefetcher) run() {
	defer p.workers.Done()
	for {
		p.mu.Lock()
		for len(p.jobs) == 0 && !p.stopped {
			p.wake.Wait()
		}
		if p.stopped {
			p.mu.Unlock()
			return
		}
		l := p.jobs[len(p.jobs)-1]
		p.jobs = p.jobs[:len(p.jobs)-1]
		p.mu.Unlock()
		if l.taken.CompareAndSwap(false, true) {
			p.fill(l)
		}
	}
}

// fill lists l's directory and releases its parent.
func (p *prefetcher) fill(l *listing) {
	h, err := l.parent.h.child(l.name)
	l.parent.release()
	if err == nil {
		l.ents, l.err = p.list(h)
		l.sh = newShared(h)
	} else {
		l.err = err
	}
	close(l.done)
}

// queue lists the subdirectory name (resolved path real) of parent ahead of the walk, if the
// queue has room. Callers queue siblings last first, so the first is on top.
func (p *prefetcher) queue(parent *sharedHandle, name, real string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, dup := p.pending[real]; dup || len(p.jobs) >= prefetchQueue || p.stopped {
		return
	}
	parent.refs.Add(1)
	l := &listing{parent: parent, name: name, done: make(chan struct{})}
	p.pending[real] = l
	p.jobs = append(p.jobs, l)
	p.wake.Signal()
}

// take returns the listing of real if it was queued, listing it now when no prefetcher has
// started it; ok is false when it was not queued. The caller owns the returned handle.
func (p *prefetcher) take(real string) (sh *sharedHandle, ents []fs.DirEntry, err error, ok bool) {
	p.mu.Lock()
	l := p.pending[real]
	delete(p.pending, real)
	p.mu.Unlock()
	if l == nil {
		return nil, nil, nil, false
	}
	if l.taken.CompareAndSwap(false, true) {
		p.fill(l)
	}
	<-l.done
	return l.sh, l.ents, l.err, true
}

// stop ends the goroutines and releases every listing nobody took.
func (p *prefetcher) stop() {
	p.mu.Lock()
	p.stopped = true
	p.jobs = nil
	left := p.pending
	p.pending = nil
	p.wake.Broadcast()
	p.mu.Unlock()
	p.workers.Wait()
	for _, l := range left {
		if l.taken.CompareAndSwap(false, true) {
			l.parent.release()
			continue
		}
		<-l.done
		if l.sh != nil {
			l.sh.release()
		}
	}
}
