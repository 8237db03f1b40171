package server

import (
	"testing"
	"time"
)

// TestIdleRelease pins when memory is given back: never while a request is at work, once after
// the last one ends, and again only after another request. The waits only bound the test
// (failsafe); what is asserted is the count of releases.
func TestIdleRelease(t *testing.T) {
	released := make(chan struct{}, 10)
	r := newIdleRelease(time.Millisecond)
	r.free = func() { released <- struct{}{} }

	r.begin()
	r.begin()
	r.end() // one still at work: nothing is armed
	select {
	case <-released:
		t.Fatal("released while a request was at work")
	case <-time.After(50 * time.Millisecond):
	}
	r.end()
	select {
	case <-released:
	case <-time.After(10 * time.Second):
		t.Fatal("not released after the last request ended")
	}
	select {
	case <-released:
		t.Fatal("released twice for one idle period")
	case <-time.After(50 * time.Millisecond):
	}
	r.begin()
	r.end()
	select {
	case <-released:
	case <-time.After(10 * time.Second):
		t.Fatal("not released after the next idle period began")
	}
	if newIdleRelease(0) != nil {
		t.Error("ReleaseWhenIdle 0 must disable the release")
	}
	var off *idleRelease
	off.begin() // a disabled release is a no-op
	off.end()
}
