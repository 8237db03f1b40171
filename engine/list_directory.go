package engine

import (
	"strings"

	"github.com/fsbox/fsbox/engine/internal/fserr"
	"github.com/fsbox/fsbox/schema"
)

// listDirectory lists one directory: sorted "dir/" and "file  (N bytes)" lines, "(empty
// directory)" when nothing is visible, capped at max_list_results and the max_output_chars budget
// (walk rules 1–7 in walk.go).
func (e *Engine) listDirectory(c *call, a *schema.ListDirectoryArgs) (*schema.ListDirectoryResult, error) {
	r, dir, err := e.openWalkRoot(c, a.Path, false)
	if err != nil {
		return nil, err
	}
	defer dir.close()
	raw, rerr := dir.readNames()
	if rerr != nil {
		return nil, fserr.FromOS(c.tool, r.rel, r.spelling, rerr)
	}
	res := &schema.ListDirectoryResult{Path: e.display(dir.lex), Entries: []schema.DirEntry{}}
	filter := e.newWalkFilter(c)
	filter.enter(dir, raw)
	budget := e.newBudget()
	var b strings.Builder
	shown, typed := 0, c.typed()
	if typed {
		res.Entries = make([]schema.DirEntry, 0, len(raw))
	}
	for _, de := range raw {
		if !filter.live() {
			break
		}
		ent, ok := filter.entry(dir, de, true)
		if !ok {
			continue
		}
		if shown == e.maxListResults {
			res.Truncated = true
			break
		}
		if !e.fitEntry(&budget, &b, &ent) {
			res.Truncated = true
			break
		}
		shown++
		if typed {
			res.Entries = append(res.Entries, e.dirEntryOf(&ent, 0))
		}
	}
	if budget.Over {
		endBudget(&b, budget.Limit, "list a subdirectory, or use find_files with a narrower pattern", filter.hidden)
	} else {
		endListing(&b, res.Truncated, shown, e.maxListResults, "entries", "(empty directory)", filter.hidden)
	}
	if err := c.ctx.Err(); err != nil {
		return nil, cancelled(c.tool, err)
	}
	if endWork(&b, filter.work, filter.load, "list a subdirectory, or use find_files with a narrower pattern") {
		res.Truncated = true
	}
	h := filter.hidden
	res.Hidden = &h
	res.Text = b.String()
	c.emit(&schema.DirectoryListedEvent{
		EventBase:  e.base(c, schema.KindDirectoryListed, r.rel),
		EntryCount: shown,
	})
	return res, nil
}
