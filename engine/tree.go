package engine

import (
	"strings"

	"github.com/fsbox/fsbox/schema"
)

func init() {
	register(schema.ToolDirectoryTree, tool((*Engine).directoryTree))
}

// directoryTree lists a directory recursively, depth first with siblings sorted, one
// list_directory line per entry, down to max_depth levels (unlimited by default) and capped at
// max_list_results entries (walk rules 1–7 in walk.go). Unreadable subdirectories are shown but
// not expanded.
func (e *Engine) directoryTree(c *call, a *schema.DirectoryTreeArgs) (*schema.DirectoryTreeResult, error) {
	maxDepth := -1
	if a.MaxDepth != nil {
		if *a.MaxDepth < 1 {
			return nil, errorf(c.tool, "", kindInvalidArguments, "max_depth must be at least 1, got %d.", *a.MaxDepth)
		}
		maxDepth = *a.MaxDepth
	}
	r, dir, err := e.openWalkRoot(c, a.Path, false)
	if err != nil {
		return nil, err
	}
	defer dir.close()
	t := &treeWalk{e: e, c: c, filter: e.newWalkFilter(), maxDepth: maxDepth}
	t.res = &schema.DirectoryTreeResult{Path: e.display(dir.lex), Entries: []schema.DirEntry{}}
	if rerr := t.walk(dir, 1); rerr != nil {
		return nil, rerr
	}
	res := t.res
	endListing(&t.b, res.Truncated, len(res.Entries), e.maxListResults, "entries", "(empty directory)")
	res.Text = t.b.String()
	c.emit(&schema.DirectoryListedEvent{
		EventBase:  e.base(c, schema.KindDirectoryListed, r.rel),
		EntryCount: len(res.Entries),
	})
	return res, nil
}

// treeWalk is the state of one directory_tree call.
type treeWalk struct {
	e        *Engine
	c        *call
	filter   *walkFilter
	maxDepth int // -1: unlimited
	res      *schema.DirectoryTreeResult
	b        strings.Builder
}

// walk adds the entries of dir (at depth) and, depth first, of its subdirectories. Only the
// root's listing failing is an error; a subdirectory that cannot be read is shown unexpanded.
func (t *treeWalk) walk(dir *walkDir, depth int) *Error {
	raw, err := dir.readNames()
	if err != nil && depth == 1 {
		return osError(t.c.tool, dir.rel, t.e.display(dir.lex), err)
	}
	for _, de := range raw {
		if t.res.Truncated {
			return nil
		}
		if err := t.c.ctx.Err(); err != nil {
			return cancelled(t.c.tool, err)
		}
		ent, ok := t.filter.entry(dir, de, true)
		if !ok {
			continue
		}
		if len(t.res.Entries) == t.e.maxListResults {
			t.res.Truncated = true
			return nil
		}
		if len(t.res.Entries) > 0 {
			t.b.WriteByte('\n')
		}
		t.e.entryLine(&t.b, &ent)
		t.res.Entries = append(t.res.Entries, t.e.dirEntryOf(&ent, depth))
		if depth == t.maxDepth || !t.filter.descend(&ent) {
			continue
		}
		sub, oerr := dir.child(&ent)
		if oerr != nil {
			continue // vanished or swapped meanwhile: shown, not expanded
		}
		werr := t.walk(sub, depth+1)
		sub.close()
		if werr != nil {
			return werr
		}
	}
	return nil
}
