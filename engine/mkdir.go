package engine

import (
	"errors"
	"io/fs"

	"github.com/fsbox/fsbox/schema"
)

func init() {
	register(schema.ToolCreateDirectory, tool((*Engine).createDirectory))
}

// createDirectory serves create_directory: mkdir -p inside the root. An existing directory is a
// success with no announcement and no event; anything else in the way is refused before the
// change is announced.
func (e *Engine) createDirectory(c *call, a *schema.CreateDirectoryArgs) (*schema.CreateDirectoryResult, error) {
	r, rule, rerr := e.resolveFor(c.tool, a.Path, accessWrite)
	if rerr != nil {
		return nil, rerr
	}
	res := &schema.CreateDirectoryResult{Path: e.displayOf(r), Text: "Created directory: " + a.Path}
	if r.exists {
		if r.info.IsDir() {
			return res, nil
		}
		return nil, errExistsNotDir(c.tool, r)
	}
	ann, err := e.announce(c, "create_directory", r.rel, "", false, rule)
	if err != nil {
		return nil, err
	}
	if ann.cancelled {
		res.Text, res.ChangeOutcome = ann.refused(r.rel, "created")
		return res, nil
	}
	created, merr := e.mkdirAll(c.tool, r)
	if merr != nil {
		return nil, merr
	}
	if created {
		c.emit(&schema.DirectoryCreatedEvent{EventBase: e.base(c, schema.KindDirectoryCreated, r.rel)})
	}
	res.Created = created
	return res, nil
}

// mkdirAll creates r's resolved path component by component, never through a symlink that
// appeared since the resolution, and reports whether it created the final directory (a
// directory that appeared meanwhile is a success without an event).
func (e *Engine) mkdirAll(op string, r *resolved) (bool, *Error) {
	unlock := e.locks.lock(r.rel)
	defer unlock()
	again, rerr := e.resolve(op, r.spelling)
	if rerr != nil {
		return false, rerr
	}
	if again.rel != r.rel {
		return false, errorf(op, r.rel, kindChanged, "Path %s was replaced while the change was announced. Retry.", pyRepr(r.spelling))
	}
	if _, err := e.checkWrite(op, again); err != nil {
		return false, err
	}
	comps := splitPath(r.rel)
	created := false
	for i := range comps {
		p := joinRel(comps[:i+1])
		leaf := i == len(comps)-1
		fi, err := e.root.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			err = e.root.Mkdir(p, 0o777)
			if err == nil {
				created = leaf
				continue
			}
			if !errors.Is(err, fs.ErrExist) {
				return false, e.writeError(op, r, err)
			}
			created = false
			fi, err = e.root.Lstat(p)
		}
		switch {
		case err != nil:
			return false, osError(op, p, r.spelling, err)
		case fi.Mode()&fs.ModeSymlink != 0:
			return false, errChanged(op, r)
		case !fi.IsDir() && leaf:
			return false, errExistsNotDir(op, r)
		case !fi.IsDir():
			return false, errorf(op, p, kindParentNotDirectory, "Path %s has a parent that is not a directory.", pyRepr(r.spelling))
		}
	}
	return created, nil
}

// errExistsNotDir is the error for a create_directory whose path is taken by something else.
func errExistsNotDir(op string, r *resolved) *Error {
	return errorf(op, r.rel, kindAlreadyExists, "Path %s exists and is not a directory.", pyRepr(r.spelling))
}
