package engine

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/fsbox/fsbox/engine/internal/journal"
	"github.com/fsbox/fsbox/engine/internal/text"
	"github.com/fsbox/fsbox/engine/internal/textdiff"
	"github.com/fsbox/fsbox/schema"
)

// undo_last_change, the opt-in tool that takes back the latest change made through the tools
// (docs/protocol.md §10), from the journal of before-images (checkpoint.go). It restores through
// the same path as checkpoint/restore: containment, policy and the crash-atomic commit; a file
// someone else changed since is left alone and named, never clobbered.

// undoLastChange serves undo_last_change: the latest call's changes that were neither an undo
// nor undone, put back like a restore (conflicts left alone and named), announced first.
func (e *Engine) undoLastChange(c *call, _ *schema.UndoLastChangeArgs) (*schema.UndoLastChangeResult, error) {
	res := &schema.UndoLastChangeResult{Paths: []string{}}
	group := e.jr.LastGroup()
	if len(group) == 0 {
		res.Text = "Nothing to undo."
		return res, nil
	}
	var changes []journal.Change
	seen := map[string]bool{}
	var rule *schema.PermissionRule
	for _, en := range group {
		if seen[en.Path] {
			continue
		}
		seen[en.Path] = true
		last, lastBefore, _ := e.jr.LastAfter(en.Path)
		changes = append(changes, journal.Change{Path: en.Path, Target: en.Before, Last: last, LastBefore: lastBefore})
	}
	var diff strings.Builder
	for _, ch := range changes {
		if r, _, err := e.resolveFor(c.tool, e.display(ch.Path), accessWrite); err == nil {
			if rr, _ := e.checkWrite(c.tool, r); rr != nil && rule == nil {
				rule = rr
			}
		}
		diff.WriteString(e.undoDiff(c.tool, ch))
	}
	d := diff.String()
	truncated := false
	if len(d) > e.maxOutputChars {
		d, truncated = d[:e.maxOutputChars], true
	}
	ann, aerr := e.announce(c, "patch", changes[0].Path, d, truncated, rule, "")
	if aerr != nil {
		return nil, aerr
	}
	switch {
	case ann.cancelled:
		res.Text, res.ChangeOutcome = ann.refused(changes[0].Path, "undone")
		return res, nil
	case ann.redo != nil || ann.content != nil:
		return nil, &Error{Op: c.tool, Kind: schema.KindChangeRequestFailed, Msg: "The change request's answer was invalid, so nothing was changed: an undo can only be approved or rejected."}
	}
	c.undoes = group[0].Group
	r := e.restore(c, changes, false)
	var names []string
	for _, p := range r.Restored {
		res.Paths = append(res.Paths, e.display(p))
		names = append(names, e.display(p))
	}
	switch {
	case len(names) > 0:
		res.Text = "Undid the last change: " + strings.Join(names, ", ") + "."
	case len(r.NotRestored) == 0:
		res.Text = "The last change was already undone: every file is as it was before it."
	default:
		res.Text = "Could not undo the last change."
	}
	for _, f := range r.NotRestored {
		why := f.Reason
		if f.Kind == failConflict {
			why = "it was changed since by someone else"
		}
		res.Text += fmt.Sprintf("\nNot undone: %s (%s)", e.display(f.Path), why)
	}
	return res, nil
}

// undoDiff is the diff an undo announces for one path: from now back to its before-image.
func (e *Engine) undoDiff(op string, ch journal.Change) string {
	cur, content, _ := e.currentState(op, ch.Path, true)
	old := ""
	if ch.Target.Kind == journal.File {
		if b, err := e.jr.Content(ch.Target); err == nil && utf8.Valid(b) && !text.HasNUL(b) && len(b) <= maxAnnouncedOldBytes {
			old = string(b)
		} else {
			return textdiff.HeadersOnly(ch.Path)
		}
	}
	now := ""
	if cur.Kind == journal.File {
		if content == nil || !utf8.Valid(content) {
			return textdiff.HeadersOnly(ch.Path)
		}
		now = string(content)
	}
	d, _ := textdiff.Unified(ch.Path, now, old)
	return d
}
