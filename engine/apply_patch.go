package engine

import (
	"bytes"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/fsbox/fsbox/engine/internal/commit"
	"github.com/fsbox/fsbox/engine/internal/fserr"
	"github.com/fsbox/fsbox/engine/internal/text"
	"github.com/fsbox/fsbox/engine/internal/textdiff"
	"github.com/fsbox/fsbox/schema"
)

// patchFile is one file operation of a patch, resolved, checked and computed in memory.
type patchFile struct {
	op      patchOp
	r       *resolved              // the file added or updated (the source of a move)
	t       *entryTarget           // the file deleted; for a move, the source entry removed after the new path is written
	dst     *resolved              // the new path of a move
	old     []byte                 // the content before (update, delete of a text file up to maxAnnouncedOldBytes)
	current string                 // hash of old, the guard of the commit (absentHash for an add)
	content []byte                 // the content after (add, update)
	mkdir   *resolved              // the missing parent directory of an added file or a move target, created at commit
	rule    *schema.PermissionRule // an interrupt rule on mkdir
	delDiff string                 // a delete's diff ([Engine.deletedDiff])
	delCut  bool
}

// final is where the file's content ends up.
func (p *patchFile) final() *resolved {
	if p.dst != nil {
		return p.dst
	}
	if p.r != nil {
		return p.r
	}
	return p.t.r
}

// applyPatch serves apply_patch. The whole patch is one change, checked completely before
// anything is written:
//
//  1. the arguments are exactly one of input (the envelope) and operation (one file), and parse
//     (invalid_arguments naming the line and how to write it otherwise);
//  2. every path (and every "*** Move to:") resolves inside the root and passes the write-level
//     checks (denied, protected, allowed patterns, permission rules); two operations on one
//     resolved file are refused;
//  3. under the per-path locks of every file, taken in one order: an added file and a move's
//     new path must be absent (already_exists) with an existing parent; a deleted or updated
//     file must exist and be a regular file (an updated one text); every hunk of every update
//     must apply to the file's current bytes (no_match with the nearest lines, multiple_matches
//     with where) — all in memory;
//  4. one change request carries the whole patch (operation "patch", path the first file, the
//     files' diffs one after the other): approve, reject, or edit with replacement arguments (a
//     new patch, checked from step 1);
//  5. the files are committed in the patch's order, each crash-atomically as write_file and
//     edit_file commit (a temporary file renamed over the target, guarded by the hash the
//     change was computed from); a delete unlinks the entry checked; a move writes the new path
//     (never over a file that appeared) and then unlinks the old one.
//
// What it does not promise: the files are not replaced in one atomic step. If the process is
// killed during step 5, every file is either wholly old or wholly new, the files before the one
// being committed are new, and those after it are old; a move killed between writing its new
// path and unlinking its old one leaves both (the new path with the new content). A commit that
// fails at step 5 (a file changed by another process since step 3) stops there with the error,
// which names the files already changed; nothing is rolled back.
func (e *Engine) applyPatch(c *call, a *schema.ApplyPatchArgs) (*schema.ApplyPatchResult, error) {
	ops, perr := patchOps(a)
	if perr != nil {
		return nil, fserr.Errorf(c.tool, "", schema.KindInvalidArguments, "Invalid patch: %s Nothing was changed.", perr.msg)
	}
	// An absolute path inside the patch is the model's own, but not a top-level argument the
	// callers' scrubbing sees: messages show it as the model may see it (root-relative inside
	// the root, a placeholder outside), never as a host path.
	var abs []string
	for _, op := range ops {
		for _, p := range []string{op.path, op.moveTo} {
			if strings.HasPrefix(p, "/") {
				abs = append(abs, p, e.hostToModel(p))
			}
		}
	}
	scrub := strings.NewReplacer(abs...)
	nothingChanged := func(err *Error) *Error {
		out := nothingChanged(err)
		out.Msg, out.Path = scrub.Replace(out.Msg), scrub.Replace(out.Path)
		return out
	}
	files, rule, rels, rerr := e.resolvePatch(c, ops)
	if rerr != nil {
		return nil, nothingChanged(rerr)
	}
	slices.Sort(rels)
	for _, rel := range rels {
		unlock := e.locks.lock(rel)
		defer unlock()
	}
	for _, p := range files {
		if err := e.planPatchFile(c, p); err != nil {
			return nil, nothingChanged(err)
		}
		rule = cmpOr(rule, p.rule)
	}

	// The diff is only built for someone who reads it.
	diff, truncated := "", false
	if c.hooks.ChangeRequest != nil || rule != nil {
		diff, truncated = patchDiff(files)
	}
	res := &schema.ApplyPatchResult{Files: []schema.PatchedFile{}}
	_, stop, aerr := e.ask(c, proposal{op: "patch", rel: files[0].final().rel, diff: diff, truncated: truncated, rule: rule, refusal: "[The patch was not applied: "}, &res.Text, &res.ChangeOutcome)
	if stop {
		return res, aerr
	}
	res.ModifiedByReviewer = c.reviewed()

	if err := e.commitPatch(c, files, res); err != nil {
		return nil, err
	}
	if res.ModifiedByReviewer {
		res.Text += reviewNote
	}
	return res, nil
}

// resolvePatch resolves and checks every file of a patch (its path, and a move's destination)
// for writing, each resolved path claimed once: a patch changes each file once. It returns the
// files, the interrupt rule that matched first, and the resolved paths to lock.
func (e *Engine) resolvePatch(c *call, ops []patchOp) (files []*patchFile, rule *schema.PermissionRule, rels []string, _ *Error) {
	files = make([]*patchFile, len(ops))
	seen := map[string]string{}
	claim := func(r *resolved, spelled string) *Error {
		if prev, dup := seen[r.rel]; dup {
			return fserr.Errorf(c.tool, r.rel, schema.KindInvalidArguments,
				"Invalid patch: %s and %s are the same file; change each file once per patch. Nothing was changed.", fserr.PyRepr(prev), fserr.PyRepr(spelled))
		}
		seen[r.rel] = spelled
		rels = append(rels, r.rel)
		return nil
	}
	for i, op := range ops {
		p := &patchFile{op: op}
		files[i] = p
		var r1 *schema.PermissionRule
		var err *Error
		if op.kind == patchDelete {
			if p.t, err = e.resolveEntry(c.tool, op.path); err == nil {
				r1, err = e.checkWrite(c.tool, p.t.r)
			}
			if err == nil {
				err = claim(p.t.r, op.path)
			}
		} else {
			p.r, r1, err = e.resolveFor(c.tool, op.path, accessWrite)
			if err == nil {
				err = claim(p.r, op.path)
			}
		}
		if err != nil {
			return nil, nil, nil, err
		}
		rule = cmpOr(rule, r1)
		if op.moveTo != "" {
			var r2 *schema.PermissionRule
			if p.dst, r2, err = e.resolveFor(c.tool, op.moveTo, accessWrite); err == nil {
				err = claim(p.dst, op.moveTo)
			}
			if err == nil {
				p.t, err = e.resolveEntry(c.tool, op.path)
			}
			if err != nil {
				return nil, nil, nil, err
			}
			rule = cmpOr(rule, r2)
		}
	}
	return files, rule, rels, nil
}

// commitPatch lands the planned files one after the other, runs each one's post_edit hooks,
// emits its event, and writes the success text and the files into res. A failure after the first
// file is partly applied: the error says which files landed and which did not.
func (e *Engine) commitPatch(c *call, files []*patchFile, res *schema.ApplyPatchResult) *Error {
	var b strings.Builder
	b.WriteString("Success. Updated the following files:\n")
	for i, p := range files {
		if i > 0 {
			commit.Hook("patch-next-file")
		}
		item, err := e.commitPatchFile(c, p)
		if err != nil {
			return partlyApplied(err, files[:i], files[i+1:])
		}
		var out schema.PostEditOutcome
		if p.op.kind != patchDelete {
			after := e.runPostEdit(c, item.rel, item.hash, "edit")
			if after != nil {
				item.hash = after.hash
			}
			var note string
			after.report(&note, &out)
			res.PostEdit = append(res.PostEdit, out.PostEdit...)
			res.Warnings = append(res.Warnings, out.Warnings...)
			item.note = note
		}
		e.emitPatchFile(c, p, item, res.ModifiedByReviewer)
		pf := schema.PatchedFile{Path: e.displayOf(p.final()), Operation: item.operation}
		if p.dst != nil {
			pf.MovedFrom = e.displayOf(p.r)
		}
		letter := map[string]string{"add": "A", "update": "M", "delete": "D"}[item.operation]
		fmt.Fprintf(&b, "%s %s", letter, pf.Path)
		if e.hashes && item.hash != "" && item.hash != absentHash {
			pf.Hash = item.hash
			b.WriteString(" [hash:" + item.hash + "]")
		}
		b.WriteString(item.note)
		b.WriteByte('\n')
		res.Files = append(res.Files, pf)
	}
	res.Text = strings.TrimSuffix(b.String(), "\n")
	return nil
}

// cmpOr returns the first non-nil rule.
func cmpOr(a, b *schema.PermissionRule) *schema.PermissionRule {
	if a != nil {
		return a
	}
	return b
}

// nothingChanged marks a failure before anything was written.
func nothingChanged(err *Error) *Error {
	out := *err
	if !strings.Contains(out.Msg, "Nothing was changed") {
		out.Msg = strings.TrimRight(out.Msg, " ") + " No file of the patch was changed."
	}
	return &out
}

// partlyApplied is the error of a commit that failed after files before it were written: it
// names the files already changed and those not changed, so the model can re-read and continue.
func partlyApplied(err *Error, done, left []*patchFile) *Error {
	out := *err
	if len(done) == 0 {
		return nothingChanged(err)
	}
	var d, l []string
	for _, p := range done {
		d = append(d, p.final().spelling)
	}
	for _, p := range left {
		l = append(l, p.final().spelling)
	}
	out.Msg += fmt.Sprintf(" The patch was applied only in part: already changed: %s.", strings.Join(d, ", "))
	if len(l) > 0 {
		out.Msg += fmt.Sprintf(" Not changed: %s.", strings.Join(l, ", "))
	}
	out.Msg += " Read the files again and send a patch for what is left."
	return &out
}

// patchOps turns the arguments into file operations: the envelope parsed, or the one operation.
func patchOps(a *schema.ApplyPatchArgs) ([]patchOp, *patchError) {
	switch {
	case a.Input != nil && a.Operation != nil:
		return nil, patchErrorf("Give either input (a whole patch) or operation (one file), not both.")
	case a.Input != nil:
		return parseV4A(*a.Input)
	case a.Operation == nil:
		return nil, patchErrorf("Give input (a whole patch from %q to %q) or operation ({type, path, diff}).", v4aBegin, v4aEnd)
	}
	o := a.Operation
	if strings.TrimSpace(o.Path) == "" {
		return nil, patchErrorf("operation.path is empty; name the file.")
	}
	diff := ""
	if o.Diff != nil {
		diff = *o.Diff
	}
	if o.MoveTo != nil && (o.Type != "update_file" || strings.TrimSpace(*o.MoveTo) == "") {
		return nil, patchErrorf("operation.move_to names a new path for update_file only, and must not be empty.")
	}
	switch o.Type {
	case "create_file":
		lines, err := parseAddDiff(diff)
		if err != nil {
			return nil, err
		}
		return []patchOp{{kind: patchAdd, path: o.Path, add: lines}}, nil
	case "update_file":
		hunks, err := parseUpdateDiff(diff)
		if err != nil {
			return nil, err
		}
		op := patchOp{kind: patchUpdate, path: o.Path, hunks: hunks}
		if o.MoveTo != nil {
			op.moveTo = *o.MoveTo
		}
		return []patchOp{op}, checkOps([]patchOp{op})
	case "delete_file":
		if strings.TrimSpace(diff) != "" {
			return nil, patchErrorf("operation.diff must be absent for delete_file.")
		}
		return []patchOp{{kind: patchDelete, path: o.Path}}, nil
	}
	return nil, patchErrorf("operation.type must be 'create_file', 'update_file' or 'delete_file', got %s.", fserr.PyRepr(o.Type))
}

// planPatchFile is step 3 of applyPatch for one file, under the locks.
func (e *Engine) planPatchFile(c *call, p *patchFile) *Error {
	switch p.op.kind {
	case patchAdd:
		if p.r.exists {
			return fserr.Errorf(c.tool, p.r.rel, schema.KindAlreadyExists,
				"%s already exists; *** Add File only creates new files. Change it with *** Update File, or delete it first with *** Delete File.", fserr.PyRepr(p.op.path))
		}
		if err := e.newFileTarget(c, p, p.r, p.op.path); err != nil {
			return err
		}
		p.content, p.current = addContent(p.op.add), absentHash
		return nil
	case patchDelete:
		switch {
		case !p.t.r.exists:
			return fserr.Errorf(c.tool, p.t.r.rel, schema.KindNotFound, "File not found: %s. Nothing to delete.", p.op.path)
		case p.t.r.info.IsDir():
			return fserr.Errorf(c.tool, p.t.r.rel, schema.KindNotAFile, "%s is a directory; *** Delete File deletes files only.", fserr.PyRepr(p.op.path))
		case !p.t.r.info.Mode().IsRegular() && !isSymlink(p.t.r.info):
			return errNotRegular(c.tool, p.t.r)
		}
		p.delDiff, p.delCut = e.deletedDiff(p.t)
		return nil
	}
	// Update.
	if !p.r.exists {
		return fserr.Errorf(c.tool, p.r.rel, schema.KindNotFound, "File not found: %s. Create it with *** Add File.", p.op.path)
	}
	if err := e.wantRegular(c.tool, p.r); err != nil {
		return err
	}
	r, f, fi, oerr := e.openStable(c.tool, p.r, accessWrite)
	if oerr != nil {
		return oerr
	}
	p.r = r
	old, err := readAllSized(f, fi.Size())
	f.Close()
	if err != nil {
		return fserr.FromOS(c.tool, r.rel, r.spelling, err)
	}
	if text.HasNUL(old) {
		return fserr.Errorf(c.tool, r.rel, schema.KindBinaryFile, "%s is a binary file; apply_patch only changes text files.", p.op.path)
	}
	p.old, p.current = old, text.ContentHash(old)
	updated, fail := applyHunks(old, p.op.hunks, p.op.path)
	if fail != nil {
		kind := schema.KindNoMatch
		if fail.multiple {
			kind = schema.KindMultipleMatches
		}
		return fserr.Errorf(c.tool, r.rel, kind, "%s", fail.msg)
	}
	p.content = updated
	if p.dst == nil {
		return nil
	}
	// A move: the old entry must be the file updated (not a symlink to it), the new path free.
	if p.t.r.rel != p.r.rel {
		return fserr.Errorf(c.tool, p.t.r.rel, schema.KindInvalidArguments,
			"%s is a symbolic link; *** Move to moves regular files only. Update the file it points to, or move the link with move_file.", fserr.PyRepr(p.op.path))
	}
	if p.dst.exists {
		return fserr.Errorf(c.tool, p.dst.rel, schema.KindAlreadyExists,
			"The *** Move to path %s already exists. Choose a new path, or delete that file first with *** Delete File in an earlier call.", fserr.PyRepr(p.op.moveTo))
	}
	return e.newFileTarget(c, p, p.dst, p.op.moveTo)
}

// newFileTarget checks that r (spelled as the patch spells it) can receive a new file. A missing
// parent directory is not an error, as in the reference appliers (the patch is the model's only
// way to create one): it is checked as a write of its own (patterns, rules) and created, with
// its missing ancestors, only when the patch is committed.
func (e *Engine) newFileTarget(c *call, p *patchFile, r *resolved, spelled string) *Error {
	err := e.writableTarget(c.tool, r)
	if err == nil || err.Kind != schema.KindParentMissing {
		return err
	}
	i := strings.LastIndexByte(strings.TrimRight(spelled, "/"), '/')
	if i <= 0 {
		return err
	}
	dir, rule, derr := e.resolveFor(c.tool, spelled[:i], accessWrite)
	if derr != nil {
		return derr
	}
	if dir.exists {
		return err // the parent appeared or is not a directory: let the commit decide
	}
	p.mkdir, p.rule = dir, rule
	return nil
}

// isSymlink reports whether fi is a symbolic link.
func isSymlink(fi fs.FileInfo) bool { return fi.Mode()&fs.ModeSymlink != 0 }

// patchDiff is the change request's diff: each file's diff in order, moves with git's rename
// headers; truncated when any file's is.
func patchDiff(files []*patchFile) (string, bool) {
	var b strings.Builder
	truncated := false
	for _, p := range files {
		var d string
		var cut bool
		switch p.op.kind {
		case patchAdd:
			d, cut = textdiff.Unified(p.r.rel, "", text.DecodeLenient(p.content))
		case patchDelete:
			d, cut = p.delDiff, p.delCut
		default:
			path := p.r.rel
			if p.dst != nil {
				path = p.dst.rel
				fmt.Fprintf(&b, "diff --git a/%s b/%s\nrename from %s\nrename to %s\n", p.r.rel, p.dst.rel, p.r.rel, p.dst.rel)
			}
			if !bytes.Equal(p.old, p.content) {
				d, cut = textdiff.Unified(path, text.DecodeLenient(p.old), text.DecodeLenient(p.content))
			}
		}
		b.WriteString(d)
		truncated = truncated || cut
	}
	return b.String(), truncated
}

// patchItem is what committing one file of a patch did.
type patchItem struct {
	operation string // "add", "update" or "delete"
	rel       string // where the content now is
	hash      string // its hash ("" for a delete)
	note      string // the post_edit hooks' lines for the result text
}

// commitPatchFile is step 5 of applyPatch for one file.
func (e *Engine) commitPatchFile(c *call, p *patchFile) (*patchItem, *Error) {
	if p.mkdir != nil {
		created, err := e.mkdirAll(c, p.mkdir)
		if err != nil {
			return nil, err
		}
		if created {
			c.emit(&schema.DirectoryCreatedEvent{EventBase: e.base(c, schema.KindDirectoryCreated, p.mkdir.rel), ModifiedByReviewer: c.reviewed()})
		}
	}
	switch p.op.kind {
	case patchAdd:
		if _, err := e.commitFile(c, commitSpec{op: c.tool, r: p.r, content: p.content, guard: absentHash, create: true, locked: p.r.rel}); err != nil {
			return nil, err
		}
		return &patchItem{operation: "add", rel: p.r.rel, hash: text.ContentHash(p.content)}, nil
	case patchDelete:
		t, err := e.recheck(c.tool, p.t)
		if err != nil {
			return nil, err
		}
		if err := e.journalUnlink(c, t, false); err != nil {
			return nil, err
		}
		return &patchItem{operation: "delete", rel: t.r.rel}, nil
	}
	if p.dst == nil {
		if _, err := e.commitFile(c, commitSpec{op: c.tool, r: p.r, content: p.content, guard: p.current, locked: p.r.rel}); err != nil {
			if err.Kind == schema.KindStaleHash {
				return nil, errChanged(c.tool, p.r)
			}
			return nil, err
		}
		return &patchItem{operation: "update", rel: p.r.rel, hash: text.ContentHash(p.content)}, nil
	}
	// A move: the source must still hold the content the hunks were applied to; then the new
	// path is created (never over a file that appeared) and the old entry unlinked.
	t, err := e.recheck(c.tool, p.t)
	if err != nil {
		return nil, err
	}
	if h, herr := e.hashOf(c.tool, p.r); herr != nil || h != p.current {
		return nil, errChanged(c.tool, p.r)
	}
	if _, err := e.commitFile(c, commitSpec{op: c.tool, r: p.dst, content: p.content, guard: absentHash, create: true, locked: p.dst.rel}); err != nil {
		return nil, err
	}
	commit.Hook("patch-move-written")
	if err := e.journalUnlink(c, t, false); err != nil {
		return nil, err
	}
	return &patchItem{operation: "update", rel: p.dst.rel, hash: text.ContentHash(p.content)}, nil
}

// hashOf hashes the current content of the regular file r.
func (e *Engine) hashOf(op string, r *resolved) (string, *Error) {
	_, f, fi, oerr := e.openStable(op, r, accessWrite)
	if oerr != nil {
		return "", oerr
	}
	defer f.Close()
	b, err := readAllSized(f, fi.Size())
	if err != nil {
		return "", fserr.FromOS(op, r.rel, r.spelling, err)
	}
	return text.ContentHash(b), nil
}

// emitPatchFile sends the events of one committed file: file_written for an add, file_edited
// for an update (after file_moved for a move), file_deleted for a delete.
func (e *Engine) emitPatchFile(c *call, p *patchFile, it *patchItem, reviewed bool) {
	switch p.op.kind {
	case patchAdd:
		c.emit(&schema.FileWrittenEvent{EventBase: e.base(c, schema.KindFileWritten, it.rel), ContentHash: it.hash, ModifiedByReviewer: reviewed})
		return
	case patchDelete:
		c.emit(&schema.FileDeletedEvent{EventBase: e.base(c, schema.KindFileDeleted, it.rel)})
		return
	}
	if p.dst != nil {
		c.emit(&schema.FileMovedEvent{EventBase: e.base(c, schema.KindFileMoved, p.dst.rel), Source: p.r.rel, ModifiedByReviewer: reviewed})
	}
	diff, truncated := textdiff.Unified(it.rel, text.DecodeLenient(p.old), text.DecodeLenient(p.content))
	c.emit(&schema.FileEditedEvent{EventBase: e.base(c, schema.KindFileEdited, it.rel), ContentHash: it.hash,
		Diff: diff, Truncated: truncated, Replacements: len(p.op.hunks), ModifiedByReviewer: reviewed})
}
