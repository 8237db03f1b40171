package engine

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/fsbox/fsbox/engine/internal/commit"
	"github.com/fsbox/fsbox/engine/internal/fserr"
	"github.com/fsbox/fsbox/engine/internal/relpath"
	"github.com/fsbox/fsbox/engine/internal/text"
	"github.com/fsbox/fsbox/schema"
)

// absentHash is the guard of a change announced as a create: no file hashes to it, so a file
// that appears while the client decides is a conflict rather than overwritten.
const absentHash = "<absent>"

// maxAnnouncedOldBytes is the largest existing file whose content a write_file announcement
// diffs; a bigger one is announced with headers only (truncated), as in pydantic-ai-harness.
const maxAnnouncedOldBytes = 4 * 32768

// defaultCancelReason is the reason of a refusal the client gave none for.
const defaultCancelReason = "cancelled by a listener"

// announcement is the outcome of asking the client about a change.
type announcement struct {
	asked     bool   // a change request was sent and approved
	cancelled bool   // the client refused
	reason    string // the client's reason, for a refusal
	// content is the reviewer's replacement of a write's or an edit's whole new content
	// (decision "edit" with content); the handler writes it instead of the model's, under the
	// same lock and guard.
	content *string
	// redo is the reviewer's replacement arguments (decision "edit" with arguments): [Engine.ask]
	// records it on the call, and Call runs the tool again on them (see [reviewerEdit]).
	redo *reviewerEdit
}

// reviewerEdit is the approval's value when the reviewer answered a change request with
// replacement arguments: [Engine.ask] records it on the call, the handler returns, and Call then
// runs the same tool again on args (after the handler released its locks), from the start and exactly as if the model had sent them: decoding, resolution, containment, policy and every
// check of the tool. That second run asks nobody (the reviewer wrote the change, so it is approved
// by definition, an interrupt rule on a new path included: the reviewer is the party that rule
// would ask), so it can never loop. When it changes the path announced (rel) it pins nothing
// more; when it targets that same path, the file must still have the content the reviewer saw
// (pin, its hash when announced; "" for a change with no content), else stale_hash.
//
// It protects against a reviewer's replacement escaping the checks the model's call met. It does
// not show the reviewer the current content of a different path they chose.
type reviewerEdit struct {
	args json.RawMessage
	rel  string
	pin  string
}

// reviewNote is the line a change's result text ends with when the reviewer's edit was applied.
const reviewNote = "\nNote: the reviewer modified this change before it was applied."

// endChangeText ends the text of a change that landed the same way for every tool: the content
// hash h when hashes are shown and the file is there (also set in hash), the note that the
// reviewer modified the change, and what the post_edit hooks did (after, into out).
func (e *Engine) endChangeText(text, hash *string, h string, reviewed bool, after *afterHooks, out *schema.PostEditOutcome) {
	if e.hashes && h != absentHash {
		*hash = h
		*text += " [hash:" + h + "]"
	}
	if reviewed {
		*text += reviewNote
	}
	after.report(text, out)
}

// reviewed reports whether this run applies the reviewer's replacement arguments.
func (c *call) reviewed() bool { return c.review != nil }

// announce sends the change request of one change when the call must ask: always when the client
// offered change requests (reason "listener"), and when an interrupt permission rule matched
// (reason "permission_rule", which wins over "listener"). Without a ChangeRequest hook an
// interrupt rule is a denial (permission_denied). A hook error, or an answer that is not a
// decision the operation takes, is change_request_failed (fatal). pin is the content hash of the
// target the diff was computed from ("" when the change has no content); it pins a reviewer's
// replacement to what the reviewer saw.
//
// On the run applying a reviewer's replacement arguments (c.review set) nobody is asked again:
// the change is approved, provided a change to the very path announced still finds the content
// announced.
func (e *Engine) announce(c *call, op, rel, diff string, truncated bool, rule *schema.PermissionRule, pin string) (announcement, *Error) {
	if c.review != nil {
		if rel == c.review.rel && c.review.pin != "" && pin != c.review.pin {
			return announcement{}, fserr.Errorf(c.tool, rel, schema.KindStaleHash,
				"Conflict: file '%s' has changed since the change was shown to the reviewer (expected hash:%s, got hash:%s). Re-read the file and retry.",
				rel, c.review.pin, pin)
		}
		return announcement{asked: true}, nil
	}
	if c.hooks.ChangeRequest == nil {
		if rule != nil {
			c.audit.decide(schema.AuditRejected, schema.AuditByPolicy)
			return announcement{}, fserr.Errorf(c.tool, rel, schema.KindPermissionDenied,
				"Path '%s' needs the client's approval (an interrupt permission rule matches), but the client cannot be asked.", rel)
		}
		return announcement{}, nil
	}
	req := &schema.FileChangeRequest{
		EventBase: e.base(c, schema.KindFileChangeRequest, rel),
		Operation: op, Diff: diff, Truncated: truncated, Reason: "listener",
	}
	if rule != nil {
		req.Reason, req.Rule = "permission_rule", rule
	}
	ans, err := c.hooks.ChangeRequest(c.ctx, req)
	if err != nil {
		msg := "The change request failed, so nothing was changed."
		var de *schema.DecodeError
		if errors.As(err, &de) {
			// The client's answer did not fit the bundle (a front end decodes it with
			// schema.Decode): say which member, for the host who has to fix its client.
			msg = "The client's answer to the change request was refused (" + de.Error() + "), so nothing was changed."
		}
		return announcement{}, &Error{Op: c.tool, Path: rel, Kind: schema.KindChangeRequestFailed, Msg: msg, Err: err}
	}
	return decide(c.tool, op, rel, pin, ans)
}

// proposal is one change a tool asks about: the operation and root-relative path announced, its
// diff, the interrupt rule that matched (nil when none), the content hash the diff was computed
// from (pin, see [Engine.announce]), and what a refusal says: "[<path> was not <verb>: reason]"
// (path the refused one, else rel), or refusal itself, followed by the reason, when set.
type proposal struct {
	op, rel   string
	diff      string
	truncated bool
	rule      *schema.PermissionRule
	pin       string
	verb      string
	refused   string // the path a refusal names when it is not rel (a move names its source)
	refusal   string // the start of a refusal's text; "" for the verb's
}

// ask announces one change ([Engine.announce]) and settles, in one place for every change tool,
// the two answers that end the handler: a refusal, which sets the result's text and cancelled
// outcome (text, out), and a reviewer's replacement arguments, which it records on the call for
// Call to run once the handler has returned and released its locks ([Engine.applyReview]). stop
// reports that the handler returns its result as it stands, with err (the announcement's
// failure, which Call returns instead of the result). Otherwise the change goes ahead,
// ann.content holding the reviewer's replacement content when there is one.
func (e *Engine) ask(c *call, p proposal, text *string, out *schema.ChangeOutcome) (ann announcement, stop bool, err error) {
	ann, aerr := e.announce(c, p.op, p.rel, p.diff, p.truncated, p.rule, p.pin)
	switch {
	case aerr != nil:
		return ann, true, aerr
	case ann.cancelled && p.refusal != "":
		*text, *out = p.refusal+ann.reason+"]", schema.ChangeOutcome{Cancelled: true, CancelReason: ann.reason}
		return ann, true, nil
	case ann.cancelled:
		*text, *out = ann.refused(cmp.Or(p.refused, p.rel), p.verb)
		return ann, true, nil
	case ann.redo != nil:
		c.redo = ann.redo
		return ann, true, nil
	}
	return ann, false, nil
}

// decide turns the client's answer into an announcement. Without a decision, approve decides,
// and approve: true with a replacement is the short form of decision "edit" ({approve: true,
// content}). A decision the server does not know, a replacement with a refusal or a plain
// approval, an edit of an operation that takes none, or an edit that is not exactly one of
// content (write and edit only) and arguments is change_request_failed: it is the client's
// mistake, not the model's, and nothing is changed.
func decide(tool, op, rel, pin string, ans schema.ChangeRequestResult) (announcement, *Error) {
	bad := func(format string, args ...any) (announcement, *Error) {
		return announcement{}, &Error{Op: tool, Path: rel, Kind: schema.KindChangeRequestFailed,
			Msg: "The change request's answer was invalid, so nothing was changed: " + fmt.Sprintf(format, args...)}
	}
	replaces := ans.Content != nil || ans.Arguments != nil
	decision := ans.Decision
	switch {
	case decision != "":
	case ans.Approve && replaces:
		decision = schema.DecisionEdit
	case ans.Approve:
		decision = schema.DecisionApprove
	default:
		decision = schema.DecisionReject
	}
	if decision != schema.DecisionEdit && replaces {
		return bad("content and arguments need decision 'edit' (or approve: true), got %s.", fserr.PyRepr(decision))
	}
	switch decision {
	case schema.DecisionApprove:
		return announcement{asked: true}, nil
	case schema.DecisionReject:
		reason := ans.Reason
		if reason == "" {
			reason = defaultCancelReason
		}
		return announcement{cancelled: true, reason: reason}, nil
	case schema.DecisionEdit:
	default:
		return bad("decision must be 'approve', 'reject' or 'edit', got %s.", fserr.PyRepr(decision))
	}
	switch {
	case op == "delete" || op == "remove_directory":
		return bad("a %s cannot be edited, only approved or rejected.", op)
	case ans.Content != nil && ans.Arguments != nil:
		return bad("an edit carries content or arguments, not both.")
	case ans.Content != nil && op != "write" && op != "edit":
		return bad("content replaces the whole content of a write or an edit; edit a %s with arguments.", op)
	case ans.Content != nil:
		return announcement{asked: true, content: ans.Content}, nil
	case ans.Arguments == nil:
		return bad("an edit needs content or arguments.")
	}
	args, err := json.Marshal(ans.Arguments)
	if err != nil {
		return bad("the arguments cannot be encoded.")
	}
	return announcement{asked: true, redo: &reviewerEdit{args: args, rel: rel, pin: pin}}, nil
}

// refused returns the result text and outcome of a change the client refused: verb is
// "written", "edited" or "created".
func (a announcement) refused(rel, verb string) (string, schema.ChangeOutcome) {
	return fmt.Sprintf("[%s was not %s: %s]", fserr.PyRepr(rel), verb, a.reason),
		schema.ChangeOutcome{Cancelled: true, CancelReason: a.reason}
}

// commitSpec describes one file replacement for commitFile.
type commitSpec struct {
	op      string
	r       *resolved // the target as resolved (and checked) before the change was announced
	content []byte
	// guard is the content hash the target must still have when it is replaced: absentHash
	// for a create, "" for no check (a plain overwrite nobody announced or guarded).
	guard string
	// create allows the target to be created (write_file); edit_file never recreates a file
	// deleted meanwhile.
	create bool
	// locked is the resolved path whose lock the caller already holds (see [Engine.lockChange]);
	// "" makes commitFile take the lock of r itself.
	locked string
	// held is the cross-process lock of the parent directory when the caller took it before
	// reading the content the change is based on ([Engine.lockParent]); nil makes commitFile
	// take it itself, after opening the parent.
	held *commit.Lock
	// mode, when set, is the new file's mode (checkpoint/restore puts the recorded one back);
	// 0 keeps the old file's, or 0666 minus the umask for a new file.
	mode fs.FileMode
}

// lockChange takes the per-path lock of a change for its whole course, from reading the current
// content to the commit, so two calls changing one file in this Engine run one after the other:
// the second reads what the first wrote. Two edits without expected_hash therefore both land,
// and of two writers holding the same expected_hash exactly one wins. A call waiting for the
// client to approve its change holds the lock, so others on the same file wait their turn.
func (e *Engine) lockChange(r *resolved) (unlock func()) { return e.locks.lock(r.rel) }

// commitFile replaces (or creates) the file of s crash-atomically and returns whether it was
// created. Under the per-path lock it:
//
//  1. re-resolves the spelling and requires the same resolved path (never redirects) and the
//     write-level access again;
//  2. opens the parent directory as a sub-root and checks it is the directory resolved, then
//     holds the directory's cross-process lock ([commit.Lock]) until step 5 is done (taking it, or
//     checking that s.held is on this very directory), and sweeps the directory's stale
//     temporary files once per session ([commit.Sweeper]);
//  3. checks the target under that directory: a symlink or a different file type swapped in is
//     changed_during_request or not_regular_file; a guard that does not match the current
//     content (hashed through an O_NONBLOCK|O_NOFOLLOW descriptor verified with fstat) is
//     stale_hash;
//  4. writes the content to a hidden temporary file in the same directory (mode bits of the old
//     file, or 0666 minus umask for a new one), fsyncs it;
//  5. checks the target once more (same file; for a guarded change also the same size and
//     modification time, so a write in place since step 3 is stale_hash), then renames the
//     temporary file over it (or hard-links it into place for a create, which fails instead of
//     overwriting a file that appeared), and fsyncs the directory. Any failure removes the
//     temporary file.
//
// A crash at any point leaves the old content or the new, never a mix; it may leave a hidden
// ".fsbox-<pid>-<random>.tmp" file behind, which a later write into that directory sweeps.
func (e *Engine) commitFile(c *call, s commitSpec) (created bool, err *Error) {
	switch s.locked {
	case "":
		unlock := e.locks.lock(s.r.rel)
		defer unlock()
	case s.r.rel:
	default:
		// The target resolved elsewhere after the caller locked it: never redirect.
		return false, errChanged(s.op, s.r)
	}
	r, rerr := e.reresolve(s)
	if rerr != nil {
		return false, rerr
	}
	dirRel, name := relpath.Parent(r.rel)
	commit.Hook("open-parent")
	dir, derr := e.openParent(s.op, r, dirRel)
	if derr != nil {
		return false, derr
	}
	defer dir.Close()
	lock, lerr := e.lockCommitDir(c, s, r, dir)
	if lerr != nil {
		return false, lerr
	}
	if s.held == nil {
		defer lock.Unlock()
	}
	e.temps.Sweep(c.ctx, dir, lock)

	cur, exists, cerr := e.currentTarget(s, dir, name)
	if cerr != nil {
		return false, cerr
	}
	if exists != r.exists || exists && !sameFile(cur, r.info) {
		// Not the file the re-resolution saw: the directory was swapped under us.
		return false, errChanged(s.op, r)
	}
	before := e.auditBefore(c, s, dir, name, cur, exists)
	if !exists {
		// The git rule (execprotect.go), decided under the directory's lock and the turn.
		unturn, member := e.gitCreateTurn(name)
		defer unturn()
		if member && gitDirCompletedIn(dir, name) {
			return false, errGitDirCompleted(s.op, r)
		}
	}
	mode := fs.FileMode(0o666)
	if exists {
		mode = cur.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	}
	if s.mode != 0 {
		mode = s.mode
	}
	// The journal's entry is written now and synced while the content is (journal_record.go).
	jp, jerr := e.journalCommit(c, s, r, dir, name, cur, exists)
	if jerr != nil {
		return false, jerr
	}
	committed := false
	defer func() { jp.settle(committed) }()
	tmp, werr := writeTemp(dir, lock.File, s.content, mode, exists || s.mode != 0)
	if werr != nil {
		return false, e.writeError(s.op, r, werr)
	}
	defer func() {
		if !committed {
			dir.Remove(tmp)
		}
	}()
	if err := jp.durable(); err != nil {
		return false, errJournal(s.op, r.rel, err)
	}
	if err := e.replaceTarget(s, r, dir, tmp, name, cur); err != nil {
		return false, err
	}
	committed = true
	c.audit.committed(r.rel, before, s.content)
	syncDir(lock.File)
	return !exists, nil
}

// reresolve is step 1 of commitFile: the spelling of s resolves again to the very path resolved
// before the change was announced (never a redirection), and write access holds again.
func (e *Engine) reresolve(s commitSpec) (*resolved, *Error) {
	r, rerr := e.resolve(s.op, s.r.spelling)
	if rerr != nil {
		return nil, rerr
	}
	if r.rel != s.r.rel {
		return nil, fserr.Errorf(s.op, s.r.rel, schema.KindChangedDuringRequest, "Path %s was replaced while the change was announced. Retry.", fserr.PyRepr(s.r.spelling))
	}
	if _, err := e.checkWrite(s.op, r); err != nil {
		return nil, err
	}
	return r, nil
}

// replaceTarget is step 5 of commitFile: the target name in dir must still be what step 3 saw
// (cur, nil when it did not exist), then the temporary file tmp replaces it by rename, or for a
// create is hard-linked into place, which fails rather than overwrite a file that appeared.
func (e *Engine) replaceTarget(s commitSpec, r *resolved, dir *os.Root, tmp, name string, cur fs.FileInfo) *Error {
	exists := cur != nil
	commit.Hook("before-rename")
	again, aerr := dir.Lstat(name)
	switch {
	case exists && (aerr != nil || !sameFile(again, cur)):
		return errChanged(s.op, r)
	case exists && s.guard != "" && (again.Size() != cur.Size() || !again.ModTime().Equal(cur.ModTime())):
		// Written in place since the guard was checked (by a writer that takes no lock).
		return e.conflict(s.op, r, s.guard, "unknown")
	case !exists && aerr == nil:
		return e.conflict(s.op, r, absentHash, "unknown")
	}
	if exists {
		if err := dir.Rename(tmp, name); err != nil {
			return e.writeError(s.op, r, err)
		}
	} else {
		if err := dir.Link(tmp, name); err == nil {
			dir.Remove(tmp)
		} else if errors.Is(err, fs.ErrExist) {
			return e.conflict(s.op, r, absentHash, "unknown")
		} else if err := dir.Rename(tmp, name); err != nil {
			// No hard links on this filesystem: rename, checked just above.
			return e.writeError(s.op, r, err)
		}
	}
	return nil
}

// lockCommitDir returns the cross-process lock of dir, the verified parent of a commit: s.held
// when the caller took it, which must be on this very directory (else the directory was swapped
// since, changed_during_request), or a lock taken now, which the caller releases.
func (e *Engine) lockCommitDir(c *call, s commitSpec, r *resolved, dir *os.Root) (*commit.Lock, *Error) {
	if s.held != nil {
		got, err := dir.Stat(".")
		if err != nil || !sameFile(got, s.held.Info) {
			return nil, errChanged(s.op, r)
		}
		return s.held, nil
	}
	l, err := commit.LockDir(c.ctx, dir)
	if err != nil {
		return nil, e.lockError(c, s.op, r, err)
	}
	return l, nil
}

// openParent opens dirRel as a sub-root and verifies it is the directory Lstat sees there now
// (not a symlink or another directory swapped in).
func (e *Engine) openParent(op string, r *resolved, dirRel string) (*os.Root, *Error) {
	root, sub, m := e.rootFor(dirRel)
	if m != nil && m.readOnly {
		return nil, e.writeError(op, r, syscall.EROFS)
	}
	want, err := root.Lstat(sub)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fserr.Errorf(op, dirRel, schema.KindParentMissing, "Parent directory '%s' does not exist. %s", e.display(dirRel), e.mkdirHint())
		}
		return nil, fserr.FromOS(op, dirRel, e.display(dirRel), err)
	}
	if !want.IsDir() {
		return nil, errChanged(op, r)
	}
	dir, err := root.OpenRoot(sub)
	if err != nil {
		return nil, e.openError(op, r, err)
	}
	got, err := dir.Stat(".")
	if err != nil || !sameFile(got, want) {
		dir.Close()
		return nil, errChanged(op, r)
	}
	return dir, nil
}

// mkdirHint tells the model how to create a missing parent, naming create_directory only when
// it is enabled.
func (e *Engine) mkdirHint() string {
	if e.enabled[schema.ToolCreateDirectory] {
		return "Use create_directory first."
	}
	return "Create the parent directory first."
}

// currentTarget checks the target name in dir against s (step 3 of commitFile) and returns its
// Lstat when it exists.
func (e *Engine) currentTarget(s commitSpec, dir *os.Root, name string) (fs.FileInfo, bool, *Error) {
	fi, err := dir.Lstat(name)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, false, fserr.FromOS(s.op, s.r.rel, s.r.spelling, err)
		}
		switch {
		case !s.create:
			return nil, false, fserr.Errorf(s.op, s.r.rel, schema.KindNotFound, "File not found: %s", s.r.spelling)
		case s.guard != "" && s.guard != absentHash:
			return nil, false, e.conflict(s.op, s.r, s.guard, absentHash)
		}
		return nil, false, nil
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, false, errChanged(s.op, s.r)
	case fi.IsDir():
		return nil, false, fserr.Errorf(s.op, s.r.rel, schema.KindNotAFile, "Path %s exists and is not a regular file.", fserr.PyRepr(s.r.spelling))
	case !fi.Mode().IsRegular():
		return nil, false, errNotRegular(s.op, s.r)
	case s.guard == absentHash:
		h, herr := hashIn(dir, name, fi)
		if herr != nil {
			h = "<unreadable>"
		}
		return nil, false, e.conflict(s.op, s.r, absentHash, h)
	case s.guard != "":
		h, herr := hashIn(dir, name, fi)
		if herr != nil {
			if errors.Is(herr, errSwapped) {
				return nil, false, errChanged(s.op, s.r)
			}
			return nil, false, fserr.FromOS(s.op, s.r.rel, s.r.spelling, herr)
		}
		if h != s.guard {
			return nil, false, e.conflict(s.op, s.r, s.guard, h)
		}
	}
	return fi, true, nil
}

// conflict is the stale_hash error: the file is not what the caller (or the announcement) saw.
func (e *Engine) conflict(op string, r *resolved, expected, got string) *Error {
	return fserr.Errorf(op, r.rel, schema.KindStaleHash,
		"Conflict: file '%s' has changed (expected hash:%s, got hash:%s). Re-read the file and retry.",
		r.spelling, expected, got)
}

// errSwapped reports that a file opened for a check was not the file checked.
var errSwapped = errors.New("file changed while it was opened")

// hashIn hashes the regular file name in dir through a non-blocking, non-following descriptor
// that must be the file want describes.
func hashIn(dir *os.Root, name string, want fs.FileInfo) (string, error) {
	f, err := dir.OpenFile(name, openFlagsRead, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() || !sameFile(fi, want) {
		return "", errSwapped
	}
	h := text.NewHash()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return text.ShortHash(h), nil
}

// writeTemp writes content to a new hidden temporary file in dir (named by newTempName) and
// fsyncs it; the caller holds dir's lock until the file is renamed or removed. For a
// replacement the mode is set explicitly (the old file's bits); a new file gets 0666 minus the
// umask, like any created file.
//
// dirFile is dir itself, open (the directory lock's descriptor): where the platform can, the
// temporary file is created relative to it (createTemp), outside the runtime poller.
func writeTemp(dir *os.Root, dirFile *os.File, content []byte, mode fs.FileMode, replacing bool) (string, error) {
	name := commit.NewTempName()
	perm := fs.FileMode(0o666)
	if replacing {
		perm = 0o600
	}
	f, err := createTemp(dir, dirFile, name, perm)
	if err != nil {
		return "", err
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			dir.Remove(name)
		}
	}()
	if replacing {
		if err := f.Chmod(mode); err != nil {
			return "", err
		}
	}
	if _, err := f.Write(content); err != nil {
		return "", err
	}
	if err := f.Sync(); err != nil {
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	ok = true
	return name, nil
}

// syncDir fsyncs a directory, open as dirFile (the directory lock's descriptor), so a rename in
// it survives a crash; failures are ignored (some filesystems cannot sync directories, and the
// data itself is already synced).
func syncDir(dirFile *os.File) { dirFile.Sync() }

// writeError maps an error writing r: ENOSPC, EROFS and EIO are fatal kinds, the rest as
// fserr.FromOS.
func (e *Engine) writeError(op string, r *resolved, err error) *Error {
	if fserr.IsRootEscape(err) {
		return errChanged(op, r)
	}
	return fserr.FromOS(op, r.rel, r.spelling, err)
}
