package engine

import (
	"github.com/fsbox/fsbox/engine/internal/commit"
	"github.com/fsbox/fsbox/engine/internal/relpath"
)

// lockParent takes the cross-process lock on the parent directory of r for a change computed
// under it (the read the change is based on and its commit); the caller passes it to commitFile
// as commitSpec.held and unlocks it after.
func (e *Engine) lockParent(c *call, r *resolved) (*commit.Lock, *Error) {
	dirRel, _ := relpath.Parent(r.rel)
	var l *commit.Lock
	var err error
	if f, ok := openDirFile(e, dirRel); ok {
		l, err = commit.LockFile(c.ctx, f)
	} else {
		// No descriptor walk here, or it failed: openParent says precisely why.
		dir, derr := e.openParent(c.tool, r, dirRel)
		if derr != nil {
			return nil, derr
		}
		defer dir.Close()
		l, err = commit.LockDir(c.ctx, dir)
	}
	if err != nil {
		return nil, e.lockError(c, c.tool, r, err)
	}
	return l, nil
}

// lockError maps a failure to take a directory lock for op on r: the call's cancellation while
// it waited, else a write error.
func (e *Engine) lockError(c *call, op string, r *resolved, err error) *Error {
	if c.ctx.Err() != nil {
		return cancelled(op, c.ctx.Err())
	}
	return e.writeError(op, r, err)
}
