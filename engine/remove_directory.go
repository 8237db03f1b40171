package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"

	"github.com/fsbox/fsbox/engine/internal/fserr"
	"github.com/fsbox/fsbox/engine/internal/relpath"
	"github.com/fsbox/fsbox/schema"
)

// entryTarget is a path whose last name is taken literally (a symlink there is the link itself,
// never its target): what remove_directory, delete and move_file act on.
type entryTarget struct {
	r      *resolved // rel is the parent's resolved path plus the literal name; info is the Lstat (may be a symlink)
	parent string    // root-relative resolved parent directory
	name   string    // the last name
}

// resolveEntry resolves p's parent like resolve (following symlinks, contained) and appends the
// last name without following it, then lstats that entry by descriptor. A spelling whose last
// name is "." or ".." (or that names the root) is resolved whole. The root itself is refused:
// nothing may remove or move it.
func (e *Engine) resolveEntry(op, p string) (*entryTarget, *Error) {
	trimmed := strings.TrimRight(p, "/")
	dirSlash := trimmed != p
	i := strings.LastIndexByte(trimmed, '/')
	base, dirSpell := trimmed, "."
	if i >= 0 {
		base, dirSpell = trimmed[i+1:], trimmed[:i]
		if dirSpell == "" {
			dirSpell = "/"
		}
	}
	var t *entryTarget
	if base != "" && base != "." && base != ".." && strings.IndexByte(p, 0) < 0 {
		d, err := e.resolve(op, dirSpell)
		switch {
		case err == nil && (!d.exists || !d.info.IsDir()):
			if !d.exists {
				return nil, fserr.Errorf(op, d.rel, schema.KindNotFound, "Path not found: %s", p)
			}
			return nil, fserr.Errorf(op, d.rel, schema.KindParentNotDirectory, "Path %s has a parent that is not a directory.", fserr.PyRepr(p))
		case err == nil:
			r := &resolved{spelling: p, rel: relpath.Join(append(relpath.Split(d.rel), base)), dirSlash: dirSlash}
			if d.lexical != "" {
				r.lexical = relpath.Join(append(relpath.Split(d.lexical), base))
			}
			t = &entryTarget{r: r, parent: d.rel, name: base}
		case err.Kind != schema.KindOutsideRoot:
			return nil, err
		}
	}
	if t == nil {
		// "." / ".." endings, or an absolute spelling of the root or of a path whose parent is
		// spelled through a foreign prefix: resolve whole (the last name is then not a link).
		r, err := e.resolve(op, p)
		if err != nil {
			return nil, err
		}
		dir, name := relpath.Parent(r.rel)
		t = &entryTarget{r: r, parent: dir, name: name}
	}
	if t.r.rel == "." {
		return nil, fserr.Errorf(op, ".", schema.KindInvalidArguments, "Path %s is the workspace root, which cannot be changed by %s.", fserr.PyRepr(p), op)
	}
	if e.mounts.guards(t.r.rel) {
		return nil, errMountPoint(op, t.r)
	}
	fi, err := t.lstat(e)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case errors.Is(err, errDirSwapped):
		return nil, errChanged(op, t.r)
	case err != nil:
		return nil, fserr.FromOS(op, t.r.rel, p, err)
	default:
		t.r.exists, t.r.info = true, fi
	}
	if dirSlash && t.r.exists && !fi.IsDir() {
		return nil, fserr.Errorf(op, t.r.rel, schema.KindNotADirectory, "Path %s ends in '/' but is not a directory.", fserr.PyRepr(p))
	}
	return t, nil
}

// lstat stats the entry by descriptor: its parent opened from the root one O_NOFOLLOW component
// at a time, then fstatat without following the name.
func (t *entryTarget) lstat(e *Engine) (fs.FileInfo, error) {
	h, err := openDirHandle(e, t.parent, nil)
	if err != nil {
		if errors.Is(err, syscall.ENOENT) {
			return nil, fs.ErrNotExist
		}
		return nil, err
	}
	defer h.close()
	return h.lstat(t.name)
}

// recheck re-resolves the entry after the change was announced (under its lock) and requires the
// same resolved path, the same file and the write-level access again.
func (e *Engine) recheck(op string, t *entryTarget) (*entryTarget, *Error) {
	again, err := e.resolveEntry(op, t.r.spelling)
	if err != nil {
		return nil, err
	}
	if again.r.rel != t.r.rel || again.r.exists != t.r.exists || t.r.exists && !sameEntry(again.r.info, t.r.info) {
		return nil, fserr.Errorf(op, t.r.rel, schema.KindChangedDuringRequest, "Path %s was replaced while the change was announced. Retry.", fserr.PyRepr(t.r.spelling))
	}
	if _, err := e.checkWrite(op, again.r); err != nil {
		return nil, err
	}
	return again, nil
}

// lockEntryForWrite is the prologue remove_directory and delete share: resolve p's entry (its
// last name not followed), check write-level access to it, and take its per-path lock. The
// returned interrupt rule, if any, must be announced; unlock releases the lock.
func (e *Engine) lockEntryForWrite(op, p string) (*entryTarget, *schema.PermissionRule, func(), *Error) {
	t, rerr := e.resolveEntry(op, p)
	if rerr != nil {
		return nil, nil, nil, rerr
	}
	rule, cerr := e.checkWrite(op, t.r)
	if cerr != nil {
		return nil, nil, nil, cerr
	}
	return t, rule, e.locks.lock(t.r.rel), nil
}

// removeDirectory serves remove_directory. Order of checks (nothing is announced or removed
// when one fails): resolution of the parent and containment (the last name is not followed, so
// a symlink is not_a_directory, never its target), the root (never removable), write-level
// access, existence, type, emptiness (directory_not_empty, dot-entries included); then the
// announcement, and under the path's lock a re-check and rmdir relative to the parent's
// descriptor, which the kernel refuses for a directory that gained an entry meanwhile.
func (e *Engine) removeDirectory(c *call, a *schema.RemoveDirectoryArgs) (*schema.RemoveDirectoryResult, error) {
	t, rule, unlock, perr := e.lockEntryForWrite(c.tool, a.Path)
	if perr != nil {
		return nil, perr
	}
	defer unlock()
	switch {
	case !t.r.exists:
		return nil, fserr.Errorf(c.tool, t.r.rel, schema.KindNotFound, "Directory not found: %s", a.Path)
	case !t.r.info.IsDir():
		return nil, fserr.Errorf(c.tool, t.r.rel, schema.KindNotADirectory, "Path %s is not a directory. Use delete for files and links.", fserr.PyRepr(a.Path))
	}
	if n, err := e.countEntries(c.tool, t); err != nil {
		return nil, err
	} else if n > 0 {
		return nil, errNotEmpty(c.tool, t, n, e.enabled[schema.ToolDelete])
	}
	res := &schema.RemoveDirectoryResult{Path: e.displayOf(t.r), Text: "Removed directory: " + a.Path}
	_, stop, aerr := e.ask(c, proposal{op: "remove_directory", rel: t.r.rel, rule: rule, verb: "removed"}, &res.Text, &res.ChangeOutcome)
	if stop {
		return res, aerr
	}
	t, rerr := e.recheck(c.tool, t)
	if rerr != nil {
		return nil, rerr
	}
	if err := e.journalUnlink(c, t, true); err != nil {
		if err.Kind == schema.KindDirectoryNotEmpty {
			return nil, errNotEmpty(c.tool, t, 0, e.enabled[schema.ToolDelete])
		}
		return nil, err
	}
	c.emit(&schema.DirectoryRemovedEvent{EventBase: e.base(c, schema.KindDirectoryRemoved, t.r.rel)})
	return res, nil
}

// countEntries counts the entries of the directory t, dot-entries included, by descriptor.
func (e *Engine) countEntries(op string, t *entryTarget) (int, *Error) {
	h, err := openDirHandle(e, t.r.rel, t.r.info)
	if err != nil {
		if errors.Is(err, errDirSwapped) {
			return 0, errChanged(op, t.r)
		}
		return 0, fserr.FromOS(op, t.r.rel, t.r.spelling, err)
	}
	defer h.close()
	ents, err := h.list()
	if err != nil {
		return 0, fserr.FromOS(op, t.r.rel, t.r.spelling, err)
	}
	n := 0
	for _, de := range ents {
		if de.Name() != "." && de.Name() != ".." {
			n++
		}
	}
	return n, nil
}

// unlinkEntry removes t's entry relative to its parent's descriptor after checking, on that
// descriptor, that the entry is still the file announced (a swap since is changed_during_request).
func (e *Engine) unlinkEntry(op string, t *entryTarget, dir bool) *Error {
	h, err := openDirHandle(e, t.parent, nil)
	if err != nil {
		return errChanged(op, t.r)
	}
	defer h.close()
	fi, err := h.lstat(t.name)
	if err != nil || !sameEntry(fi, t.r.info) {
		return errChanged(op, t.r)
	}
	if err := h.unlink(t.name, dir); err != nil {
		return e.writeError(op, t.r, err)
	}
	return nil
}

// errNotEmpty is remove_directory's refusal of a directory with entries (n > 0 when counted).
func errNotEmpty(op string, t *entryTarget, n int, deleteEnabled bool) *Error {
	hint := "Remove its entries first."
	if deleteEnabled {
		hint = "Use delete with recursive: true to remove it with its contents."
	}
	if n > 0 {
		return fserr.Errorf(op, t.r.rel, schema.KindDirectoryNotEmpty, "Directory %s is not empty (%s). %s", fserr.PyRepr(t.r.spelling), plural(n, "entry", "entries"), hint)
	}
	return fserr.Errorf(op, t.r.rel, schema.KindDirectoryNotEmpty, "Directory %s is not empty. %s", fserr.PyRepr(t.r.spelling), hint)
}

// plural formats n with the singular or plural noun.
func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
