package engine

import (
	"io/fs"
	"sync/atomic"
	"syscall"
)

// errRootGone reports that the root directory was deleted while the engine runs (the Linux
// descriptor walk detects it); it is a not-exist error.
var errRootGone = &fs.PathError{Op: "open", Path: ".", Err: syscall.ENOENT}

// Limits on the paths one call resolves or creates. Every step of resolution and creation is one
// system call per component, so these bound the work (and the descriptors) of a single call.
const (
	// maxPathBytes is PATH_MAX on Linux: longer paths cannot be passed to the kernel in one call,
	// and most tools (git, tar, editors) fail on them, so no real tree needs more.
	maxPathBytes = 4096
	// maxPathComponents bounds the components of a path after cwd is joined and symlinks are
	// expanded: 2048 is the most a maxPathBytes path can hold ("d/d/…"), so every path the
	// kernel could take whole is accepted, while symlinks cannot expand one beyond it. Real
	// source trees are rarely 30 deep.
	maxPathComponents = 2048
	// cancelCheckEvery is how many components a long resolution or creation handles between
	// checks of the call's context.
	cancelCheckEvery = 32
)

// componentSteps counts the per-component steps (one open, stat or mkdir of a single name) of
// resolution and creation. Tests read it to prove the work is linear in the path's depth; it
// costs one atomic add per component.
var componentSteps atomic.Int64
