package server

import (
	"runtime/debug"
	"sync"
	"time"
)

// idleRelease returns the memory the garbage collector has freed to the operating system once
// no request has been at work for a while. A server tuned to collect rarely (fsbox serve raises
// GOGC) keeps the heap of its busiest moment otherwise, and an idle server should be small.
// It costs one full collection per idle period, never one per call. It does not shrink what is
// still in use: the engine's state and the runtime's own.
type idleRelease struct {
	after time.Duration
	free  func() // debug.FreeOSMemory; replaced in tests

	mu      sync.Mutex
	running int         // guarded by mu: requests at work, across sessions
	timer   *time.Timer // guarded by mu: armed while idle and not yet released
}

func newIdleRelease(after time.Duration) *idleRelease {
	if after <= 0 {
		return nil
	}
	return &idleRelease{after: after, free: debug.FreeOSMemory}
}

// begin counts a request in; it disarms the release.
func (r *idleRelease) begin() {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.running++
	if r.timer != nil {
		r.timer.Stop()
	}
	r.mu.Unlock()
}

// end counts a request out; the last one arms the release.
func (r *idleRelease) end() {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.running--
	if r.running > 0 {
		return
	}
	if r.timer == nil {
		r.timer = time.AfterFunc(r.after, r.fire)
	} else {
		r.timer.Reset(r.after)
	}
}

// fire releases memory unless a request began since the timer was armed.
func (r *idleRelease) fire() {
	r.mu.Lock()
	busy := r.running > 0
	r.mu.Unlock()
	if !busy {
		r.free()
	}
}
