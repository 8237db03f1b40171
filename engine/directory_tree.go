package engine

import (
	"io/fs"
	"strings"

	"github.com/fsbox/fsbox/engine/internal/fserr"
	"github.com/fsbox/fsbox/engine/internal/text"
	"github.com/fsbox/fsbox/schema"
)

// directoryTree lists a directory recursively, depth first with siblings sorted, one
// list_directory line per entry, down to max_depth levels (unlimited by default) and capped at
// max_list_results entries and the max_output_chars budget (walk rules 1–7 in walk.go). Unreadable subdirectories are shown but
// not expanded.
func (e *Engine) directoryTree(c *call, a *schema.DirectoryTreeArgs) (*schema.DirectoryTreeResult, error) {
	maxDepth := -1
	if a.MaxDepth != nil {
		if *a.MaxDepth < 1 {
			return nil, fserr.Errorf(c.tool, "", schema.KindInvalidArguments, "max_depth must be at least 1, got %d.", *a.MaxDepth)
		}
		maxDepth = *a.MaxDepth
	}
	r, dir, err := e.openWalkRoot(c, a.Path, false)
	if err != nil {
		return nil, err
	}
	root := newShared(dir.h)
	defer root.release()
	ents, lerr := listWithInfo(dir.h)
	if lerr != nil && len(ents) == 0 {
		return nil, fserr.FromOS(c.tool, r.rel, r.spelling, lerr)
	}
	t := &treeWalk{e: e, c: c, filter: e.newWalkFilter(c), maxDepth: maxDepth, pre: newPrefetcher(listWithInfo), budget: e.newBudget(), typed: c.typed()}
	defer t.pre.stop()
	t.res = &schema.DirectoryTreeResult{Path: e.display(dir.lex), Entries: []schema.DirEntry{}}
	if werr := t.walk(root, dir, ents, 1); werr != nil {
		return nil, werr
	}
	res := t.res
	if t.budget.Over {
		endBudget(&t.b, t.budget.Limit, "show a subdirectory, or a smaller max_depth", t.filter.hidden)
	} else {
		endListing(&t.b, res.Truncated, t.shown, e.maxListResults, "entries", "(empty directory)", t.filter.hidden)
	}
	if endWork(&t.b, t.filter.work, t.filter.load, "show a subdirectory, or a smaller max_depth") {
		res.Truncated = true
	}
	h := t.filter.hidden
	res.Hidden = &h
	res.Text = t.b.String()
	c.emit(&schema.DirectoryListedEvent{
		EventBase:  e.base(c, schema.KindDirectoryListed, r.rel),
		EntryCount: t.shown,
	})
	return res, nil
}

// treeWalk is the state of one directory_tree call.
type treeWalk struct {
	e        *Engine
	c        *call
	filter   *walkFilter
	maxDepth int // -1: unlimited
	pre      *prefetcher
	res      *schema.DirectoryTreeResult
	b        strings.Builder
	budget   text.Budget
	shown    int  // entries shown so far (res.Entries holds them unless the call is text only)
	typed    bool // the caller wants res.Entries (call.typed)
}

// walk adds the entries ents of dir (at depth, open as sh) and, depth first, of its
// subdirectories, whose listings it queues for the prefetcher first. A subdirectory that cannot
// be read is shown unexpanded.
func (t *treeWalk) walk(sh *sharedHandle, dir *walkDir, ents []fs.DirEntry, depth int) *Error {
	t.filter.enter(dir, ents)
	visible := make([]walkEntry, 0, len(ents))
	for _, de := range ents {
		if ent, ok := t.filter.entry(dir, de, true); ok {
			visible = append(visible, ent)
		}
	}
	expand := func(ent *walkEntry) bool { return depth != t.maxDepth && t.filter.descend(ent) }
	for i := len(visible) - 1; i >= 0; i-- {
		if expand(&visible[i]) {
			t.pre.queue(sh, visible[i].name, visible[i].rel)
		}
	}
	for i := range visible {
		ent := &visible[i]
		if !t.filter.live() {
			if err := t.c.ctx.Err(); err != nil {
				return cancelled(t.c.tool, err)
			}
			return nil // the work budget is spent; endWork says so
		}
		if t.shown == t.e.maxListResults {
			t.res.Truncated = true
			return nil
		}
		if !t.e.fitEntry(&t.budget, &t.b, ent) {
			t.res.Truncated = true // every later entry comes after this one: the walk ends
			return nil
		}
		t.shown++
		if t.typed {
			t.res.Entries = append(t.res.Entries, t.e.dirEntryOf(ent, depth))
		}
		if !expand(ent) {
			continue
		}
		child, childEnts, err, ok := t.pre.take(ent.rel)
		if !ok {
			var h dirHandle
			if h, err = sh.h.child(ent.name); err == nil {
				child = newShared(h)
				childEnts, err = listWithInfo(h)
			}
		}
		if err != nil {
			if child != nil {
				child.release()
			}
			continue // vanished or swapped meanwhile: shown, not expanded
		}
		werr := t.walk(child, &walkDir{rel: ent.rel, lex: ent.lex, h: child.h, up: dir.ign}, childEnts, depth+1)
		child.release()
		if werr != nil || t.res.Truncated {
			return werr
		}
	}
	return nil
}
