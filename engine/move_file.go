package engine

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/fsbox/fsbox/engine/internal/fserr"
	"github.com/fsbox/fsbox/schema"
)

// errCrossDirRename is the portable renameAt's refusal of a rename between two directory handles;
// moveFile then renames through the root by path.
var errCrossDirRename = errors.New("rename between directories needs descriptor-relative renameat")

// moveFile serves move_file. Order of checks (nothing is announced or moved when one fails):
//
//  1. both ends resolve inside the root, parents followed and last names taken literally (a
//     symlink moves as a link); the root is neither source nor destination;
//  2. write-level access on both ends; for a directory, on every entry of its tree at its old
//     and at its new path (see [treeScan]); an interrupt rule on either end or any entry asks;
//  3. the source exists; the destination's parent exists and is a directory (parent_missing);
//     the destination is absent, or with overwrite: true a non-directory replaced by a
//     non-directory (already_exists otherwise); a directory moved into itself is refused;
//  4. the move is announced (operation "move", path the destination, a git rename diff);
//  5. under both paths' locks, both ends are re-resolved and must be the files checked; then one
//     renameat between the two parents' descriptors (opened one O_NOFOLLOW component at a time,
//     so a parent swapped for a symlink is never followed), with RENAME_NOREPLACE unless
//     overwriting. A move across filesystems is cross_device: it could not be atomic.
//
// Entries added to a moved directory's tree between the check and the rename move with it
// unchecked; every entry checked is at a path that was checked at both ends.
func (e *Engine) moveFile(c *call, a *schema.MoveFileArgs) (*schema.MoveFileResult, error) {
	src, err := e.resolveEntry(c.tool, a.Source)
	if err != nil {
		return nil, err
	}
	dst, err := e.resolveEntry(c.tool, a.Destination)
	if err != nil {
		if err.Kind == schema.KindNotFound {
			return nil, fserr.Errorf(c.tool, err.Path, schema.KindParentMissing, "Parent directory of %s does not exist. %s", fserr.PyRepr(a.Destination), e.mkdirHint())
		}
		return nil, err
	}
	rule, err := e.checkWrite(c.tool, src.r)
	if err != nil {
		return nil, err
	}
	dstRule, err := e.checkWrite(c.tool, dst.r)
	if err != nil {
		return nil, err
	}
	if rule == nil {
		rule = dstRule
	}
	unlock := e.lockPair(src.r.rel, dst.r.rel)
	defer unlock()
	if err := e.movable(c.tool, src, dst, a); err != nil {
		return nil, err
	}
	if src.r.info.IsDir() {
		s := &treeScan{e: e, op: c.tool, top: src, rule: rule, dest: dst.r}
		if _, serr := s.scan(); serr != nil {
			return nil, serr
		}
		rule = s.rule
	}
	res := &schema.MoveFileResult{Source: e.displayOf(src.r), Destination: e.displayOf(dst.r)}
	diff := fmt.Sprintf("diff --git a/%s b/%s\nrename from %s\nrename to %s\n", src.r.rel, dst.r.rel, src.r.rel, dst.r.rel)
	_, stop, aerr := e.ask(c, proposal{op: "move", rel: dst.r.rel, diff: diff, rule: rule, verb: "moved", refused: src.r.rel}, &res.Text, &res.ChangeOutcome)
	if stop {
		return res, aerr
	}
	res.ModifiedByReviewer = c.reviewed()
	if src, err = e.recheck(c.tool, src); err != nil {
		return nil, err
	}
	if dst, err = e.recheck(c.tool, dst); err != nil {
		return nil, err
	}
	if err := e.rename(c, src, dst); err != nil {
		return nil, err
	}
	c.emit(&schema.FileMovedEvent{EventBase: e.base(c, schema.KindFileMoved, dst.r.rel), Source: src.r.rel, ModifiedByReviewer: res.ModifiedByReviewer})
	res.Overwritten = dst.r.exists
	res.Text = fmt.Sprintf("Moved %s to %s.", a.Source, a.Destination)
	if res.Overwritten {
		res.Text = fmt.Sprintf("Moved %s to %s, replacing the file that was there.", a.Source, a.Destination)
	}
	if res.ModifiedByReviewer {
		res.Text += reviewNote
	}
	return res, nil
}

// movable is step 3 of moveFile.
func (e *Engine) movable(op string, src, dst *entryTarget, a *schema.MoveFileArgs) *Error {
	switch {
	case !src.r.exists:
		return fserr.Errorf(op, src.r.rel, schema.KindNotFound, "Path not found: %s", a.Source)
	case src.r.rel == dst.r.rel:
		return fserr.Errorf(op, src.r.rel, schema.KindInvalidArguments, "Source and destination are the same path %s.", fserr.PyRepr(a.Source))
	case src.r.info.IsDir() && isUnder(dst.r.rel, src.r.rel):
		return fserr.Errorf(op, dst.r.rel, schema.KindInvalidArguments, "Cannot move directory %s into itself.", fserr.PyRepr(a.Source))
	}
	if !dst.r.exists {
		return nil
	}
	switch {
	case dst.r.info.IsDir():
		return fserr.Errorf(op, dst.r.rel, schema.KindAlreadyExists, "Destination %s is an existing directory. Name the new path itself, including the file name.", fserr.PyRepr(a.Destination))
	case !a.Overwrite:
		return fserr.Errorf(op, dst.r.rel, schema.KindAlreadyExists, "Destination %s already exists. Pass overwrite: true to replace it.", fserr.PyRepr(a.Destination))
	case src.r.info.IsDir():
		return fserr.Errorf(op, dst.r.rel, schema.KindAlreadyExists, "Destination %s is a file; a directory cannot replace it.", fserr.PyRepr(a.Destination))
	}
	return nil
}

// isUnder reports whether rel is below dir (not dir itself).
func isUnder(rel, dir string) bool {
	return len(rel) > len(dir) && rel[:len(dir)] == dir && rel[len(dir)] == '/'
}

// lockPair takes the per-path locks of two paths in a fixed order, so two moves in opposite
// directions cannot deadlock.
func (e *Engine) lockPair(a, b string) (unlock func()) {
	if a == b {
		return e.locks.lock(a)
	}
	if b < a {
		a, b = b, a
	}
	ua := e.locks.lock(a)
	ub := e.locks.lock(b)
	return func() { ub(); ua() }
}

// rename is step 5 of moveFile. A destination name that could complete a git directory is
// renamed to under its directory's lock, after the git rule's check (execprotect.go).
func (e *Engine) rename(c *call, src, dst *entryTarget) *Error {
	op := c.tool
	from, err := openDirHandle(e, src.parent, nil)
	if err != nil {
		return errChanged(op, src.r)
	}
	defer from.close()
	to, err := openDirHandle(e, dst.parent, nil)
	if err != nil {
		return errChanged(op, dst.r)
	}
	defer to.close()
	unlock, lerr := e.gitMemberLock(c, to, dst.name)
	if lerr != nil {
		return e.lockError(c, op, dst.r, lerr)
	}
	if unlock != nil {
		defer unlock()
		if gitDirCompletedAt(to, dst.name) {
			return errGitDirCompleted(op, dst.r)
		}
	}
	if fi, err := from.lstat(src.name); err != nil || !sameEntry(fi, src.r.info) {
		return errChanged(op, src.r)
	}
	fi, lerr := to.lstat(dst.name)
	switch {
	case dst.r.exists && (lerr != nil || !sameEntry(fi, dst.r.info)):
		return errChanged(op, dst.r)
	case !dst.r.exists && lerr == nil:
		return fserr.Errorf(op, dst.r.rel, schema.KindAlreadyExists, "Destination %s appeared meanwhile. Look at it and retry.", fserr.PyRepr(dst.r.spelling))
	}
	var rerr error
	jp, jerr := e.journalMove(c, from, src, to, dst) // journal_record.go
	if jerr != nil {
		return jerr
	}
	defer func() { jp.settle(rerr == nil) }()
	if dst.r.exists {
		rerr = renameAt(from, src.name, to, dst.name)
	} else {
		rerr = renameNoReplace(from, src.name, to, dst.name)
		if errors.Is(rerr, syscall.EINVAL) {
			// No RENAME_NOREPLACE on this filesystem: the absence was checked just above.
			rerr = renameAt(from, src.name, to, dst.name)
		}
	}
	if errors.Is(rerr, errCrossDirRename) {
		// The portable fallback renames by path inside one os.Root: the root's or one mount's.
		sroot, ssub, _ := e.rootFor(src.r.rel)
		droot, dsub, _ := e.rootFor(dst.r.rel)
		if sroot == droot {
			rerr = sroot.Rename(ssub, dsub)
		} else {
			rerr = syscall.EXDEV
		}
	}
	switch {
	case rerr == nil:
		return nil
	case errors.Is(rerr, syscall.EXDEV):
		return fserr.Errorf(op, dst.r.rel, schema.KindCrossDevice, "Cannot move %s to %s: they are on different filesystems (across devices), so the move cannot be atomic. Copy the content with write_file instead.",
			fserr.PyRepr(src.r.spelling), fserr.PyRepr(dst.r.spelling))
	case errors.Is(rerr, syscall.EEXIST):
		return fserr.Errorf(op, dst.r.rel, schema.KindAlreadyExists, "Destination %s appeared meanwhile. Look at it and retry.", fserr.PyRepr(dst.r.spelling))
	}
	return e.writeError(op, dst.r, rerr)
}
