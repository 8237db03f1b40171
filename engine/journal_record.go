package engine

import (
	"io"
	"io/fs"
	"os"
	"slices"

	"github.com/fsbox/fsbox/engine/internal/fserr"
	"github.com/fsbox/fsbox/engine/internal/journal"
	"github.com/fsbox/fsbox/engine/internal/text"
	"github.com/fsbox/fsbox/schema"
)

// The journal's hooks in the change tools (engine/internal/journal keeps what they record).
// Every hook runs under the lock of the path it records and after the checks that found the
// entry to be the one resolved, right before the change itself: what it records is what the
// change replaces. The entry is on disk before the change is, so a crash between the two leaves
// an entry whose before-image is what is still there (restore then finds the path unchanged).
// A change whose entry cannot be written is refused (nothing is changed): a journal that
// silently missed a change would restore a tree that never existed.
//
// It protects against the model escaping its own history: nothing here takes a path the model
// spelled, only entries the change tool already resolved and opened by descriptor. It does not
// protect the before-image from a process racing the change with the host's rights (the entry
// is checked to be the one resolved, by device and inode, before it is read; a write in place
// during the read is recorded as read).

// jpending is the entries one change recorded, withdrawn when the change fails.
type jpending struct {
	e    *Engine
	seqs []uint64
	// sync, when set, is the journal's sync of the entry, running while the change writes its
	// content (commitFile): durable waits for it before the change is committed.
	sync <-chan error
	// unsynced: entries appended and not synced yet (durable syncs them, once).
	unsynced bool
}

// durable waits until the entries are on disk; every hook calls it before its change.
func (p *jpending) durable() error {
	if p == nil {
		return nil
	}
	if p.sync != nil {
		err := <-p.sync
		p.sync = nil
		return err
	}
	if p.unsynced {
		p.unsynced = false
		return p.e.jr.Sync()
	}
	return nil
}

// settle withdraws the entries of a change that did not happen.
func (p *jpending) settle(ok bool) {
	if p == nil || ok {
		return
	}
	for _, s := range p.seqs {
		p.e.jr.Void(s)
	}
}

// jgroup returns the call's group in the journal, one per call, so undo_last_change takes back
// all the files one call changed.
func (e *Engine) jgroup(c *call) uint64 {
	if c.jgroup == 0 {
		c.jgroup = e.jr.NewGroup()
	}
	return c.jgroup
}

// errJournal is the refusal of a change the journal could not record.
func errJournal(op, rel string, err error) *Error {
	return &Error{Op: op, Path: rel, Kind: schema.KindInternal,
		Msg: "The journal could not record this change, so nothing was changed.", Err: err}
}

// record appends one entry to p.
func (e *Engine) record(c *call, p *jpending, rel string, before, after journal.State) *Error {
	seq, err := e.jr.Append(journal.Entry{Group: e.jgroup(c), Path: rel, Before: before, After: after, Undoes: c.undoes})
	if err != nil {
		p.settle(false)
		return errJournal(c.tool, rel, err)
	}
	p.seqs, p.unsynced = append(p.seqs, seq), true
	return nil
}

// fileState is the journal's State of a file with content, as the commit is about to leave it.
func fileState(content []byte, mode fs.FileMode) journal.State {
	return journal.State{Kind: journal.File, Hash: text.ContentHash(content), Size: int64(len(content)), Mode: uint32(mode.Perm() | mode&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky))}
}

// modeBits is the mode of fi as the journal keeps it.
func modeBits(fi fs.FileInfo) uint32 {
	m := fi.Mode()
	bits := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		bits |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		bits |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		bits |= 0o1000
	}
	return bits
}

// journalCommit records the file commitFile is about to replace (cur, name in dir; absent when
// !exists) and the content it writes.
func (e *Engine) journalCommit(c *call, s commitSpec, r *resolved, dir *os.Root, name string, cur fs.FileInfo, exists bool) (*jpending, *Error) {
	if e.jr == nil {
		return nil, nil
	}
	p := &jpending{e: e}
	before := journal.State{Kind: journal.Absent}
	mode := fs.FileMode(0o644)
	if exists {
		mode = cur.Mode()
		f, err := dir.OpenFile(name, openFlagsRead, 0)
		if err != nil {
			return nil, errChanged(s.op, r)
		}
		fi, err := f.Stat()
		if err != nil || !fi.Mode().IsRegular() || !sameFile(fi, cur) {
			f.Close()
			return nil, errChanged(s.op, r)
		}
		before, err = e.jr.Capture(f, fi.Size(), modeBits(fi))
		f.Close()
		if err != nil {
			return nil, errJournal(s.op, r.rel, err)
		}
	}
	after := fileState(s.content, mode)
	if s.mode != 0 {
		after.Mode = uint32(s.mode)
	}
	seq, sync, err := e.jr.RecordAsync(journal.Entry{Group: e.jgroup(c), Path: r.rel, Before: before, After: after, Undoes: c.undoes})
	if err != nil {
		return nil, errJournal(s.op, r.rel, err)
	}
	p.seqs, p.sync = append(p.seqs, seq), sync
	return p, nil
}

// captureEntry records what the entry name of h holds (fi, its Lstat as checked): a regular
// file's content and mode, a directory, or, for a symlink or special file, that it cannot be
// restored.
func (e *Engine) captureEntry(h dirHandle, name string, fi fs.FileInfo) (journal.State, error) {
	switch {
	case fi.IsDir():
		return journal.State{Kind: journal.Dir, Mode: modeBits(fi)}, nil
	case fi.Mode()&fs.ModeSymlink != 0:
		return journal.State{Kind: journal.Unrestorable, Why: "it was a symlink, which the journal does not keep"}, nil
	case !fi.Mode().IsRegular():
		return journal.State{Kind: journal.Unrestorable, Why: "it was not a regular file"}, nil
	}
	if now, err := h.lstat(name); err != nil || !sameEntry(now, fi) {
		return journal.State{}, errDirSwapped
	}
	f, size, ok := h.openEntry(name, true)
	if !ok {
		return journal.State{}, errDirSwapped
	}
	defer f.Close()
	st, err := e.jr.Capture(io.LimitReader(f, size), size, modeBits(fi))
	if err == nil && st.Kind == journal.File && st.Size != size {
		return journal.State{}, errDirSwapped
	}
	return st, err
}

// journalUnlink records the entry t (a file, link or empty directory) delete, remove_directory
// or apply_patch is about to unlink, then unlinks it.
func (e *Engine) journalUnlink(c *call, t *entryTarget, dir bool) *Error {
	if e.jr == nil {
		return e.unlinkEntry(c.tool, t, dir)
	}
	h, err := openDirHandle(e, t.parent, nil)
	if err != nil {
		return errChanged(c.tool, t.r)
	}
	before, cerr := e.captureEntry(h, t.name, t.r.info)
	h.close()
	if cerr != nil {
		return errChanged(c.tool, t.r)
	}
	p := &jpending{e: e}
	if err := e.record(c, p, t.r.rel, before, journal.State{Kind: journal.Absent}); err != nil {
		return err
	}
	if err := p.durable(); err != nil {
		p.settle(false)
		return errJournal(c.tool, t.r.rel, err)
	}
	uerr := e.unlinkEntry(c.tool, t, dir)
	p.settle(uerr == nil)
	return uerr
}

// journalTree records every entry of the checked tree below t (delete with recursive) as
// removed, parents before children, then removes it. The entries already unlinked when the
// removal stops halfway stay recorded; the others are withdrawn only when nothing was removed.
func (e *Engine) journalTree(c *call, t *entryTarget, tree *treeNode) *Error {
	if e.jr == nil {
		return e.removeTree(c.tool, t, tree)
	}
	p := &jpending{e: e}
	parent, err := openDirHandle(e, t.parent, nil)
	if err != nil {
		return errChanged(c.tool, t.r)
	}
	rerr := e.recordTree(c, p, parent, tree, t.r.rel, nil)
	parent.close()
	if rerr == nil {
		if err := p.durable(); err != nil {
			rerr = errJournal(c.tool, t.r.rel, err)
		}
	}
	if rerr != nil {
		p.settle(false)
		return rerr
	}
	derr := e.removeTree(c.tool, t, tree)
	if derr != nil {
		// Entries that were removed before the tree was found changed stay journaled; when the
		// top itself is still there, an entry that is still there as recorded restores as
		// "unchanged", so keeping them all is safe.
		return derr
	}
	return nil
}

// recordTree records node (the entry node.name of parent, at rel) and, for a directory, its
// checked entries. moved, for move_file, is where the tree goes: each entry is then recorded
// twice, removed at rel and created at its new path.
func (e *Engine) recordTree(c *call, p *jpending, parent dirHandle, node *treeNode, rel string, moved *string) *Error {
	before, err := e.captureEntry(parent, node.name, node.info)
	if err != nil {
		return fserr.Errorf(c.tool, rel, schema.KindChangedDuringRequest, "Path '%s' changed while it was being recorded. Retry.", rel)
	}
	if err := e.record(c, p, rel, before, journal.State{Kind: journal.Absent}); err != nil {
		return err
	}
	if moved != nil {
		if err := e.record(c, p, *moved, journal.State{Kind: journal.Absent}, before); err != nil {
			return err
		}
	}
	if node.children == nil || !node.info.IsDir() {
		return nil
	}
	h, herr := parent.child(node.name)
	if herr != nil {
		return fserr.Errorf(c.tool, rel, schema.KindChangedDuringRequest, "Path '%s' changed while it was being recorded. Retry.", rel)
	}
	defer h.close()
	for _, name := range sortedNames(node.children) {
		var sub *string
		if moved != nil {
			s := *moved + "/" + name
			sub = &s
		}
		if err := e.recordTree(c, p, h, node.children[name], rel+"/"+name, sub); err != nil {
			return err
		}
	}
	return nil
}

// journalMove records a move of src to dst (both checked, their parents open as from and to):
// src's tree as removed and recreated at dst, and what dst held (absent, or the file
// overwritten). The caller settles the result with the rename's outcome.
func (e *Engine) journalMove(c *call, from dirHandle, src *entryTarget, to dirHandle, dst *entryTarget) (*jpending, *Error) {
	if e.jr == nil {
		return nil, nil
	}
	p := &jpending{e: e}
	if dst.r.exists {
		before, err := e.captureEntry(to, dst.name, dst.r.info)
		if err != nil {
			return nil, errChanged(c.tool, dst.r)
		}
		if err := e.record(c, p, dst.r.rel, before, journal.State{Kind: journal.Absent}); err != nil {
			return nil, err
		}
	}
	var tree *treeNode
	if src.r.info.IsDir() {
		s := &treeScan{e: e, op: c.tool, top: src}
		var serr *Error
		if tree, serr = s.scan(); serr != nil {
			p.settle(false)
			return nil, serr
		}
	} else {
		tree = &treeNode{name: src.name, info: src.r.info}
	}
	dstRel := dst.r.rel
	if err := e.recordTree(c, p, from, tree, src.r.rel, &dstRel); err != nil {
		p.settle(false)
		return nil, err
	}
	if err := p.durable(); err != nil {
		p.settle(false)
		return nil, errJournal(c.tool, src.r.rel, err)
	}
	return p, nil
}

// journalMkdir records a directory mkdirAll is about to create (rel, absent until now).
func (e *Engine) journalMkdir(c *call, rel string) (*jpending, *Error) {
	if e.jr == nil {
		return nil, nil
	}
	p := &jpending{e: e}
	if err := e.record(c, p, rel, journal.State{Kind: journal.Absent}, journal.State{Kind: journal.Dir, Mode: 0o755}); err != nil {
		return nil, err
	}
	if err := p.durable(); err != nil {
		p.settle(false)
		return nil, errJournal(c.tool, rel, err)
	}
	return p, nil
}

// sortedNames returns the keys of m in order.
func sortedNames(m map[string]*treeNode) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
