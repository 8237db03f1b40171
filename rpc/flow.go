package rpc

import (
	"io"
	"runtime"
	"sync"
)

// Defaults of the bounds that keep a connection's memory flat. See "Backpressure" in the
// package documentation.
const (
	// DefaultMaxQueued is how many requests may wait for a slot, beyond the ones running.
	DefaultMaxQueued = 64
	// DefaultMaxOutputBytes bounds the output queued but not yet written (4 MiB).
	DefaultMaxOutputBytes = 4 << 20
)

// DefaultMaxConcurrent is the number of handlers at work at once when Options.MaxConcurrent is
// zero: twice GOMAXPROCS, at least 8 and at most 64. Tools are mostly I/O, so a few more than the
// cores keeps them busy; the bound is what keeps unanswered work, and its memory, finite.
func DefaultMaxConcurrent() int {
	return min(max(2*runtime.GOMAXPROCS(0), 8), 64)
}

// gate admits entries up to a count and a total size; enter waits for room. An entry alone is
// always admitted, whatever its size, so nothing waits forever on an empty gate.
type gate struct {
	maxN, maxBytes int

	mu    sync.Mutex
	n     int           // guarded by mu
	bytes int           // guarded by mu
	freed chan struct{} // guarded by mu: closed, and replaced, whenever an entry leaves
}

func newGate(maxN, maxBytes int) *gate {
	return &gate{maxN: maxN, maxBytes: maxBytes, freed: make(chan struct{})}
}

// enter waits until an entry of size fits, and counts it in; it reports false if stop is closed
// first.
func (g *gate) enter(size int, stop <-chan struct{}) bool {
	for {
		g.mu.Lock()
		if g.n == 0 || (g.n < g.maxN && g.bytes+size <= g.maxBytes) {
			g.n++
			g.bytes += size
			g.mu.Unlock()
			return true
		}
		freed := g.freed
		g.mu.Unlock()
		select {
		case <-freed:
		case <-stop:
			return false
		}
	}
}

// leave counts out an entry that enter let in.
func (g *gate) leave(size int) {
	g.mu.Lock()
	g.n--
	g.bytes -= size
	close(g.freed)
	g.freed = make(chan struct{})
	g.mu.Unlock()
}

// outbox is the queue of output lines and the one goroutine that writes them when the caller
// does not. A line is written whole by one Write, in the order lines were admitted.
//
// Two ways in: enqueue queues the line for the writing goroutine; reserve, used for a reply
// once its handler has returned, tells the caller to write the line itself (write)
// when nothing is queued or being written, which saves waking the writing goroutine on the
// common path of one request at a time. Both wait while the queue holds max bytes or more (a
// line alone always fits), so a peer that stops reading stops, in turn, every writer: handlers
// at their reply, the read loop at its next error reply. The bytes of a line count until its
// Write returns, so drain sees a reserved line too.
//
// It does not protect against a Write that never returns: the goroutine blocked in it (the
// writing goroutine, or a handler's after its reply was counted out) stays there after the
// connection closes, until the process exits or the peer reads.
type outbox struct {
	w   io.Writer
	max int

	mu      sync.Mutex
	lines   [][]byte      // guarded by mu: queued, oldest first
	bytes   int           // guarded by mu: queued bytes, the line being written included
	writing bool          // guarded by mu: a Write is under way (by the goroutine or a caller)
	err     error         // guarded by mu: the first write error; nothing is written after it
	changed chan struct{} // guarded by mu: closed, and replaced, on every change of the above
}

func newOutbox(w io.Writer, max int) *outbox {
	return &outbox{w: w, max: max, changed: make(chan struct{})}
}

// signal wakes every waiter. o.mu must be held.
func (o *outbox) signal() {
	close(o.changed)
	o.changed = make(chan struct{})
}

// enqueue queues line for the writing goroutine, waiting for room. It returns ErrClosed if
// closed is closed first, and the write error once a write has failed. The outbox owns line
// from then on.
func (o *outbox) enqueue(line []byte, closed <-chan struct{}) error {
	_, err := o.admit(line, closed, false)
	return err
}

// reserve admits line like enqueue, but reports direct when nothing is queued or being written:
// the caller must then write it with write, which it may do after counting itself out
// of whatever Serve waits for, since drain already counts the line.
func (o *outbox) reserve(line []byte, closed <-chan struct{}) (direct bool, err error) {
	return o.admit(line, closed, true)
}

func (o *outbox) admit(line []byte, closed <-chan struct{}, mayDirect bool) (bool, error) {
	o.mu.Lock()
	for {
		select {
		case <-closed:
			o.mu.Unlock()
			return false, ErrClosed
		default:
		}
		if o.err != nil {
			err := o.err
			o.mu.Unlock()
			return false, err
		}
		if o.bytes == 0 || o.bytes+len(line) <= o.max {
			break
		}
		changed := o.changed
		o.mu.Unlock()
		select {
		case <-changed:
		case <-closed:
		}
		o.mu.Lock()
	}
	o.bytes += len(line)
	if mayDirect && !o.writing && len(o.lines) == 0 {
		o.writing = true
		o.mu.Unlock()
		return true, nil
	}
	o.lines = append(o.lines, line)
	o.signal()
	o.mu.Unlock()
	return false, nil
}

// write writes one admitted line (o.writing set by the caller) and accounts for it.
func (o *outbox) write(line []byte, closed <-chan struct{}, fail func() error) bool {
	var err error
	select {
	case <-closed:
	default:
		_, err = o.w.Write(line)
	}
	o.mu.Lock()
	o.bytes -= len(line)
	o.writing = false
	if err != nil && o.err == nil {
		o.err = err
	}
	o.signal()
	o.mu.Unlock()
	putLine(line)
	if err != nil {
		fail()
		return false
	}
	return true
}

// run writes queued lines until closed is closed or a write fails; then it calls fail (for a
// write error) and returns. Lines still queued when closed is closed are dropped.
func (o *outbox) run(closed <-chan struct{}, fail func() error) {
	for {
		o.mu.Lock()
		for len(o.lines) == 0 || o.writing {
			changed := o.changed
			o.mu.Unlock()
			select {
			case <-changed:
			case <-closed:
				return
			}
			o.mu.Lock()
		}
		line := o.lines[0]
		o.lines[0] = nil
		o.lines = o.lines[1:]
		o.writing = true
		o.mu.Unlock()
		select {
		case <-closed:
			return
		default:
		}
		if !o.write(line, closed, fail) {
			return
		}
	}
}

// drain waits until everything queued is written, or a write has failed, and reports true; or
// reports false if stop or closed is closed first.
func (o *outbox) drain(stop <-chan struct{}, closed <-chan struct{}) bool {
	for {
		o.mu.Lock()
		done := o.bytes == 0 || o.err != nil
		changed := o.changed
		o.mu.Unlock()
		if done {
			return true
		}
		select {
		case <-changed:
		case <-stop:
			return false
		case <-closed:
			return false
		}
	}
}

// linePool holds output line buffers for reuse; a line bigger than keepBufferBytes is not kept.
var linePool = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

// getLine returns an empty buffer for an output line.
func getLine() []byte { return (*linePool.Get().(*[]byte))[:0] }

// putLine gives a written line's buffer back to the pool.
func putLine(line []byte) {
	if cap(line) == 0 || cap(line) > keepBufferBytes {
		return
	}
	line = line[:0]
	linePool.Put(&line)
}

// alone reports whether at most one entry is in: the caller's own, nobody waiting before it.
func (g *gate) alone() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.n <= 1
}
