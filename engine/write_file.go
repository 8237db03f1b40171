package engine

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"unicode/utf8"

	"github.com/fsbox/fsbox/engine/internal/commit"
	"github.com/fsbox/fsbox/engine/internal/fserr"
	"github.com/fsbox/fsbox/engine/internal/relpath"
	"github.com/fsbox/fsbox/engine/internal/scan"
	"github.com/fsbox/fsbox/engine/internal/text"
	"github.com/fsbox/fsbox/engine/internal/textdiff"
	"github.com/fsbox/fsbox/schema"
)

// writeFile serves write_file. Order of checks (nothing is announced or written when one fails):
// resolution and containment, write-level access, the target's type (a directory or a
// non-regular file is refused), a malformed expected_hash on a file that does not exist
// (invalid_arguments), the parent (missing or not a directory), expected_hash (ignored when the
// file does not exist; a malformed one on an existing file is a stale_hash conflict), then the
// announcement and the crash-atomic commit.
func (e *Engine) writeFile(c *call, a *schema.WriteFileArgs) (*schema.WriteFileResult, error) {
	expected, badExpected, herr := e.expectedHash(c.tool, a.ExpectedHash)
	if herr != nil {
		return nil, herr
	}
	r, rule, rerr := e.resolveFor(c.tool, a.Path, accessWrite)
	if rerr != nil {
		return nil, rerr
	}
	if badExpected && !r.exists {
		return nil, badHash(c.tool, a.ExpectedHash)
	}
	unlock := e.lockChange(r)
	defer unlock()
	locked := r.rel
	if err := e.writableTarget(c.tool, r); err != nil {
		return nil, err
	}
	needAsk := c.hooks.ChangeRequest != nil || rule != nil
	var held *commit.Lock
	if !needAsk {
		// Nobody is asked: the expected_hash check and the commit are one turn under the
		// cross-process lock.
		var lerr *Error
		if held, lerr = e.lockParent(c, r); lerr != nil {
			return nil, lerr
		}
		defer held.Unlock()
	}
	r, old, oldKnown, current, oerr := e.currentContent(c, r, expected != "" || needAsk, expected == "")
	if oerr != nil {
		return nil, oerr
	}
	if expected != "" && r.exists && expected != current {
		return nil, e.conflict(c.tool, r, expected, current)
	}
	guard := ""
	if expected != "" && r.exists {
		guard = expected
	}
	res := &schema.WriteFileResult{Path: e.displayOf(r)}
	if needAsk {
		if guard == "" {
			guard = current
		}
		diff, truncated := textdiff.HeadersOnly(r.rel), true
		if oldKnown || !r.exists {
			diff, truncated = textdiff.Unified(r.rel, text.DecodeLenient(old), a.Content)
		}
		ann, stop, err := e.ask(c, proposal{op: "write", rel: r.rel, diff: diff, truncated: truncated, rule: rule, pin: current, verb: "written"}, &res.Text, &res.ChangeOutcome)
		if stop {
			return res, err
		}
		switch {
		case ann.content != nil && *ann.content != a.Content:
			// The reviewer's content, under the same lock and guard as the model's; the
			// proposal sent back unchanged is a plain approval.
			a.Content = *ann.content
			res.ModifiedByReviewer = true
		}
	}
	res.ModifiedByReviewer = res.ModifiedByReviewer || c.reviewed()
	content := []byte(a.Content)
	created, cerr := e.commitFile(c, commitSpec{op: c.tool, r: r, content: content, guard: guard, create: true, locked: locked, held: held})
	if cerr != nil {
		return nil, cerr
	}
	e.wrote(c, res, r, a, content, created)
	return res, nil
}

// currentContent reads the current content of r for a write that checks or announces it (read):
// its first bytes (old, whole when oldKnown) and its hash (current; absentHash for a new file).
// A write-only file is announced with headers only and replaced unguarded (current "") when
// unguarded allows it (no expected_hash); r is returned as opened.
func (e *Engine) currentContent(c *call, r *resolved, read, unguarded bool) (_ *resolved, old []byte, oldKnown bool, current string, _ *Error) {
	current = absentHash
	if r.exists && read {
		r2, f, _, oerr := e.openStable(c.tool, r, accessWrite)
		switch {
		case oerr == nil:
			r = r2
			var size int64
			var err error
			old, current, size, err = readHead(f, maxAnnouncedOldBytes+1)
			f.Close()
			if err != nil {
				return nil, nil, false, "", fserr.FromOS(c.tool, r.rel, r.spelling, err)
			}
			oldKnown = size <= maxAnnouncedOldBytes
		case unguarded && oerr.Kind == schema.KindPermissionDenied:
			// A write-only file: announce it with headers only and replace it unguarded.
			current = ""
		default:
			return nil, nil, false, "", oerr
		}
	}
	return r, old, oldKnown, current, nil
}

// wrote completes the result of a write that landed: the post_edit hooks run, the event is
// delivered, and the text says what was written, its hash, and the reviewer's and hooks' part.
func (e *Engine) wrote(c *call, res *schema.WriteFileResult, r *resolved, a *schema.WriteFileArgs, content []byte, created bool) {
	h := text.ContentHash(content)
	after := e.runPostEdit(c, r.rel, h, "write")
	if after != nil {
		h = after.hash
	}
	c.emit(&schema.FileWrittenEvent{EventBase: e.base(c, schema.KindFileWritten, r.rel), ContentHash: h, PostEdit: after.runList(),
		ModifiedByReviewer: res.ModifiedByReviewer})
	res.Created = created
	res.Chars = utf8.RuneCountInString(a.Content)
	res.Lines = text.CountLines(a.Content)
	res.Text = fmt.Sprintf("Wrote %d chars (%d lines) to %s.", res.Chars, res.Lines, a.Path)
	e.endChangeText(&res.Text, &res.Hash, h, res.ModifiedByReviewer, after, &res.PostEditOutcome)
}

// writableTarget checks, before anything is announced, that r can receive a file: not a
// directory or a non-regular file, not spelled as a directory, and with an existing parent
// directory.
func (e *Engine) writableTarget(op string, r *resolved) *Error {
	if r.exists {
		switch {
		case r.info.IsDir():
			return fserr.Errorf(op, r.rel, schema.KindNotAFile, "Path %s exists and is not a regular file.", fserr.PyRepr(r.spelling))
		case !r.info.Mode().IsRegular():
			return errNotRegular(op, r)
		}
	}
	if r.dirSlash {
		return fserr.Errorf(op, r.rel, schema.KindInvalidPath, "Path %s ends in '/', which names a directory; a file path cannot.", fserr.PyRepr(r.spelling))
	}
	if r.exists {
		return nil
	}
	dirRel, _ := relpath.Parent(r.rel)
	root, sub, _ := e.rootFor(dirRel)
	fi, err := root.Lstat(sub)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fserr.Errorf(op, dirRel, schema.KindParentMissing, "Parent directory '%s' does not exist. %s", e.display(dirRel), e.mkdirHint())
	case err != nil:
		return fserr.FromOS(op, dirRel, r.spelling, err)
	case !fi.IsDir():
		return fserr.Errorf(op, dirRel, schema.KindParentNotDirectory, "Path %s has a parent that is not a directory.", fserr.PyRepr(r.spelling))
	}
	return nil
}

// expectedHash validates an expected_hash argument: refused as unknown when content hashes are
// off (the argument is not in the schema then). A value that is not a hash is not refused here:
// it is returned as junk (never equal to a real hash, see malformedHash) with bad set, because
// the answer depends on the file. On an existing file it is a stale_hash conflict like any hash
// that does not match, the answer the model knows how to recover from (re-read, retry); on a
// file that does not exist, where a real hash would be ignored, it is badHash's invalid_arguments.
func (e *Engine) expectedHash(op, s string) (h string, bad bool, err *Error) {
	if s == "" {
		return "", false, nil
	}
	if !e.hashes {
		return "", false, fserr.Errorf(op, "", schema.KindInvalidArguments, "Unknown argument 'expected_hash': content hashes are off.")
	}
	h, ok := text.ParseExpectedHash(s)
	if !ok {
		return malformedHash(h), true, nil
	}
	return h, false, nil
}

// malformedHash is how a malformed expected_hash h appears in a conflict message: clipped to 32
// characters, so a huge argument is not echoed, and never 12 hex digits, so it matches no file.
func malformedHash(h string) string {
	const keep = 32
	if h == "" {
		return "''"
	}
	if rs := []rune(h); len(rs) > keep {
		h = string(rs[:keep]) + "…"
	}
	return h
}

// badHash is the error for a malformed expected_hash on a file that does not exist.
func badHash(op, raw string) *Error {
	return fserr.Errorf(op, "", schema.KindInvalidArguments, "expected_hash must be the 12-character hash read_file reported (hash:<12 hex digits>), got %s.", fserr.PyRepr(malformedHash(strings.TrimSpace(raw))))
}

// readHead reads up to limit bytes of f and hashes all of it; size is the file's length as read.
func readHead(f io.Reader, limit int) (head []byte, hash string, size int64, err error) {
	h := text.NewHash()
	cr := &scan.CountingReader{R: f, H: h}
	buf := make([]byte, limit)
	n, err := io.ReadFull(cr, buf)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, "", 0, err
	}
	if _, err := io.Copy(io.Discard, cr); err != nil {
		return nil, "", 0, err
	}
	return buf[:n], text.ShortHash(h), cr.N, nil
}
