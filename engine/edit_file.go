package engine

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/fsbox/fsbox/engine/internal/commit"
	"github.com/fsbox/fsbox/engine/internal/fserr"
	"github.com/fsbox/fsbox/engine/internal/text"
	"github.com/fsbox/fsbox/engine/internal/textdiff"
	"github.com/fsbox/fsbox/schema"
)

// editFile serves edit_file. The replacements are applied to the file's raw bytes: each old_text
// (UTF-8) must occur exactly once in the bytes produced by the previous replacement, and every
// byte outside the replaced spans is kept verbatim, CRLF and bytes that are not UTF-8 included.
// The file is written once, only when every replacement matched, guarded by the hash of the
// bytes the edit was computed from.
func (e *Engine) editFile(c *call, a *schema.EditFileArgs) (*schema.EditFileResult, error) {
	reps, verr := editReplacements(c.tool, a)
	if verr != nil {
		return nil, verr
	}
	// A malformed expected_hash needs no case of its own: edit_file needs the file, so it is a
	// stale_hash conflict (or the file's not_found).
	expected, _, herr := e.expectedHash(c.tool, a.ExpectedHash)
	if herr != nil {
		return nil, herr
	}
	r, rule, rerr := e.resolveFor(c.tool, a.Path, accessWrite)
	if rerr != nil {
		return nil, rerr
	}
	unlock := e.lockChange(r)
	defer unlock()
	locked := r.rel
	asks := c.hooks.ChangeRequest != nil || rule != nil
	var held *commit.Lock
	if !asks && r.exists {
		// Nobody is asked, so the read the edit is based on and its commit are one turn under
		// the cross-process lock: another fsbox process cannot change the file in between.
		var lerr *Error
		if held, lerr = e.lockParent(c, r); lerr != nil {
			return nil, lerr
		}
		defer held.Unlock()
	}
	r, old, oerr := e.readEditable(c, r, a.Path)
	if oerr != nil {
		return nil, oerr
	}
	current := text.ContentHash(old)
	if expected != "" && expected != current {
		return nil, e.conflict(c.tool, r, expected, current)
	}
	updated, count, eerr := applyReplacements(c.tool, r, a.Path, old, reps, a.ReplaceAll)
	if eerr != nil {
		return nil, eerr
	}
	diff, truncated := textdiff.Unified(r.rel, text.DecodeLenient(old), text.DecodeLenient(updated))
	res := &schema.EditFileResult{Path: e.displayOf(r)}
	res.ModifiedByReviewer = c.reviewed()
	if asks {
		ann, stop, err := e.ask(c, proposal{op: "edit", rel: r.rel, diff: diff, truncated: truncated, rule: rule, pin: current, verb: "edited"}, &res.Text, &res.ChangeOutcome)
		if stop {
			return res, err
		}
		if ann.content != nil && *ann.content != string(updated) {
			if err := reviewerTextOnly(c, r.rel, *ann.content); err != nil {
				return nil, err
			}
			updated = []byte(*ann.content)
			diff, truncated = textdiff.Unified(r.rel, text.DecodeLenient(old), *ann.content)
			res.ModifiedByReviewer = true
		}
	}
	if _, cerr := e.commitFile(c, commitSpec{op: c.tool, r: r, content: updated, guard: current, locked: locked, held: held}); cerr != nil {
		if cerr.Kind == schema.KindStaleHash && expected == "" {
			// The guard is the edit's own read, not a hash the model gave: the file changed
			// under the edit, which is a race to retry, not a stale hash to re-read.
			return nil, errChanged(c.tool, r)
		}
		return nil, cerr
	}
	e.edited(c, res, r, a.Path, old, updated, diff, truncated, count)
	return res, nil
}

// readEditable reads the whole current content of the file r an edit is computed from (spelled
// path, for the message) and refuses a binary one; r is returned as opened. edit_file and the
// text editor's str_replace and insert share it.
func (e *Engine) readEditable(c *call, r *resolved, path string) (*resolved, []byte, *Error) {
	r, f, fi, oerr := e.openStable(c.tool, r, accessWrite)
	if oerr != nil {
		return nil, nil, oerr
	}
	old, err := readAllSized(f, fi.Size())
	f.Close()
	if err != nil {
		return nil, nil, fserr.FromOS(c.tool, r.rel, r.spelling, err)
	}
	if text.HasNUL(old) {
		return nil, nil, fserr.Errorf(c.tool, r.rel, schema.KindBinaryFile, "%s is a binary file; %s only edits text files.", path, c.tool)
	}
	return r, old, nil
}

// edited completes the result of an edit that landed: the post_edit hooks run, the event carries
// the diff as the change stands after them, and the text says what was edited, its hash, and the
// reviewer's and hooks' part.
func (e *Engine) edited(c *call, res *schema.EditFileResult, r *resolved, path string, old, updated []byte, diff string, truncated bool, count int) {
	h := text.ContentHash(updated)
	after := e.runPostEdit(c, r.rel, h, "edit")
	if after != nil && after.changed {
		// The event shows the change as it stands after the hooks.
		h = after.hash
		switch {
		case h == absentHash:
			diff, truncated = textdiff.HeadersOnly(r.rel), true
		case after.whole:
			diff, truncated = textdiff.Unified(r.rel, text.DecodeLenient(old), text.DecodeLenient(after.content))
		default:
			diff, truncated = textdiff.HeadersOnly(r.rel), true
		}
	}
	c.emit(&schema.FileEditedEvent{EventBase: e.base(c, schema.KindFileEdited, r.rel), ContentHash: h, PostEdit: after.runList(),
		Diff: diff, Truncated: truncated, Replacements: count, ModifiedByReviewer: res.ModifiedByReviewer})
	res.Replacements = count
	res.Text = fmt.Sprintf("Edited %s.", path)
	e.endChangeText(&res.Text, &res.Hash, h, res.ModifiedByReviewer, after, &res.PostEditOutcome)
}

// editReplacements returns the replacements of a call in either argument form, or pydantic-ai-harness's
// invalid_arguments messages when the forms are mixed or incomplete.
func editReplacements(op string, a *schema.EditFileArgs) ([]schema.Replacement, *Error) {
	pair := a.OldText != nil || a.NewText != nil
	if a.Replacements != nil {
		if pair || len(a.Replacements) == 0 {
			return nil, fserr.Errorf(op, "", schema.KindInvalidArguments, "Provide either old_text and new_text or a non-empty replacements list, not both.")
		}
		return a.Replacements, nil
	}
	if a.OldText == nil || a.NewText == nil {
		return nil, fserr.Errorf(op, "", schema.KindInvalidArguments, "Provide old_text and new_text, or a non-empty replacements list.")
	}
	return []schema.Replacement{{OldText: *a.OldText, NewText: *a.NewText}}, nil
}

// applyReplacements applies reps in order to content (raw bytes) and returns the new bytes; the
// first replacement that is empty, missing or ambiguous fails the whole edit. With all, every
// occurrence of each old_text is replaced (none is still no_match). name is the path as the
// model spelled it; count is the number of occurrences replaced.
func applyReplacements(op string, r *resolved, name string, content []byte, reps []schema.Replacement, all bool) (_ []byte, count int, _ *Error) {
	out := content
	for i, rep := range reps {
		label := "old_text"
		if len(reps) > 1 {
			label = fmt.Sprintf("replacement %d", i+1)
		}
		if rep.OldText == "" {
			return nil, 0, fserr.Errorf(op, r.rel, schema.KindEmptyOldText, "%s is empty; old_text must be the exact text to replace.", label)
		}
		old := []byte(rep.OldText)
		switch n := bytes.Count(out, old); {
		case n == 0:
			if strings.ContainsRune(rep.OldText, utf8.RuneError) && !utf8.Valid(out) {
				return nil, 0, fserr.Errorf(op, r.rel, schema.KindInvalidEncoding,
					"%s not found in %s: it contains U+FFFD, which read_file shows for bytes that are not UTF-8, and those bytes cannot be matched as text. Choose old_text that avoids them. No changes were written.", label, name)
			}
			return nil, 0, fserr.Errorf(op, r.rel, schema.KindNoMatch, "%s not found in %s. No changes were written.", label, name)
		case all:
			out = bytes.ReplaceAll(out, old, []byte(rep.NewText))
			count += n
			continue
		case n > 1:
			return nil, 0, fserr.Errorf(op, r.rel, schema.KindMultipleMatches, "%s found %d times in %s. Include more surrounding context to make the match unique. No changes were written.", label, n, name)
		}
		at := bytes.Index(out, old)
		next := make([]byte, 0, len(out)-len(old)+len(rep.NewText))
		next = append(next, out[:at]...)
		next = append(next, rep.NewText...)
		next = append(next, out[at+len(old):]...)
		out = next
		count++
	}
	return out, count, nil
}

// readAllSized reads f to its end into a buffer sized from its fstat size (plus one byte to see
// the end), so a file read whole takes two reads instead of io.ReadAll's doubling steps; a file
// that grew meanwhile is still read whole.
func readAllSized(f io.Reader, size int64) ([]byte, error) {
	if size < 0 || size > 1<<30 {
		size = 0
	}
	buf := make([]byte, 0, size+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// reviewerTextOnly refuses a reviewer's replacement content that is binary (a NUL byte anywhere)
// for a tool that edits text: the edit tools never write binary content, whoever supplies it.
func reviewerTextOnly(c *call, rel, content string) *Error {
	if strings.IndexByte(content, 0) < 0 {
		return nil
	}
	return fserr.Errorf(c.tool, rel, schema.KindChangeRequestFailed,
		"The reviewer's replacement content is binary (it has a NUL byte); %s only writes text. Nothing was changed.", c.tool)
}
