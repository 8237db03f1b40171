package engine

import (
	"io/fs"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fsbox/fsbox/engine/internal/text"
	"github.com/fsbox/fsbox/schema"
)

// listFiles is pydantic-ai-harness's rg-backed list_files (rg --files --sort path), natively:
// the files below a directory, walk rules 1–7 in walk.go, with rg's choices where they differ:
//
//  1. files only, one path per line, in path order; "No files found." when none;
//  2. glob is rg's (rgGlob in grep.go), and a file or directory it names is listed even if
//     ignore rules skip it; a "!" glob leaves out what it matches, directories included;
//  3. symlinks are not followed, so a link is not listed (rg without --follow); directory_tree
//     and find_files show links;
//  4. capped at max_find_results ("[... truncated at N files]") and the max_output_chars budget.
func (e *Engine) listFiles(c *call, a *schema.ListFilesArgs) (*schema.ListFilesResult, error) {
	r, dir, err := e.openWalkRoot(c, a.Path, false)
	if err != nil {
		return nil, err
	}
	defer dir.close()
	files, ferr := newRgFiles(c.tool, a.Glob, "", dir.lex, false)
	if ferr != nil {
		return nil, ferr
	}
	l := &lister{e: e, c: c, filter: e.newWalkFilter(c), files: files, budget: e.newBudget(), res: &schema.ListFilesResult{Paths: []string{}}}
	if files != nil {
		l.filter.unignore = files.unignore
		l.filter.globCost = files.cost()
	}
	l.walk(dir)
	if err := c.ctx.Err(); err != nil {
		return nil, cancelled(c.tool, err)
	}
	res := l.res
	switch {
	case l.budget.Over:
		endBudget(&l.b, l.budget.Limit, "list a subdirectory, or use a narrower glob", l.filter.hidden)
	case !res.Truncated && l.pruned > 0:
		res.Truncated = true
		if l.b.Len() > 0 {
			l.b.WriteByte('\n')
		}
		l.b.WriteString("[... " + strconv.Itoa(l.pruned) + " directories not listed: their paths alone are longer than max_output_chars (" +
			strconv.Itoa(l.budget.Limit) + ")]")
		endHidden(&l.b, l.filter.hidden)
	default:
		endListing(&l.b, res.Truncated, len(res.Paths), e.maxFindResults, "files", "No files found.", l.filter.hidden)
	}
	if endWork(&l.b, l.filter.work, l.filter.load, "list from a path further down, or use a narrower glob") {
		res.Truncated = true
	}
	h := l.filter.hidden
	res.Hidden = &h
	res.Text = l.b.String()
	e.searched(c, r.rel, a.Glob, "find", len(res.Paths), res.Truncated)
	return res, nil
}

// lister is the state of one list_files call.
type lister struct {
	e      *Engine
	c      *call
	filter *walkFilter
	files  *rgFiles // nil: every file
	budget text.Budget
	b      strings.Builder
	res    *schema.ListFilesResult
	pruned int // directories whose paths alone overrun the budget (budget rule 4)
}

// walk lists the files below d, depth first in name order; it returns false once the result is
// full or the call was cancelled.
func (l *lister) walk(d *walkDir) bool {
	ents, err := d.readTypes()
	if err != nil && len(ents) == 0 {
		return l.filter.live() // unreadable: skipped, as rg does
	}
	l.filter.enter(d, ents)
	for _, de := range ents {
		if !l.filter.live() {
			return false
		}
		if de.Type()&^fs.ModeDir != 0 {
			continue // a symlink (rule 3: not followed, not counted), FIFO, socket, device
		}
		ent, ok := l.filter.entry(d, de, false)
		if !ok {
			continue
		}
		if ent.dir {
			if !l.filter.descend(&ent) || l.files != nil && l.files.dirExcluded(ent.lex) {
				continue
			}
			if l.budget.TooLong(l.e.display(ent.lex)) {
				l.pruned++
				continue
			}
			sub, err := d.child(&ent)
			if err != nil {
				continue
			}
			more := l.walk(sub)
			sub.close()
			if !more {
				return false
			}
			continue
		}
		if !ent.mode.IsRegular() || l.files != nil && !l.files.Match(ent.lex) {
			continue
		}
		if len(l.res.Paths) == l.e.maxFindResults {
			l.res.Truncated = true
			return false
		}
		shown := l.e.display(ent.lex)
		n := utf8.RuneCountInString(shown)
		if l.b.Len() > 0 {
			n++
		}
		if !l.budget.Take(n) {
			l.res.Truncated = true
			return false
		}
		if l.b.Len() > 0 {
			l.b.WriteByte('\n')
		}
		l.b.WriteString(shown)
		l.res.Paths = append(l.res.Paths, shown)
	}
	return true
}
