package engine

import (
	"errors"
	"io/fs"

	"github.com/fsbox/fsbox/engine/internal/fserr"
	"github.com/fsbox/fsbox/engine/internal/relpath"
	"github.com/fsbox/fsbox/schema"
)

// createDirectory serves create_directory: mkdir -p inside the root. An existing directory is a
// success with no announcement and no event; anything else in the way is refused before the
// change is announced.
func (e *Engine) createDirectory(c *call, a *schema.CreateDirectoryArgs) (*schema.CreateDirectoryResult, error) {
	r, rule, rerr := e.resolveFor(c.tool, a.Path, accessWrite)
	if rerr != nil {
		return nil, rerr
	}
	res := &schema.CreateDirectoryResult{Path: e.displayOf(r), Text: "Created directory: " + a.Path}
	if c.reviewed() {
		res.ModifiedByReviewer = true
		res.Text += reviewNote
	}
	if r.exists {
		if r.info.IsDir() {
			return res, nil
		}
		return nil, errExistsNotDir(c.tool, r)
	}
	_, stop, err := e.ask(c, proposal{op: "create_directory", rel: r.rel, rule: rule, verb: "created"}, &res.Text, &res.ChangeOutcome)
	if stop {
		return res, err
	}
	created, merr := e.mkdirAll(c, r)
	if merr != nil {
		return nil, merr
	}
	if created {
		c.emit(&schema.DirectoryCreatedEvent{EventBase: e.base(c, schema.KindDirectoryCreated, r.rel), ModifiedByReviewer: res.ModifiedByReviewer})
	}
	res.Created = created
	return res, nil
}

// mkdirAll creates r's resolved path component by component and reports whether it created the
// final directory (a directory that appeared meanwhile is a success without an event).
//
// It walks by descriptor from the root (see dirHandle): each existing component is opened with
// O_NOFOLLOW|O_DIRECTORY relative to its parent's descriptor, and each missing one is created
// with mkdirat on that same descriptor and then opened the same way. A component swapped for a
// symlink at any moment (to a denied or protected directory, say) fails the open, and the call
// ends with changed_during_request; nothing is ever created through it. The walk costs one
// open (and at most one mkdir) per component, and it stops when the call's context is cancelled.
//
// On systems without the Linux descriptor walk (walk_fd_other.go) each step goes through an
// os.Root opened on the parent, which stays inside the root but follows an in-root symlink
// swapped in between the resolution and the step: there a race can redirect the creation to
// another directory inside the root, never outside it.
func (e *Engine) mkdirAll(c *call, r *resolved) (bool, *Error) {
	op := c.tool
	unlock := e.locks.lock(r.rel)
	defer unlock()
	again, rerr := e.resolve(op, r.spelling)
	if rerr != nil {
		return false, rerr
	}
	if again.rel != r.rel {
		return false, fserr.Errorf(op, r.rel, schema.KindChangedDuringRequest, "Path %s was replaced while the change was announced. Retry.", fserr.PyRepr(r.spelling))
	}
	if _, err := e.checkWrite(op, again); err != nil {
		return false, err
	}
	h, err := openDirHandle(e, ".", nil)
	if err != nil {
		return false, e.writeError(op, r, err)
	}
	defer func() { h.close() }()
	comps := relpath.Split(r.rel)
	created := false
	var refused *Error
	for i, name := range comps {
		if i%cancelCheckEvery == 0 {
			if cerr := c.ctx.Err(); cerr != nil {
				return false, cancelled(op, cerr)
			}
		}
		leaf := i == len(comps)-1
		next, err := h.child(name)
		if errors.Is(err, fs.ErrNotExist) {
			jp, jerr := e.journalMkdir(c, relpath.Join(comps[:i+1])) // journal_record.go
			if jerr != nil {
				return false, jerr
			}
			merr := e.mkdirChecked(c, r, h, comps[:i+1])
			jp.settle(merr == nil)
			switch {
			case merr == nil:
				created = leaf
				componentSteps.Add(1)
			case errors.Is(merr, fs.ErrExist):
				created = false
			case errors.As(merr, &refused):
				return false, refused
			default:
				return false, e.writeError(op, r, merr)
			}
			next, err = h.child(name)
		}
		if err != nil {
			return false, e.mkdirStepError(op, r, h, relpath.Join(comps[:i+1]), name, leaf, err)
		}
		componentSteps.Add(1)
		h.close()
		h = next
	}
	return created, nil
}

// mkdirChecked creates the last of comps below h, the directory of the ones before it; a name
// that could complete a git directory is created under that directory's lock, after the git
// rule's check (execprotect.go).
func (e *Engine) mkdirChecked(c *call, r *resolved, h dirHandle, comps []string) error {
	name := comps[len(comps)-1]
	unlock, err := e.gitMemberLock(c, h, name)
	if err != nil {
		if c.ctx.Err() != nil {
			return cancelled(c.tool, c.ctx.Err())
		}
		return err
	}
	if unlock != nil {
		defer unlock()
		if gitDirCompletedAt(h, name) {
			if p := relpath.Join(comps); p != r.rel {
				r = &resolved{rel: p, lexical: p, spelling: p}
			}
			return errGitDirCompleted(c.tool, r)
		}
	}
	return h.mkdir(name)
}

// mkdirStepError classifies a failed open of the component name (root-relative p) below h: a
// symlink or a directory that vanished is a swap (changed_during_request), a non-directory is
// already_exists for the leaf and parent_not_directory above it.
func (e *Engine) mkdirStepError(op string, r *resolved, h dirHandle, p, name string, leaf bool, err error) *Error {
	fi, lerr := h.lstat(name)
	switch {
	case lerr != nil || fi.Mode()&fs.ModeSymlink != 0 || fi.IsDir():
		return errChanged(op, r)
	case leaf:
		return errExistsNotDir(op, r)
	default:
		return fserr.Errorf(op, p, schema.KindParentNotDirectory, "Path %s has a parent that is not a directory.", fserr.PyRepr(r.spelling))
	}
}

// errExistsNotDir is the error for a create_directory whose path is taken by something else.
func errExistsNotDir(op string, r *resolved) *Error {
	return fserr.Errorf(op, r.rel, schema.KindAlreadyExists, "Path %s exists and is not a directory.", fserr.PyRepr(r.spelling))
}
