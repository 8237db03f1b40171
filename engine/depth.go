package engine

import (
	"io/fs"
	"sync/atomic"
	"syscall"
)

// errRootGone reports that the root directory was deleted while the engine runs (the Linux
// descriptor walk detects it); it is a not-exist error.
var errRootGone = &fs.PathError{Op: "open", Path: ".", Err: syscall.ENOENT}

// cancelCheckEvery is how many components a long resolution or creation handles between checks
// of the call's context. The limits on the paths one call resolves or creates are relpath's
// (relpath.MaxBytes, relpath.MaxComponents).
const cancelCheckEvery = 32

// componentSteps counts the per-component steps (one open, stat or mkdir of a single name) of
// resolution and creation. Tests read it to prove the work is linear in the path's depth; it
// costs one atomic add per component.
var componentSteps atomic.Int64
