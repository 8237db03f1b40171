package engine

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/fsbox/fsbox/engine/internal/fserr"
	"github.com/fsbox/fsbox/engine/internal/journal"
	"github.com/fsbox/fsbox/engine/internal/text"
	"github.com/fsbox/fsbox/engine/internal/textdiff"
	"github.com/fsbox/fsbox/schema"
)

// Checkpoints and restore: the host's methods over the journal (engine/internal/journal keeps
// the before-images, journal_record.go records them in the change tools).
//
// A restore is a change like any other: every path goes through resolution and containment
// (the path must resolve to itself: a parent swapped for a symlink, inside the root or out, is
// never followed), the write-level policy, the per-path lock and the crash-atomic commit
// (commitFile, unlinkEntry and mkdirAll, which open every directory by descriptor). Before a
// path is touched its current state is compared, by hash, with what fsbox's latest change left
// there: anything else means someone else changed it, and it is left alone (reported as a
// conflict) unless the host forces it. A restore that stops halfway (a crash, a kill) leaves
// every file before or after, and the same restore run again skips the paths already back and
// finishes the rest, or says what it cannot.
//
// It does not restore symlinks, special files, directory modes or files bigger than the
// journal's bound (reported as not restorable), nor anything that changed outside fsbox's tools
// without fsbox having written it first (the journal sees only fsbox's own changes).

// The kinds of a path a restore did not put back that are not error kinds (schema.Unrestored).
const (
	failConflict      = "conflict"       // someone else changed it since fsbox last wrote it
	failNotRestorable = "not_restorable" // the journal could not keep its before-image
)

// maxCheckpointLabel bounds a checkpoint's label, in characters.
const maxCheckpointLabel = 200

// JournalOptions are the host's settings of the journal that are not part of the wire Config.
type JournalOptions struct {
	// Dropped receives the checkpoints the journal's bound removed (the checkpoint/dropped
	// notification).
	Dropped func(schema.CheckpointDroppedParams)
}

// openJournal opens the journal cfg.journal asks for. Its directory is the host's (the host
// layer's when the host fixed the policy): it must lie outside the root and every mount, and
// contain none of them, since the process's confinement grants it whole.
func (e *Engine) openJournal(cfg *schema.Config, opts Options) *Error {
	jc := cfg.Journal
	if jc == nil {
		if !e.enabled[schema.ToolUndoLastChange] {
			return nil
		}
		// The tool is the journal's: enabling it keeps one (a private per-session directory,
		// unless the host names one).
		jc = &schema.JournalConfig{}
	}
	dir := jc.Dir
	if opts.Host != nil {
		dir = ""
		if opts.Host.Journal != nil {
			dir = opts.Host.Journal.Dir
		}
	}
	var max int64
	if jc.MaxBytes != nil {
		if *jc.MaxBytes <= 0 {
			return fserr.Config("journal.max_bytes must be a positive integer, got %d", *jc.MaxBytes)
		}
		max = *jc.MaxBytes
	}
	if dir != "" {
		if err := e.journalDirOutside(dir); err != nil {
			return err
		}
	}
	var dropped func(journal.Dropped)
	if opts.Journal.Dropped != nil {
		notify := opts.Journal.Dropped
		dropped = func(d journal.Dropped) {
			notify(schema.CheckpointDroppedParams{ID: d.Checkpoint.ID, Label: d.Checkpoint.Label, Reason: d.Reason})
		}
	}
	jr, err := journal.Open(journal.Options{Dir: dir, MaxBytes: max, Root: e.rootDir, Dropped: dropped})
	if err != nil {
		return fserr.Config("journal: cannot open the journal directory: %v", err)
	}
	if dir == "" {
		if err := e.journalDirOutside(jr.Path()); err != nil {
			jr.Close()
			return fserr.Config("journal: the default journal directory lies inside the root or a mount; set journal.dir (fsbox serve --journal-dir)")
		}
	}
	e.jr = jr
	return nil
}

// journalDirOutside refuses a journal directory inside the root or a mount, or around one.
func (e *Engine) journalDirOutside(dir string) *Error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fserr.Config("journal.dir: cannot make %s absolute", fserr.PyRepr(dir))
	}
	real := abs
	// The deepest existing ancestor, resolved: the directory may not exist yet.
	for p, rest := abs, ""; ; {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			real = filepath.Join(r, rest)
			break
		}
		parent := filepath.Dir(p)
		if parent == p {
			break
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
	areas := []string{e.rootDir}
	for _, m := range e.mounts.all() {
		areas = append(areas, m.dir)
	}
	for _, a := range areas {
		if overlaps(real, a) {
			return fserr.Config("journal.dir: the journal must lie outside the root and every mount (and contain none of them), so the model can neither read nor change it")
		}
	}
	return nil
}

// overlaps reports whether one of the directories a and b is the other or below it.
func overlaps(a, b string) bool {
	a, b = filepath.Clean(a), filepath.Clean(b)
	under := func(x, y string) bool {
		return x == y || strings.HasPrefix(x, strings.TrimSuffix(y, "/")+"/")
	}
	return under(a, b) || under(b, a)
}

// Journaling reports whether the session keeps a journal (config.journal).
func (e *Engine) Journaling() bool { return e.jr != nil }

// errNoJournal is the answer of a checkpoint method in a session without a journal.
func errNoJournal(op string) *Error {
	return fserr.Errorf(op, "", schema.KindInvalidArguments, "This session keeps no journal: set config.journal (journal: {} in initialize, or --journal-dir) to use checkpoints.")
}

// CheckpointCreate marks the present moment (checkpoint/create).
func (e *Engine) CheckpointCreate(label string) (*schema.Checkpoint, error) {
	const op = "checkpoint/create"
	if e.jr == nil {
		return nil, errNoJournal(op)
	}
	if n := utf8.RuneCountInString(label); n > maxCheckpointLabel || !utf8.ValidString(label) {
		return nil, fserr.Errorf(op, "", schema.KindInvalidArguments, "label must be valid UTF-8 of at most %d characters, got %d.", maxCheckpointLabel, n)
	}
	cp, err := e.jr.Create(label)
	if err != nil {
		return nil, errJournal(op, "", err)
	}
	return &schema.Checkpoint{ID: cp.ID, Label: cp.Label, Created: cp.Created.Format("2006-01-02T15:04:05.000Z07:00")}, nil
}

// CheckpointList lists the checkpoints kept (checkpoint/list).
func (e *Engine) CheckpointList() (*schema.CheckpointListResult, error) {
	if e.jr == nil {
		return nil, errNoJournal("checkpoint/list")
	}
	cps, counts := e.jr.Checkpoints()
	res := &schema.CheckpointListResult{Checkpoints: []schema.Checkpoint{}}
	for i, cp := range cps {
		res.Checkpoints = append(res.Checkpoints, schema.Checkpoint{ID: cp.ID, Label: cp.Label, Created: cp.Created.Format("2006-01-02T15:04:05.000Z07:00"), Changed: counts[i]})
	}
	res.JournalBytes, res.MaxBytes = e.jr.Size()
	return res, nil
}

// lookup returns the changes since the checkpoint id.
func (e *Engine) lookup(op, id string) ([]journal.Change, *Error) {
	if e.jr == nil {
		return nil, errNoJournal(op)
	}
	cp, ok := e.jr.Lookup(id)
	if !ok {
		return nil, fserr.Errorf(op, "", schema.KindInvalidArguments, "Unknown checkpoint %s: checkpoint/list names the checkpoints kept (the journal's bound may have dropped it).", fserr.PyRepr(id))
	}
	return e.jr.Since(cp.Seq), nil
}

// CheckpointDiff is the unified diff of every path changed since the checkpoint id, from what
// it held then to what it holds now (checkpoint/diff), bounded by max_output_chars.
func (e *Engine) CheckpointDiff(ctx context.Context, id string) (*schema.CheckpointDiffResult, error) {
	const op = "checkpoint/diff"
	changes, err := e.lookup(op, id)
	if err != nil {
		return nil, err
	}
	res := &schema.CheckpointDiffResult{Paths: []string{}}
	var b strings.Builder
	for _, ch := range changes {
		if cerr := ctx.Err(); cerr != nil {
			return nil, cancelled(op, cerr)
		}
		res.Paths = append(res.Paths, ch.Path)
		if b.Len() >= e.maxOutputChars {
			res.Truncated = true
			continue
		}
		b.WriteString(e.pathDiff(op, ch))
	}
	out := b.String()
	if len(out) > e.maxOutputChars || res.Truncated {
		cut := min(len(out), e.maxOutputChars)
		for cut > 0 && !utf8.RuneStart(out[cut]) && cut < len(out) {
			cut--
		}
		out = out[:cut] + fmt.Sprintf("\n[diff truncated at %d characters (max_output_chars); paths lists every path changed: read them, or diff a later checkpoint]\n", e.maxOutputChars)
		res.Truncated = true
	}
	res.Diff = out
	return res, nil
}

// pathDiff is the diff of one changed path.
func (e *Engine) pathDiff(op string, ch journal.Change) string {
	cur, content, _ := e.currentState(op, ch.Path, true)
	oldText, oldOK := "", true
	switch ch.Target.Kind {
	case journal.File:
		b, err := e.jr.Content(ch.Target)
		if err != nil || !utf8.Valid(b) || text.HasNUL(b) || len(b) > maxAnnouncedOldBytes {
			oldOK = false
		} else {
			oldText = string(b)
		}
	case journal.Unrestorable:
		oldOK = false
	}
	newText, newOK := "", true
	switch cur.Kind {
	case journal.File:
		if content == nil || !utf8.Valid(content) || text.HasNUL(content) {
			newOK = false
		} else {
			newText = string(content)
		}
	case journal.Other:
		newOK = false
	}
	var note string
	switch {
	case ch.Target.Kind == journal.Dir && cur.Kind != journal.Dir:
		note = "directory removed since the checkpoint"
	case ch.Target.Kind != journal.Dir && cur.Kind == journal.Dir:
		note = "directory created since the checkpoint"
	case ch.Target.Kind == journal.Dir:
		return ""
	case ch.Target.Kind == journal.Unrestorable:
		note = "not restorable: " + ch.Target.Why
	case !oldOK || !newOK:
		note = "binary, unreadable or too big to show"
	}
	if note != "" {
		return textdiff.HeadersOnly(ch.Path) + "# " + note + "\n"
	}
	d, _ := textdiff.Unified(ch.Path, oldText, newText)
	return d
}

// currentState returns what rel holds now: a file's content hash and mode (and, with read, its
// content up to maxAnnouncedOldBytes), a directory, nothing, or "other" (a symlink or special
// file). A path that no longer resolves to itself (a parent swapped for a symlink) is
// changed_during_request.
func (e *Engine) currentState(op, rel string, read bool) (journal.State, []byte, *Error) {
	t, err := e.resolveEntry(op, e.display(rel))
	if err != nil {
		if err.Kind == schema.KindNotFound || err.Kind == schema.KindParentNotDirectory {
			return journal.State{Kind: journal.Absent}, nil, nil
		}
		return journal.State{}, nil, err
	}
	if t.r.rel != rel {
		return journal.State{}, nil, fserr.Errorf(op, rel, schema.KindChangedDuringRequest, "Path '%s' no longer resolves to itself (a directory above it was replaced).", rel)
	}
	switch {
	case !t.r.exists:
		return journal.State{Kind: journal.Absent}, nil, nil
	case t.r.info.IsDir():
		return journal.State{Kind: journal.Dir, Mode: modeBits(t.r.info)}, nil, nil
	case !t.r.info.Mode().IsRegular():
		return journal.State{Kind: journal.Other}, nil, nil
	}
	h, herr := openDirHandle(e, t.parent, nil)
	if herr != nil {
		return journal.State{}, nil, errChanged(op, t.r)
	}
	defer h.close()
	f, size, ok := h.openEntry(t.name, true)
	if !ok {
		return journal.State{}, nil, errChanged(op, t.r)
	}
	defer f.Close()
	sum := text.NewHash()
	var keep []byte
	var w io.Writer = sum
	var buf *capBuffer
	if read && size <= maxAnnouncedOldBytes {
		buf = &capBuffer{max: maxAnnouncedOldBytes}
		w = io.MultiWriter(sum, buf)
	}
	if _, err := io.Copy(w, f); err != nil {
		return journal.State{}, nil, fserr.FromOS(op, rel, rel, err)
	}
	if buf != nil && !buf.over {
		keep = buf.b
		if keep == nil {
			keep = []byte{}
		}
	}
	return journal.State{Kind: journal.File, Hash: text.ShortHash(sum), Size: size, Mode: modeBits(t.r.info)}, keep, nil
}

// capBuffer keeps what is written up to max bytes, and whether more came.
type capBuffer struct {
	b    []byte
	max  int
	over bool
}

func (l *capBuffer) Write(p []byte) (int, error) {
	if len(l.b)+len(p) > l.max {
		l.over = true
	} else {
		l.b = append(l.b, p...)
	}
	return len(p), nil
}

// CheckpointRestore puts every path changed since the checkpoint id back (checkpoint/restore).
func (e *Engine) CheckpointRestore(ctx context.Context, id string, force bool) (*schema.CheckpointRestoreResult, error) {
	const op = "checkpoint/restore"
	changes, err := e.lookup(op, id)
	if err != nil {
		return nil, err
	}
	c := &call{ctx: ctx, tool: op}
	return e.restore(c, changes, force), nil
}

// restoreItem is one path a restore changes.
type restoreItem struct {
	ch  journal.Change
	cur journal.State
}

// restore puts the paths of changes back to their Target, in three passes: what must go
// (files and links to remove or replace by a directory, directories to remove, deepest first),
// directories to create (shallowest first), then files to write.
func (e *Engine) restore(c *call, changes []journal.Change, force bool) *schema.CheckpointRestoreResult {
	res := &schema.CheckpointRestoreResult{Restored: []string{}, Unchanged: []string{}, NotRestored: []schema.Unrestored{}}
	fail := func(path, kind, reason string) {
		res.NotRestored = append(res.NotRestored, schema.Unrestored{Path: path, Kind: kind, Reason: reason})
	}
	failErr := func(path string, err *Error) {
		fail(path, string(err.Kind), err.Msg)
	}
	var items []*restoreItem
	for _, ch := range changes {
		if cerr := c.ctx.Err(); cerr != nil {
			fail(ch.Path, string(schema.KindInternal), "The restore was cancelled before this path.")
			continue
		}
		cur, _, err := e.currentState(c.tool, ch.Path, false)
		if err != nil {
			failErr(ch.Path, err)
			continue
		}
		if cur.SameContent(ch.Target) && ch.Target.Kind != journal.Unrestorable {
			res.Unchanged = append(res.Unchanged, ch.Path)
			continue
		}
		if ch.Target.Kind == journal.Unrestorable {
			fail(ch.Path, failNotRestorable, "The journal could not keep what was there: "+ch.Target.Why+".")
			continue
		}
		if !cur.SameContent(ch.Last) && !cur.SameContent(ch.LastBefore) {
			if !force {
				fail(ch.Path, failConflict, "Someone else changed it since fsbox last wrote it; left as it is (force overwrites it).")
				continue
			}
			res.Overwritten = append(res.Overwritten, ch.Path)
		}
		items = append(items, &restoreItem{ch: ch, cur: cur})
	}
	done := map[string]bool{}
	failed := map[string]bool{}
	// Pass 1: remove what is in the way, deepest first.
	byDepth := slices.Clone(items)
	slices.SortStableFunc(byDepth, func(a, b *restoreItem) int { return strings.Count(b.ch.Path, "/") - strings.Count(a.ch.Path, "/") })
	for _, it := range byDepth {
		if it.cur.Kind == journal.Absent || it.cur.Kind == it.ch.Target.Kind && it.ch.Target.Kind != journal.Absent {
			continue
		}
		if it.cur.Kind == journal.Dir && it.ch.Target.Kind == journal.Dir {
			continue
		}
		if err := e.restoreRemove(c, it); err != nil {
			failErr(it.ch.Path, err)
			failed[it.ch.Path] = true
			continue
		}
		it.cur = journal.State{Kind: journal.Absent}
		if it.ch.Target.Kind == journal.Absent {
			done[it.ch.Path] = true
		}
	}
	// Pass 2: directories, shallowest first.
	for i := len(byDepth) - 1; i >= 0; i-- {
		it := byDepth[i]
		if failed[it.ch.Path] || it.ch.Target.Kind != journal.Dir || it.cur.Kind == journal.Dir {
			continue
		}
		r, _, err := e.resolveFor(c.tool, e.display(it.ch.Path), accessWrite)
		if err == nil && r.rel != it.ch.Path {
			err = fserr.Errorf(c.tool, it.ch.Path, schema.KindChangedDuringRequest, "Path '%s' no longer resolves to itself (a directory above it was replaced).", it.ch.Path)
		}
		if err == nil {
			_, err = e.mkdirAll(c, r)
		}
		if err != nil {
			failErr(it.ch.Path, err)
			failed[it.ch.Path] = true
			continue
		}
		done[it.ch.Path] = true
	}
	// Pass 3: files.
	for _, it := range items {
		if failed[it.ch.Path] || it.ch.Target.Kind != journal.File {
			continue
		}
		if cerr := c.ctx.Err(); cerr != nil {
			fail(it.ch.Path, string(schema.KindInternal), "The restore was cancelled before this path.")
			continue
		}
		content, cerr := e.jr.Content(it.ch.Target)
		if cerr != nil {
			fail(it.ch.Path, failNotRestorable, fmt.Sprintf("The journal's copy cannot be read: %v.", cerr))
			continue
		}
		if err := e.restoreFile(c, it, content); err != nil {
			failErr(it.ch.Path, err)
			continue
		}
		done[it.ch.Path] = true
	}
	for _, it := range items {
		if done[it.ch.Path] {
			res.Restored = append(res.Restored, it.ch.Path)
		}
	}
	slices.Sort(res.Restored)
	res.Complete = len(res.NotRestored) == 0
	return res
}

// restoreRemove removes what rel holds now (a file, a link, or a directory whose entries the
// restore removed first), relative to its parent's descriptor, after the policy check.
func (e *Engine) restoreRemove(c *call, it *restoreItem) *Error {
	t, err := e.resolveEntry(c.tool, e.display(it.ch.Path))
	if err != nil {
		return err
	}
	if t.r.rel != it.ch.Path {
		return fserr.Errorf(c.tool, it.ch.Path, schema.KindChangedDuringRequest, "Path '%s' no longer resolves to itself (a directory above it was replaced).", it.ch.Path)
	}
	if !t.r.exists {
		return nil
	}
	if _, err := e.checkWrite(c.tool, t.r); err != nil {
		return err
	}
	unlock := e.locks.lock(t.r.rel)
	defer unlock()
	isDir := t.r.info.IsDir()
	if isDir != (it.cur.Kind == journal.Dir) {
		return errChanged(c.tool, t.r)
	}
	if err := e.journalUnlink(c, t, isDir); err != nil {
		if err.Kind == schema.KindDirectoryNotEmpty {
			return fserr.Errorf(c.tool, it.ch.Path, schema.KindDirectoryNotEmpty, "Directory '%s' holds entries fsbox did not record; left in place.", it.ch.Path)
		}
		return err
	}
	return nil
}

// restoreFile writes the recorded content back through commitFile, guarded by the hash the
// restore checked (so a change since is a conflict, never overwritten).
func (e *Engine) restoreFile(c *call, it *restoreItem, content []byte) *Error {
	r, _, err := e.resolveFor(c.tool, e.display(it.ch.Path), accessWrite)
	if err != nil {
		return err
	}
	if r.rel != it.ch.Path {
		return fserr.Errorf(c.tool, it.ch.Path, schema.KindChangedDuringRequest, "Path '%s' no longer resolves to itself (a directory above it was replaced).", it.ch.Path)
	}
	guard := absentHash
	if r.exists {
		if !r.info.Mode().IsRegular() {
			return errChanged(c.tool, r)
		}
		guard = it.cur.Hash
	}
	mode := fs.FileMode(it.ch.Target.Mode & 0o777)
	if it.ch.Target.Mode&0o4000 != 0 {
		mode |= fs.ModeSetuid
	}
	if it.ch.Target.Mode&0o2000 != 0 {
		mode |= fs.ModeSetgid
	}
	if it.ch.Target.Mode&0o1000 != 0 {
		mode |= fs.ModeSticky
	}
	_, err = e.commitFile(c, commitSpec{op: c.tool, r: r, content: content, guard: guard, create: true, mode: mode})
	return err
}
