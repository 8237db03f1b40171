package engine

import (
	"context"
	"io/fs"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/fsbox/fsbox/engine/internal/fnmatch"
	"github.com/fsbox/fsbox/engine/internal/fserr"
	"github.com/fsbox/fsbox/engine/internal/relpath"
	"github.com/fsbox/fsbox/engine/internal/scan"
	"github.com/fsbox/fsbox/engine/internal/text"
	"github.com/fsbox/fsbox/schema"
)

// maxSearchFileBytes: larger files are skipped and named in the skipped-files notice (the
// pydantic-ai-harness's workspace-era walker skips at the same 10 MiB). It also bounds the
// buffer a search worker's line scan may grow to (scan.Matcher.Scan).
const maxSearchFileBytes = 10 << 20

// searchWindow bounds the files between the walk and the ordered merge: the walk stops when this
// many files are queued or scanned but not yet merged, so a slow file holds back memory, not
// correctness.
const searchWindow = 256

// maxSkippedNamed is how many skipped files the skipped-files notice names.
const maxSkippedNamed = 10

// searchFiles matches a regular expression (RE2) against every line of every visible regular
// file below path (or of path itself when it is a file), walk rules 1–7 in walk.go:
//
//   - include_glob, fnmatch-style ("*" crosses "/"), must match the file's root-relative path;
//   - binary files (a NUL byte in the first 8192 bytes) are skipped silently; files over
//     maxSearchFileBytes and files that cannot be opened are skipped and named in a notice;
//   - lines split on \n (a \r before it belongs to the terminator); invalid UTF-8 is shown with
//     U+FFFD;
//   - matches come in path order, then line order, and stop at max_search_results;
//   - each file is searched once: a symlink to a file that the walk reaches under its own path
//     (below the search path, not hidden, matching include_glob; see searchWalk.reached) is
//     skipped, so its lines are not repeated under the link's name. A link whose target the walk
//     does not reach (elsewhere in the root, in a dot directory) is searched under its name.
//     Hard links are separate names and are searched under each.
//
// Files are scanned by a bounded set of workers while one goroutine walks the tree in order;
// results are merged back in walk order, and the walk stops as soon as the cap is exceeded.
func (e *Engine) searchFiles(c *call, a *schema.SearchFilesArgs) (*schema.SearchFilesResult, error) {
	m, merr := boundedLineMatcher(c.tool, "pattern", a.Pattern, "search for a shorter pattern, or split an alternation over several search_files calls")
	if merr != nil {
		return nil, merr
	}
	s := &searcher{e: e, c: c, m: m, filter: e.newWalkFilter(c), limit: e.maxSearchResults, budget: e.newBudget()}
	if a.IncludeGlob != "" {
		if err := checkGlob(c.tool, "include_glob", a.IncludeGlob, "use a shorter include_glob, or search from a path further down"); err != nil {
			return nil, err
		}
		g, gerr := fnmatch.New(a.IncludeGlob, false)
		if gerr != nil {
			return nil, fserr.Errorf(c.tool, "", schema.KindInvalidPattern, "Invalid include_glob %s: %v", fserr.PyRepr(a.IncludeGlob), gerr)
		}
		s.include = &g
		s.filter.globCost = uint64(len(a.IncludeGlob)) // translated to one RE2 program: linear
	}
	r, dir, werr := e.openWalkRoot(c, a.Path, true)
	if werr != nil {
		return nil, werr
	}
	if err := s.search(r, dir); err != nil {
		return nil, err
	}
	res := s.result()
	e.searched(c, r.rel, a.Pattern, "grep", len(res.Matches), res.Truncated)
	return res, nil
}

// fileFilter selects the files a search scans by their root-relative spelling: search_files'
// include_glob, grep's glob and file_type.
type fileFilter interface{ Match(lex string) bool }

// searcher is the state of one search_files or grep call.
type searcher struct {
	e       *Engine
	c       *call
	m       *scan.Matcher
	include fileFilter // nil: every file
	filter  *walkFilter
	limit   int
	// grep's options (grep.go): context lines around each match, the line cut, and directories
	// a "!" glob excludes; search_files leaves them zero.
	context    int
	cut        func(line []byte) string
	dirExclude func(lex string) bool
	what       string // what the cap counts: "matches" or "lines"
	noLinks    bool   // grep: symlinks are not followed, resolved or counted (rg without --follow)
	narrow     string // how to narrow, for the budget notice

	// Owned by the merge (the calling goroutine).
	matches   []schema.SearchMatch
	ctxs      []bool // for grep: whether matches[i] is a context line
	truncated bool
	budget    text.Budget
	skipped   []string // display paths of the first files skipped as too large or unreadable
	nSkipped  int      // how many were skipped

	// Owned by the walk until it ends: directories not entered because their paths alone are
	// longer than the budget (budget rule 4).
	pruned int
}

// searchJob is one file to scan, numbered in walk order.
type searchJob struct {
	seq  int
	lex  string     // root-relative spelling, for display and include_glob
	dir  *sharedDir // the file's directory, for a real entry
	name string     // its name in dir
	link *resolved  // for a symlink: its resolution, opened from the root instead
}

// searchOut is what scanning one file gave.
type searchOut struct {
	seq     int
	lex     string
	lines   []int
	texts   []string // cut to the display width (cutLine)
	ctx     []bool   // for grep with context: which lines are context lines
	chars   int      // characters of texts, for stopping once the file alone overruns the budget
	skipped bool     // too large or unreadable
}

// keep records one matching line of o, cut for display, and reports whether the scan of the
// file should go on: not past the match cap, and not once its lines alone overrun the budget
// (the merge would drop them), so a file retains at most about a budget of text.
func (s *searcher) keep(o *searchOut, line int, lineText []byte) bool {
	var t string
	if s.cut != nil {
		t = s.cut(lineText)
	} else {
		t = text.CutLine(lineText, s.m.Re.FindIndex)
	}
	o.lines = append(o.lines, line)
	o.texts = append(o.texts, t)
	o.chars += len(t)
	return len(o.lines) <= s.limit && o.chars <= s.budget.Limit
}

// sharedDir is a walk directory shared by the walk and the jobs of its files; the last user
// closes it.
type sharedDir struct {
	*walkDir
	refs atomic.Int32
}

func (d *sharedDir) release() {
	if d.refs.Add(-1) == 0 {
		d.close()
	}
}

// workers is how many files are scanned at once: one per core, at least two (reads block), at
// most eight (the merge and the walk are single goroutines).
func searchWorkers() int { return min(max(runtime.GOMAXPROCS(0), 2), 8) }

// run walks dir and scans its files in parallel, merging in walk order until the cap is exceeded.
func (s *searcher) run(root *walkDir) {
	ctx, stop := context.WithCancel(s.c.ctx)
	defer stop()
	jobs := make(chan *searchJob, searchWindow)
	outs := make(chan *searchOut, searchWindow)
	window := make(chan struct{}, searchWindow)
	var wg sync.WaitGroup
	for range searchWorkers() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var st scan.State
			for j := range jobs {
				outs <- s.scanJob(ctx, &st, j)
			}
		}()
	}
	go func() {
		w := &searchWalk{s: s, ctx: ctx, jobs: jobs, window: window, root: root}
		sd := &sharedDir{walkDir: root}
		sd.refs.Store(1)
		w.walk(sd)
		sd.release()
		close(jobs)
		wg.Wait()
		close(outs)
	}()
	pending := map[int]*searchOut{}
	next := 0
	for o := range outs {
		pending[o.seq] = o
		for p := pending[next]; p != nil; p = pending[next] {
			delete(pending, next)
			next++
			<-window
			if !s.truncated && ctx.Err() == nil {
				s.add(p)
				if s.truncated {
					stop()
				}
			}
		}
	}
}

// searchWalk is the walking goroutine of a search.
type searchWalk struct {
	s      *searcher
	ctx    context.Context
	jobs   chan<- *searchJob
	window chan struct{}
	seq    int
	root   *walkDir // the walk's root, for reached
}

// reached reports whether the walk itself visits the regular file a symlink entry resolves to
// (search rule: each file once): it lies below the walk root's resolved path, no component
// below the root starts with "." (walk rule 2), and include_glob matches its own path. Denied
// targets need no case: the link is refused with them. A target in a directory the budget
// prunes (budget rule 4) is not searched under either name; the pruning notice says so.
func (w *searchWalk) reached(ent *walkEntry) bool {
	below := ent.rel
	if w.root.rel != "." {
		var ok bool
		if below, ok = strings.CutPrefix(ent.rel, w.root.rel+"/"); !ok {
			return false
		}
	}
	if !w.s.e.showDots && (strings.HasPrefix(below, ".") || strings.Contains(below, "/.")) {
		return false
	}
	return w.s.include == nil || w.s.include.Match(relpath.Child(w.root.lex, below))
}

// walk queues the visible files below d in order; it returns false once the search stopped.
func (w *searchWalk) walk(d *sharedDir) bool {
	raw, err := d.readTypes()
	if err != nil && len(raw) == 0 {
		return w.ctx.Err() == nil && w.s.filter.live() // an unreadable directory is skipped, like rg does
	}
	w.s.filter.enter(d.walkDir, raw)
	for _, de := range raw {
		if w.ctx.Err() != nil || !w.s.filter.live() {
			return false
		}
		t := de.Type()
		if t&^(fs.ModeDir|fs.ModeSymlink) != 0 || w.s.noLinks && t&fs.ModeSymlink != 0 {
			continue // FIFO, socket, device: never opened; for grep, a symlink (not followed)
		}
		ent, ok := w.s.filter.entry(d.walkDir, de, false)
		if !ok {
			continue
		}
		if ent.dir {
			if !w.s.filter.descend(&ent) || w.s.dirExclude != nil && w.s.dirExclude(ent.lex) {
				continue
			}
			if w.s.budget.TooLong(w.s.e.display(ent.lex)) {
				w.s.pruned++ // nothing below could be shown (budget rule 4)
				continue
			}
			sub, err := d.child(&ent)
			if err != nil {
				continue
			}
			sd := &sharedDir{walkDir: sub}
			sd.refs.Store(1)
			more := w.walk(sd)
			sd.release()
			if !more {
				return false
			}
			continue
		}
		if !ent.mode.IsRegular() || w.s.include != nil && !w.s.include.Match(ent.lex) {
			continue
		}
		if ent.link && w.reached(&ent) {
			continue // searched under its own path, so its lines are not repeated
		}
		j := &searchJob{seq: w.seq, lex: ent.lex}
		if ent.link {
			j.link = &resolved{spelling: ent.lex, lexical: ent.lex, rel: ent.rel, exists: true, info: ent.info}
		} else {
			j.dir, j.name = d, ent.name
			d.refs.Add(1)
		}
		select {
		case w.window <- struct{}{}:
		case <-w.ctx.Done():
			if j.dir != nil {
				d.release()
			}
			return false
		}
		w.seq++
		w.jobs <- j
	}
	return true
}

// scanJob opens and scans one file. A stopped search scans nothing but still answers, so the
// merge sees every number.
func (s *searcher) scanJob(ctx context.Context, st *scan.State, j *searchJob) *searchOut {
	o := &searchOut{seq: j.seq, lex: j.lex}
	if j.dir != nil {
		defer j.dir.release()
	}
	if ctx.Err() != nil {
		return o
	}
	f, size, ok := s.open(j)
	if !ok {
		o.skipped = true
		return o
	}
	defer f.Close()
	if size > maxSearchFileBytes {
		o.skipped = true
		return o
	}
	var err error
	if s.context > 0 {
		err = s.scanContext(st, f, size, o, func() bool { return ctx.Err() == nil })
	} else {
		_, err = s.m.Scan(st, f, size, func(line int, text []byte) bool {
			return s.keep(o, line, text) && ctx.Err() == nil
		})
	}
	if err != nil {
		o.skipped = true
		o.lines, o.texts = nil, nil
	}
	if len(st.Buf) > 16*scan.SearchChunk {
		st.Buf = nil // one long line grew it; do not keep megabytes per worker
	}
	return o
}

// open opens a job's file without blocking and checks on the descriptor that it is a regular
// file. When patterns filter reads, a real entry is also checked to be the file the walk saw, so
// a swap for a symlink cannot show a denied file under an allowed name; without such patterns
// every file the directory handle can reach is readable anyway.
func (s *searcher) open(j *searchJob) (entryFile, int64, bool) {
	if j.link != nil {
		return openResolved(s.e, j.link.rel, j.link.info)
	}
	return j.dir.h.openEntry(j.name, s.filter.filters)
}

// search searches the walk root dir, or the single file r when dir is nil (the path named a file).
func (s *searcher) search(r *resolved, dir *walkDir) *Error {
	if dir == nil {
		return s.searchOne(r)
	}
	s.run(dir)
	if err := s.c.ctx.Err(); err != nil {
		return cancelled(s.c.tool, err)
	}
	return nil
}

// searchOne searches the single file r (the search path named a file).
func (s *searcher) searchOne(r *resolved) *Error {
	if !r.info.Mode().IsRegular() {
		return nil // a FIFO or device is never opened: no matches
	}
	if err := s.e.checkRead(s.c.tool, r); err != nil {
		return err
	}
	lex := r.lexical
	if lex == "" {
		lex = r.rel
	}
	if s.include != nil && !s.include.Match(lex) {
		return nil
	}
	f, fi, err := s.e.openRegular(s.c.tool, r)
	if err != nil {
		return err
	}
	defer f.Close()
	o := &searchOut{lex: lex}
	if fi.Size() > maxSearchFileBytes {
		o.skipped = true
	} else {
		var st scan.State
		var serr error
		if s.context > 0 {
			serr = s.scanContext(&st, f, fi.Size(), o, func() bool { return s.c.ctx.Err() == nil })
		} else {
			_, serr = s.m.Scan(&st, f, fi.Size(), func(line int, text []byte) bool {
				return s.keep(o, line, text) && s.c.ctx.Err() == nil
			})
		}
		if serr != nil {
			return fserr.FromOS(s.c.tool, r.rel, r.spelling, serr)
		}
	}
	s.add(o)
	if err := s.c.ctx.Err(); err != nil {
		return cancelled(s.c.tool, err)
	}
	return nil
}

// add merges one file's results, in order, up to the match cap and the output budget.
func (s *searcher) add(o *searchOut) {
	if o.skipped {
		if s.nSkipped++; len(s.skipped) < maxSkippedNamed {
			s.skipped = append(s.skipped, s.e.display(o.lex))
		}
		return
	}
	path := s.e.display(o.lex)
	pathChars := utf8.RuneCountInString(path)
	for i, line := range o.lines {
		if len(s.matches) == s.limit {
			s.truncated = true
			return
		}
		// "\n" (but for the first), path, ":", line number, ":", text.
		n := pathChars + 2 + len(strconv.Itoa(line)) + utf8.RuneCountInString(o.texts[i])
		if len(s.matches) > 0 {
			n++
		}
		if !s.budget.Take(n) {
			s.truncated = true
			return
		}
		s.matches = append(s.matches, schema.SearchMatch{Path: path, Line: line, Text: o.texts[i]})
		if o.ctx != nil {
			s.ctxs = append(s.ctxs, o.ctx[i])
		} else if s.context > 0 {
			s.ctxs = append(s.ctxs, false)
		}
	}
}

// result renders the merged matches.
func (s *searcher) result() *schema.SearchFilesResult {
	res := &schema.SearchFilesResult{Matches: s.matches, Truncated: s.truncated || s.pruned > 0}
	if res.Matches == nil {
		res.Matches = []schema.SearchMatch{}
	}
	var b strings.Builder
	for i, m := range res.Matches {
		if i > 0 {
			b.WriteByte('\n')
		}
		sep := byte(':')
		if i < len(s.ctxs) && s.ctxs[i] {
			sep = '-'
		}
		b.WriteString(m.Path)
		b.WriteByte(sep)
		b.WriteString(strconv.Itoa(m.Line))
		b.WriteByte(sep)
		b.WriteString(m.Text)
	}
	h := s.filter.hidden
	res.Hidden = &h
	if len(res.Matches) == 0 && !res.Truncated {
		b.WriteString("No matches found.") // the answer to a content search, hidden entries or not
	}
	if res.Truncated {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		switch {
		case s.budget.Over:
			narrow := s.narrow
			if narrow == "" {
				narrow = "narrow the search: a path further down, a more specific pattern, or an include_glob"
			}
			b.WriteString(text.BudgetLine(s.budget.Limit, narrow))
		case s.truncated:
			what := s.what
			if what == "" {
				what = "matches"
			}
			b.WriteString(truncatedLine(s.limit, what))
		default:
			b.WriteString("[... " + strconv.Itoa(s.pruned) + " directories not searched: their paths alone are longer than max_output_chars (" +
				strconv.Itoa(s.budget.Limit) + "); search from inside them]")
		}
	}
	if s.nSkipped > 0 {
		b.WriteString("\n[")
		b.WriteString(strconv.Itoa(s.nSkipped))
		b.WriteString(" files skipped (too large or unreadable): ")
		b.WriteString(text.NoticePaths(s.skipped, s.nSkipped))
		b.WriteString("]")
	}
	endHidden(&b, h)
	narrow := s.narrow
	if narrow == "" {
		narrow = "narrow the search: a path further down, or an include_glob"
	}
	if endWork(&b, s.filter.work, s.filter.load, narrow) {
		res.Truncated = true
	}
	res.Text = b.String()
	return res
}
