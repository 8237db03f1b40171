package engine

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"syscall"

	"github.com/fsbox/fsbox/engine/internal/fserr"
	"github.com/fsbox/fsbox/engine/internal/text"
	"github.com/fsbox/fsbox/engine/internal/textdiff"
	"github.com/fsbox/fsbox/schema"
)

// Bounds of one recursive delete: a bigger tree is refused (too_many_entries) before anything is
// announced or removed, so the check of every entry and the descriptors held while removing stay
// bounded.
const (
	maxDeleteEntries = 10000
	maxDeleteDepth   = 256
)

// treeNode is one entry of a directory tree as checked: its name, its Lstat (identity) and, for
// a directory, its entries by name.
type treeNode struct {
	name     string
	info     fs.FileInfo
	children map[string]*treeNode // nil for a non-directory
}

// deleteEntry serves delete. Order of checks (nothing is announced or removed when one fails):
//
//  1. resolution of the parent and containment; the last name is not followed, so a symlink
//     (to inside or outside the root) is removed as a link and its target is never touched;
//  2. the root is refused; write-level access to the target (protected, denied, allowed
//     patterns, permission rules);
//  3. a directory needs recursive: true; its tree is then walked by descriptor (O_NOFOLLOW at
//     every level, symlinks inside are entries, never followed) and every entry, dot-entries
//     included, must pass the write-level check: one protected, denied, not allowed or
//     deny-ruled entry refuses the whole delete. More than maxDeleteEntries entries or
//     maxDeleteDepth levels is too_many_entries;
//  4. the change is announced once for the whole tree: with reason permission_rule when an
//     interrupt rule covers the target or any entry (a denial without change requests);
//  5. under the target's lock it is re-resolved and must be the same file; each directory is
//     reopened by descriptor and must be the one checked, list exactly the entries checked (same
//     names, same files), and only then are its entries unlinked relative to its descriptor.
//     Anything added, removed or swapped meanwhile is changed_during_request: an unchecked
//     entry is never removed, though entries removed before the change was seen stay removed.
func (e *Engine) deleteEntry(c *call, a *schema.DeleteArgs) (*schema.DeleteResult, error) {
	t, rule, unlock, perr := e.lockEntryForWrite(c.tool, a.Path)
	if perr != nil {
		return nil, perr
	}
	defer unlock()
	if !t.r.exists {
		return nil, fserr.Errorf(c.tool, t.r.rel, schema.KindNotFound, "Path not found: %s", a.Path)
	}
	isDir := t.r.info.IsDir()
	var tree *treeNode
	count := 1
	diff, truncated := "", false
	if isDir {
		if !a.Recursive {
			return nil, fserr.Errorf(c.tool, t.r.rel, schema.KindNotAFile,
				"Path %s is a directory. Pass recursive: true to delete it with everything in it.", fserr.PyRepr(a.Path))
		}
		s := &treeScan{e: e, op: c.tool, top: t, rule: rule}
		var serr *Error
		if tree, serr = s.scan(); serr != nil {
			return nil, serr
		}
		rule, count = s.rule, s.count+1
	} else {
		diff, truncated = e.deletedDiff(t)
	}
	res := &schema.DeleteResult{Path: e.displayOf(t.r)}
	_, stop, aerr := e.ask(c, proposal{op: "delete", rel: t.r.rel, diff: diff, truncated: truncated, rule: rule, verb: "deleted"}, &res.Text, &res.ChangeOutcome)
	if stop {
		return res, aerr
	}
	t, rerr := e.recheck(c.tool, t)
	if rerr != nil {
		return nil, rerr
	}
	if isDir {
		if err := e.journalTree(c, t, tree); err != nil {
			return nil, err
		}
		res.Text = fmt.Sprintf("Deleted directory %s (%s).", a.Path, plural(count, "entry", "entries"))
	} else {
		if err := e.journalUnlink(c, t, false); err != nil {
			return nil, err
		}
		res.Text = "Deleted " + a.Path
	}
	res.Removed = count
	c.emit(&schema.FileDeletedEvent{EventBase: e.base(c, schema.KindFileDeleted, t.r.rel), Recursive: isDir})
	return res, nil
}

// deletedDiff is the announcement of deleting a single entry: the removal of a regular text
// file's whole content, headers only for a big, binary or unreadable file, nothing for a link
// or special file.
func (e *Engine) deletedDiff(t *entryTarget) (string, bool) {
	if !t.r.info.Mode().IsRegular() {
		return "", false
	}
	headers := textdiff.HeadersOnly(t.r.rel)
	if t.r.info.Size() > maxAnnouncedOldBytes {
		return headers, true
	}
	h, err := openDirHandle(e, t.parent, nil)
	if err != nil {
		return headers, true
	}
	defer h.close()
	f, _, ok := h.openEntry(t.name, true)
	if !ok {
		return headers, true
	}
	defer f.Close()
	old, err := io.ReadAll(io.LimitReader(f, maxAnnouncedOldBytes+1))
	if err != nil || len(old) > maxAnnouncedOldBytes || text.HasNUL(old[:min(len(old), 8192)]) {
		return headers, true
	}
	return textdiff.Unified(t.r.rel, text.DecodeLenient(old), "")
}

// treeScan checks a directory tree for delete.
type treeScan struct {
	e     *Engine
	op    string
	top   *entryTarget
	rule  *schema.PermissionRule // the first interrupt rule met, the target's own first
	count int                    // entries below the top
	// dest, for move_file, is where the top moves to: every entry is checked there as well.
	dest *resolved
}

// scan walks the tree below s.top by descriptor and checks every entry.
func (s *treeScan) scan() (*treeNode, *Error) {
	h, err := openDirHandle(s.e, s.top.r.rel, s.top.r.info)
	if err != nil {
		return nil, s.changed(err)
	}
	root := &treeNode{name: s.top.name, info: s.top.r.info}
	defer h.close()
	if err := s.scanDir(h, root, s.top.r.rel, s.top.r.lexical, 1); err != nil {
		return nil, err
	}
	return root, nil
}

// scanDir records and checks the entries of the open directory h (node, at rel and spelled
// lexical), recursing into subdirectories.
func (s *treeScan) scanDir(h dirHandle, node *treeNode, rel, lexical string, depth int) *Error {
	if depth > maxDeleteDepth {
		return fserr.Errorf(s.op, s.top.r.rel, schema.KindTooManyEntries,
			"Directory %s is nested more than %d levels deep. Delete a deeper subdirectory first.", fserr.PyRepr(s.top.r.spelling), maxDeleteDepth)
	}
	ents, err := h.list()
	if err != nil {
		return fserr.FromOS(s.op, rel, s.top.r.spelling, err)
	}
	node.children = map[string]*treeNode{}
	if err := s.gitDirListed(rel, lexical, ents); err != nil {
		return err
	}
	for _, de := range ents {
		name := de.Name()
		if name == "." || name == ".." {
			continue
		}
		s.count++
		if s.count > maxDeleteEntries {
			return fserr.Errorf(s.op, s.top.r.rel, schema.KindTooManyEntries,
				"Directory %s has more than %d entries; one delete removes at most that many. Delete its subdirectories one by one.",
				fserr.PyRepr(s.top.r.spelling), maxDeleteEntries)
		}
		fi, err := h.lstat(name)
		if err != nil {
			return s.changed(err)
		}
		child := &treeNode{name: name, info: fi}
		node.children[name] = child
		cr := &resolved{spelling: rel + "/" + name, rel: rel + "/" + name, exists: true, info: fi}
		if lexical != "" {
			cr.lexical = lexical + "/" + name
		}
		// check, not checkWrite: the directories above cr are the top's ancestors, checked
		// with the top, and the scan's own, checked by gitDirListed as they were listed.
		rule, cerr := s.e.check(s.op, cr, accessWrite)
		if cerr != nil {
			return s.refuse(cr, cerr)
		}
		if s.rule == nil && rule != nil {
			s.rule = rule
		}
		if s.dest != nil {
			suffix := cr.rel[len(s.top.r.rel):]
			mr := &resolved{spelling: s.dest.spelling + suffix, rel: s.dest.rel + suffix}
			if s.dest.lexical != "" {
				mr.lexical = s.dest.lexical + suffix
			}
			rule, cerr := s.e.check(s.op, mr, accessWrite)
			if cerr != nil {
				return s.refuse(mr, cerr)
			}
			if s.rule == nil && rule != nil {
				s.rule = rule
			}
		}
		if !fi.IsDir() {
			continue
		}
		sub, err := h.child(name)
		if err != nil {
			return s.changed(err)
		}
		if got, err := sub.stat(); err != nil || !sameEntry(got, fi) {
			sub.close()
			return s.changed(errDirSwapped)
		}
		serr := s.scanDir(sub, child, cr.rel, cr.lexical, depth+1)
		sub.close()
		if serr != nil {
			return serr
		}
	}
	return nil
}

// gitDirListed applies the git rule (execprotect.go) to a directory of the tree as listed: a
// git directory is not deleted or moved, nor anything in it.
func (s *treeScan) gitDirListed(rel, lexical string, ents []fs.DirEntry) *Error {
	if s.e.allowGitDirs {
		return nil
	}
	names := make([]string, 0, len(ents))
	for _, de := range ents {
		names = append(names, de.Name())
	}
	if !listedGitDir(names) {
		return nil
	}
	cr := &resolved{spelling: rel, rel: rel, lexical: lexical, exists: true}
	return s.refuse(cr, fserr.Errorf(s.op, rel, schema.KindProtected, "Path '%s' is a git directory.", rel))
}

// refuse is the refusal of the whole delete because of one entry. A protected entry is named
// (it is readable); a denied or not-allowed one is not, since the model may not know it exists.
func (s *treeScan) refuse(cr *resolved, cerr *Error) *Error {
	top := fserr.PyRepr(s.top.r.spelling)
	verb := "delete"
	if s.dest != nil {
		verb = "move"
	}
	switch cerr.Kind {
	case schema.KindProtected:
		return fserr.Errorf(s.op, cr.rel, schema.KindProtected, "Cannot %s %s: it contains '%s', which is protected. Nothing was changed.", verb, top, s.e.display(cr.rel))
	case schema.KindPermissionDenied:
		return fserr.Errorf(s.op, s.top.r.rel, schema.KindPermissionDenied, "Cannot %s %s: a permission rule denies changing an entry inside it. Nothing was changed.", verb, top)
	default:
		return fserr.Errorf(s.op, s.top.r.rel, cerr.Kind, "Cannot %s %s: it contains entries that may not be changed. Nothing was changed.", verb, top)
	}
}

// changed maps a failure to reopen or stat an entry seen a moment ago.
func (s *treeScan) changed(err error) *Error {
	if errors.Is(err, errDirSwapped) || errors.Is(err, fs.ErrNotExist) || errorsIsErrno(err, syscall.ELOOP) || errorsIsErrno(err, syscall.ENOTDIR) {
		return errChanged(s.op, s.top.r)
	}
	return fserr.FromOS(s.op, s.top.r.rel, s.top.r.spelling, err)
}

// removeTree removes the checked tree below t (step 5 of deleteEntry).
func (e *Engine) removeTree(op string, t *entryTarget, tree *treeNode) *Error {
	parent, err := openDirHandle(e, t.parent, nil)
	if err != nil {
		return errChanged(op, t.r)
	}
	defer parent.close()
	if err := removeNode(parent, tree); err != nil {
		if errors.Is(err, errTreeChanged) {
			return fserr.Errorf(op, t.r.rel, schema.KindChangedDuringRequest,
				"Directory %s changed while it was being deleted; entries that were not checked were left in place. Look at what remains and retry.", fserr.PyRepr(t.r.spelling))
		}
		return e.writeError(op, t.r, err)
	}
	return nil
}

// errTreeChanged reports a tree that is no longer the one checked.
var errTreeChanged = errors.New("directory tree changed since it was checked")

// removeNode removes the directory node, an entry of parent, with its checked entries.
func removeNode(parent dirHandle, node *treeNode) error {
	if fi, err := parent.lstat(node.name); err != nil || !sameEntry(fi, node.info) {
		return errTreeChanged
	}
	h, err := parent.child(node.name)
	if err != nil {
		return errTreeChanged
	}
	got, err := h.stat()
	if err != nil || !sameEntry(got, node.info) {
		h.close()
		return errTreeChanged
	}
	ents, err := h.list()
	if err != nil {
		h.close()
		return err
	}
	// Every entry present must be one checked, and still the same file, before any is removed.
	for _, de := range ents {
		name := de.Name()
		if name == "." || name == ".." {
			continue
		}
		want, ok := node.children[name]
		if !ok {
			h.close()
			return errTreeChanged
		}
		fi, err := h.lstat(name)
		if err != nil || !sameEntry(fi, want.info) {
			h.close()
			return errTreeChanged
		}
	}
	for _, de := range ents {
		child := node.children[de.Name()]
		if child == nil {
			continue
		}
		if child.children != nil {
			err = removeNode(h, child)
		} else {
			err = h.unlink(child.name, false)
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			h.close()
			return err
		}
	}
	h.close()
	return parent.unlink(node.name, true)
}
