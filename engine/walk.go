package engine

import (
	"errors"
	"io/fs"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/fsbox/fsbox/engine/internal/fserr"
	"github.com/fsbox/fsbox/engine/internal/ignore"
	"github.com/fsbox/fsbox/engine/internal/relpath"
	"github.com/fsbox/fsbox/engine/internal/text"
	"github.com/fsbox/fsbox/schema"
)

// The walkers (list_directory, directory_tree, search_files, find_files) share these rules; tests
// cite the numbers.
//
//  1. The walk root is resolved like any model path and gated by containment, denied patterns and
//     permission rules only (checkWalkRoot), not by allowed patterns: "." never matches "*.py".
//  2. Entries whose name starts with "." are skipped, below the walk root only: listing ".github"
//     by name shows its entries, listing "." does not show ".github". They are counted
//     (hidden.dot) and the text ends with "[N hidden entries omitted; name a hidden path
//     explicitly to include it]".
//  3. Every entry is resolved through its symlinks and shown only if read_file could read it
//     (canRead on the resolved path and on the walk's spelling). One that read_file could not
//     read is counted (hidden.access) and the text ends with "[N entries not shown: access rules
//     deny them]" ("[1 entry not shown: access rules deny it]"), never naming them. A link that dangles, loops or leads out of the root is
//     dropped silently: it names nothing the model could read.
//  4. A symlinked directory is shown (as a directory) but never descended, so a walk cannot leave
//     the root, loop, or show one file under two names; a real directory is descended unless a
//     denied pattern matches it (every entry below it would be denied anyway).
//  5. Siblings are visited in byte order of their names (code-point order for UTF-8), depth
//     first, which is the order of paths compared component by component.
//  6. Paths shown are the walk's spelling (the root as the model named it, joined with entry
//     names), relative to cwd; patterns and events use root-relative paths.
//  7. A cap is applied after filtering; the "[... truncated at N ...]" line appears only when an
//     entry was really dropped. The output budget (budget.go) cuts the same way, by characters.
//     The hidden-entry notices of rules 2 and 3 follow the truncation line. The empty text
//     ("(empty directory)", find's "No matches found.") appears only when nothing was shown and
//     nothing hidden: a directory whose entries are all hidden answers with the notices alone.
//     search_files, which answers a question about contents, keeps "No matches found." before
//     its notices. Counts cover the entries the walk looked at before it stopped.

// walkDir is one directory being walked: its resolved and spelled root-relative paths and a
// handle on it (dirHandle: a bare descriptor on Linux, an os.Root confined to it elsewhere), so
// entries are listed, stat'ed and opened relative to it, one name at a time.
type walkDir struct {
	rel string // resolved root-relative path, no symlinks at the time it was opened
	lex string // the walk's spelling of it, root-relative
	h   dirHandle
	// The ignore rules in force in it (ignore.go), set by walkFilter.enter, and in its parent
	// (nil for the walk's root).
	ign, up *ignore.Level
}

// entryFile is a file a walk opened for reading.
type entryFile interface {
	Read(p []byte) (int, error)
	Close() error
}

// errDirSwapped reports a directory that is no longer the one resolve saw.
var errDirSwapped = errors.New("directory changed since it was resolved")

// walkEntry is one visible entry of a directory, resolved through its symlinks (rule 3).
type walkEntry struct {
	name string
	lex  string      // root-relative spelling: parent's spelling + "/" + name
	rel  string      // root-relative resolved path
	link bool        // the entry itself is a symlink
	dir  bool        // the entry (or its target) is a directory
	mode fs.FileMode // type bits of the entry or its target
	info fs.FileInfo // Lstat of the entry or of its target; nil when the walker did not ask
}

// openWalkRoot resolves spelling (default ".") as a walk root and opens it (rule 1). It returns
// the resolution too, for events and messages. A missing path is not_found, a file is
// not_a_directory unless allowFile is set (and the spelling does not end in "/"), in which case
// dir is nil and the caller handles the single file.
func (e *Engine) openWalkRoot(c *call, spelling string, allowFile bool) (*resolved, *walkDir, *Error) {
	if spelling == "" {
		spelling = "."
	}
	r, err := e.resolve(c.tool, spelling)
	if err != nil {
		return nil, nil, err
	}
	if err := e.checkWalkRoot(c.tool, r); err != nil {
		return nil, nil, err
	}
	if !r.exists {
		return nil, nil, fserr.Errorf(c.tool, r.rel, schema.KindNotFound, "Path not found: %s", spelling)
	}
	if !r.info.IsDir() {
		if allowFile && !r.dirSlash {
			return r, nil, nil
		}
		return nil, nil, fserr.Errorf(c.tool, r.rel, schema.KindNotADirectory, "Not a directory: %s", spelling)
	}
	// The handle is checked to be the directory resolve saw, so a swap in between cannot redirect
	// the walk (os.Root already keeps it inside the root).
	h, oerr := openDirHandle(e, r.rel, r.info)
	if oerr != nil {
		return nil, nil, e.openError(c.tool, r, oerr)
	}
	lex := r.lexical
	if lex == "" {
		lex = r.rel
	}
	return r, &walkDir{rel: r.rel, lex: lex, h: h}, nil
}

// close releases the directory handle.
func (d *walkDir) close() { d.h.close() }

// child opens the real subdirectory ent of d (never a symlink: rule 4).
func (d *walkDir) child(ent *walkEntry) (*walkDir, error) {
	h, err := d.h.child(ent.name)
	if err != nil {
		return nil, err
	}
	return &walkDir{rel: ent.rel, lex: ent.lex, h: h, up: d.ign}, nil
}

// readNames returns the entries of d sorted by name (rule 5); files (not directories, not
// links: those need no size) carry their Lstat, taken relative to d. A system call costs a microsecond or more on a virtual machine, so a
// large directory is stat'ed by a few goroutines at once.
func (d *walkDir) readNames() ([]fs.DirEntry, error) { return listWithInfo(d.h) }

// listWithInfo is readNames on a bare handle.
func listWithInfo(h dirHandle) ([]fs.DirEntry, error) {
	ents, err := listSorted(h)
	if len(ents) == 0 {
		return nil, err
	}
	out := make([]fs.DirEntry, len(ents))
	stat := func(i int) {
		de := ents[i]
		if de.Type()&(fs.ModeDir|fs.ModeSymlink) != 0 {
			out[i] = de
			return
		}
		fi, serr := h.lstat(de.Name())
		if serr != nil {
			return // gone meanwhile
		}
		if d, ok := fi.(fs.DirEntry); ok {
			out[i] = d // the descriptor walk's statInfo is both
			return
		}
		out[i] = fs.FileInfoToDirEntry(fi)
	}
	workers := min(runtime.GOMAXPROCS(0), maxStatWorkers, len(ents)/statBatch+1)
	if runtime.GOMAXPROCS(0) < minParallelWalkProcs {
		workers = 1
	}
	if workers <= 1 {
		for i := range ents {
			stat(i)
		}
	} else {
		var wg sync.WaitGroup
		var next atomic.Int64
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					lo := int(next.Add(statBatch)) - statBatch
					if lo >= len(ents) {
						return
					}
					for i := lo; i < min(lo+statBatch, len(ents)); i++ {
						stat(i)
					}
				}
			}()
		}
		wg.Wait()
	}
	return slices.DeleteFunc(out, func(de fs.DirEntry) bool { return de == nil }), err
}

// statBatch is how many entries one goroutine of readNames stats at a time.
const statBatch = 32

// maxStatWorkers caps the goroutines that stat one listing (a variable so the benchmark can
// compare against one).
var maxStatWorkers = 4

// minParallelWalkProcs is the fewest Ps for which a listing is stat'ed in parallel and the
// depth-first walkers list ahead (walk_prefetch.go). On 2 cores, same runs: the parallel stat of
// 238 and 300 entries took the same wall time as one goroutine and 15-20% more CPU
// (BenchmarkListDirectory serial-stat); without listing ahead, directory_tree of net/http took
// 0.78x the wall time and find_files **/*_test.go over GOROOT/src 0.9x, net 0.76x
// (BenchmarkDirectoryTree, BenchmarkFindFiles no-prefetch). The second core is busy with the
// transport's goroutines anyway.
var minParallelWalkProcs = 4

// readTypes returns the entries of d sorted by name with their types only, which is all the
// content search needs.
func (d *walkDir) readTypes() ([]fs.DirEntry, error) { return listSorted(d.h) }

func sortEntries(ents []fs.DirEntry) {
	if !sortTyped(ents) {
		slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	}
}

// walkFilter holds what a walk needs from the access policy, computed once per call.
type walkFilter struct {
	e *Engine
	// filters is false when no denied or allowed pattern and no read rule exists, so every
	// resolved entry is readable and canRead can be skipped.
	filters bool
	denies  bool // some denied pattern exists (rule 4's pruning)
	// hidden counts the entries entry left out by name (rule 2), by ignore rules and by access
	// (rule 3).
	hidden schema.HiddenCounts
	ign    *ignorer // nil: no ignore rules
	// unignore, when set, reports an entry (root-relative spelling) that ignore rules must not
	// hide: one an rg-style glob names (list_files and grep, grep.go).
	unignore func(lex string, isDir bool) bool
	// work is the call's work budget (budget_work.go), which enter and entry spend; load the
	// account of its ignore patterns.
	work *workBudget
	load *ignore.Load
	// globCost is the cost of the glob that filters entries (list_files' and grep's glob,
	// search_files' include_glob), which entry spends for each (matchUnits); 0: none.
	globCost uint64
}

func (e *Engine) newWalkFilter(c *call) *walkFilter {
	work := newWorkBudget(c.ctx)
	f := &walkFilter{e: e, denies: e.denies(), ign: e.ignore, work: work, load: &ignore.Load{Work: work}}
	f.filters = f.denies
	for _, p := range e.policies {
		f.filters = f.filters || len(p.allowed) > 0
		for i := range p.rules {
			if p.rules[i].read {
				f.filters = true
			}
		}
	}
	return f
}

// enter loads the ignore rules of d, whose sorted listing is ents, before its entries are
// filtered.
func (f *walkFilter) enter(d *walkDir, ents []fs.DirEntry) {
	f.work.Spend(1)
	if f.ign == nil || d.ign != nil {
		return
	}
	up := d.up
	if up == nil {
		up = f.ign.rootLevel(f.e, f, d.rel, f.load)
	}
	if ents == nil {
		ents = []fs.DirEntry{} // listed, empty: no ignore file to look up
	}
	d.ign = f.ign.below(f.e, f, up, d.rel, &d.h, ents)
}

// entry resolves one raw entry of d and reports whether it may be shown (rules 2 and 3). With
// needInfo the entry's (or target's) FileInfo is filled in, for sizes.
func (f *walkFilter) entry(d *walkDir, de fs.DirEntry, needInfo bool) (walkEntry, bool) {
	name := de.Name()
	if !f.work.Spend(matchUnits(f.globCost, len(d.lex)+1+len(name))) {
		return walkEntry{}, false // the walk stops at its next look at live
	}
	if !f.e.showDots && strings.HasPrefix(name, ".") {
		f.hidden.Dot++
		return walkEntry{}, false
	}
	if d.ign != nil && d.ign.EntryIgnored(d.rel, name, de.IsDir()) && (f.unignore == nil || !f.unignore(relpath.Child(d.lex, name), de.IsDir())) {
		f.hidden.Ignored++
		return walkEntry{}, false
	}
	ent := walkEntry{name: name, lex: relpath.Child(d.lex, name), mode: de.Type()}
	ent.rel = ent.lex
	if d.rel != d.lex {
		ent.rel = relpath.Child(d.rel, name)
	}
	var r *resolved
	if ent.mode&fs.ModeSymlink != 0 {
		ent.link = true
		res, err := f.e.resolveRel("", ent.rel)
		if err != nil || !res.exists || !confirmResolved(f.e, res.rel, res.info) {
			return walkEntry{}, false
		}
		res.spelling, res.lexical = ent.lex, ent.lex
		r = res
		ent.rel, ent.info, ent.mode = res.rel, res.info, res.info.Mode().Type()
	} else {
		if needInfo && !ent.mode.IsDir() {
			fi, err := de.Info()
			if err != nil {
				return walkEntry{}, false // deleted meanwhile
			}
			ent.info = fi
			ent.mode = fi.Mode().Type()
			if ent.mode&fs.ModeSymlink != 0 {
				return walkEntry{}, false // swapped for a link since the listing; not shown this time
			}
		}
		if f.filters {
			r = &resolved{spelling: ent.lex, lexical: ent.lex, rel: ent.rel, exists: true, info: ent.info}
		}
	}
	ent.dir = ent.mode.IsDir()
	// A link resolved elsewhere is matched with every name, ancestors included; any other entry's
	// ancestors are the walk's, already checked.
	if f.filters && (ent.link && !f.e.canRead(r) || !ent.link && !f.e.canReadEntry(r)) {
		f.hidden.Access++
		return walkEntry{}, false
	}
	return ent, true
}

// live reports whether the walk may go on: the call was not cancelled and its work budget is
// not spent.
func (f *walkFilter) live() bool { return f.work.live() }

// descend reports whether the walk may enter ent (rule 4): a real directory not matched by a
// denied pattern. Entries below a denied directory are denied through their ancestors, so
// skipping it changes nothing but the work.
func (f *walkFilter) descend(ent *walkEntry) bool {
	if !ent.dir || ent.link {
		return false
	}
	return !f.denies || !f.e.walkDenied(ent.rel, ent.lex)
}

// walkDenied reports whether a denied pattern matches a directory's resolved path or spelling.
func (e *Engine) walkDenied(rel, lex string) bool {
	for _, p := range e.policies {
		names := []string{p.frame(rel)}
		if lex != rel {
			names = append(names, p.frame(lex))
		}
		if _, denied := p.deniedIx.First(names); denied {
			return true
		}
	}
	return false
}

// denies reports whether some layer has a denied pattern that can match.
func (e *Engine) denies() bool {
	for _, p := range e.policies {
		if p.denied.Matchers() {
			return true
		}
	}
	return false
}

// searched emits the event of a search below rel: "find" for find_files and list_files, "grep"
// for search_files and grep, with the pattern the model gave and what the result holds.
func (e *Engine) searched(c *call, rel, pattern, search string, matches int, truncated bool) {
	c.emit(&schema.FilesSearchedEvent{EventBase: e.base(c, schema.KindFilesSearched, rel), Pattern: pattern, Search: search,
		MatchCount: matches, Truncated: truncated})
}

// entryLine formats an entry the way list_directory and directory_tree show it: "dir/" or
// "file  (N bytes)", the path relative to cwd (rule 6).
func (e *Engine) entryLine(b *strings.Builder, ent *walkEntry) {
	b.WriteString(e.display(ent.lex))
	if ent.dir {
		b.WriteByte('/')
		return
	}
	b.WriteString("  (")
	b.WriteString(strconv.FormatInt(ent.info.Size(), 10))
	b.WriteString(" bytes)")
}

// fitEntry writes ent's line to b (after a newline, but for the first) when it fits the budget.
func (e *Engine) fitEntry(budget *text.Budget, b *strings.Builder, ent *walkEntry) bool {
	start := b.Len()
	if start > 0 {
		b.WriteByte('\n')
	}
	e.entryLine(b, ent)
	if !budget.Take(utf8.RuneCountInString(b.String()[start:])) {
		// Cut back to where the line began (the builder keeps its bytes; the text is rebuilt).
		s := b.String()[:start]
		b.Reset()
		b.WriteString(s)
		return false
	}
	return true
}

// endBudget closes a walker's text cut by the output budget, then adds the hidden-entry notices.
func endBudget(b *strings.Builder, limit int, narrow string, hidden schema.HiddenCounts) {
	if b.Len() > 0 {
		b.WriteByte('\n')
	}
	b.WriteString(text.BudgetLine(limit, narrow))
	endHidden(b, hidden)
}

// dirEntryOf is the typed form of an entry line.
func (e *Engine) dirEntryOf(ent *walkEntry, depth int) schema.DirEntry {
	de := schema.DirEntry{Path: e.display(ent.lex), Type: "file", Depth: depth}
	if ent.info != nil {
		de.ModifiedAt = ent.info.ModTime().UTC().Format(time.RFC3339)
	}
	if ent.dir {
		de.Type = "directory"
		de.Path += "/"
	} else {
		size := ent.info.Size()
		de.Size = &size
	}
	return de
}

// endListing closes a walker's text (rule 7): the truncation marker when an entry was dropped at
// limit, then the hidden-entry notices (rules 2 and 3), the empty text when nothing was shown and
// nothing hidden.
func endListing(b *strings.Builder, truncated bool, shown, limit int, what, empty string, hidden schema.HiddenCounts) {
	switch {
	case truncated:
		b.WriteByte('\n')
		b.WriteString(truncatedLine(limit, what))
	case shown == 0 && hidden.Dot == 0 && hidden.Access == 0 && hidden.Ignored == 0:
		b.WriteString(empty)
	}
	endHidden(b, hidden)
}

// endHidden appends the notices of rules 2 and 3 for the nonzero counts: under 150 characters
// together, so they stay within budget rule 2's allowance for closing notices.
func endHidden(b *strings.Builder, hidden schema.HiddenCounts) {
	if hidden.Dot > 0 {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(hiddenDotLine(hidden.Dot))
	}
	if hidden.Ignored > 0 {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(hiddenIgnoredLine(hidden.Ignored))
	}
	if hidden.Access > 0 {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(hiddenAccessLine(hidden.Access))
	}
}

// hiddenIgnoredLine is the notice for entries the ignore rules hid (ignore.go).
func hiddenIgnoredLine(n int) string {
	if n == 1 {
		return "[1 entry ignored by .gitignore rules; name it explicitly to include it]"
	}
	return "[" + strconv.Itoa(n) + " entries ignored by .gitignore rules; name one explicitly to include it]"
}

// hiddenDotLine is rule 2's notice, worded as pydantic-ai-harness 0.62 words it.
func hiddenDotLine(n int) string {
	return "[" + strconv.Itoa(n) + " hidden entries omitted; name a hidden path explicitly to include it]"
}

// hiddenAccessLine is rule 3's notice: a count, never a name.
func hiddenAccessLine(n int) string {
	if n == 1 {
		return "[1 entry not shown: access rules deny it]"
	}
	return "[" + strconv.Itoa(n) + " entries not shown: access rules deny them]"
}

// truncatedLine is the marker a capped walker ends with (rule 7).
func truncatedLine(n int, what string) string {
	return "[... truncated at " + strconv.Itoa(n) + " " + what + "]"
}
