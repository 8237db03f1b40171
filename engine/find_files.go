package engine

import (
	"errors"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/fsbox/fsbox/engine/internal/fserr"
	"github.com/fsbox/fsbox/engine/internal/relpath"
	"github.com/fsbox/fsbox/engine/internal/text"
	"github.com/fsbox/fsbox/schema"
)

// findFiles matches a glob against the paths below path (walk rules 1–7 in walk.go), with
// doublestar's dialect: "*" and "?" stay within one name, "**" spans any number of directories,
// "[...]" classes, "{a,b}" alternatives, "\" escapes. Further rules:
//
//  1. The pattern is relative to path: an absolute pattern, a ".." component, or nothing but "."
//     components is invalid_pattern; "." and empty components are dropped, as are repeated "**"
//     components; a trailing "/" matches directories only, symlinked ones included (rule 3).
//  2. Names starting with "." are matched by a wildcard only when the pattern names the dot
//     itself (".github/**", "**/.env"); "**" never enters a dot directory. Otherwise the dot
//     entries the pattern would have matched, and the dot directories a "**" would have
//     entered, are counted in hidden.dot (walk rule 2); matches read_file could not read, and
//     denied directories not entered, in hidden.access (walk rule 3).
//  3. Symlinked directories are matched (as directories, by "*/" too, as list_directory shows
//     them) but never entered by a wildcard; a literal component of the pattern may name one,
//     and is followed inside the root.
//  4. The search path itself is not a match; results are sorted by path, component by
//     component, and capped at max_find_results and the max_output_chars budget; a directory
//     whose path alone is longer than the budget is not entered (budget rule 4).
//  5. A pattern whose "**" components multiply the work (doublestar walks the tree below each
//     one) stops after maxFindDirReads directory listings, with a notice; the result is then
//     marked truncated.
func (e *Engine) findFiles(c *call, a *schema.FindFilesArgs) (*schema.FindFilesResult, error) {
	pattern, perr := cleanGlob(c.tool, a.Pattern)
	if perr != nil {
		return nil, perr
	}
	r, dir, err := e.openWalkRoot(c, a.Path, false)
	if err != nil {
		return nil, err
	}
	dir.close() // doublestar opens directories by path, through walkFS
	filter := e.newWalkFilter(c)
	fsys := newWalkFS(e, r.rel, strings.Contains(pattern, "**"), filter.work, filter.load)
	defer fsys.close()
	fsys.cost = globCost(pattern)
	// A trailing "/" (directories only) is applied in visit, after symlinks are resolved:
	// doublestar, not following links, would drop a symlinked directory that list_directory
	// shows as a directory (find rule 3).
	dirsOnly := strings.HasSuffix(pattern, "/")
	full := strings.TrimSuffix(pattern, "/")
	if r.rel != "." {
		full = escapeGlob(r.rel) + "/" + full
	}
	f := &finder{e: e, c: c, fsys: fsys, filter: filter, base: r.rel, spelled: dir.lex, budget: e.newBudget(), dirsOnly: dirsOnly}
	deep := strings.Contains(pattern, "**")
	reach := func(name string, isDir bool) bool {
		filter.work.Spend(matchUnits(fsys.cost, len(name)))
		if dirsOnly && !isDir {
			return false // "*/" would not have shown a file either
		}
		if isDir && deep {
			return true
		}
		ok, _ := doublestar.Match(full, name)
		if !ok && isDir {
			ok, _ = doublestar.Match(full, name+"/")
		}
		return ok
	}
	globOpts := []doublestar.GlobOption{doublestar.WithNoFollow()}
	if !e.showDots {
		globOpts = append(globOpts, doublestar.WithNoHidden()) // walk rule 2
		if !namesDot(pattern) {
			fsys.dotMatch = reach
		}
	}
	fsys.ign, fsys.reach = e.ignore, reach
	fsys.prune = func(name string) bool { return f.budget.TooLong(e.display(f.lexOf(name))) }
	werr := doublestar.GlobWalk(fsys, full, f.visit, globOpts...)
	if err := c.ctx.Err(); err != nil {
		return nil, cancelled(c.tool, err)
	}
	if werr == errWalkSpent {
		werr = nil // the work budget ran out: the matches so far are the result (budget_work.go)
	}
	if werr != nil {
		if errors.Is(werr, doublestar.ErrBadPattern) {
			return nil, fserr.Errorf(c.tool, "", schema.KindInvalidPattern, "Pattern %s is not a valid glob pattern.", fserr.PyRepr(a.Pattern))
		}
		return nil, fserr.FromOS(c.tool, r.rel, r.spelling, werr)
	}
	res := f.listing()
	e.searched(c, r.rel, a.Pattern, "find", len(res.Paths), res.Truncated)
	return res, nil
}

// listing renders what the walk found (rules 4 and 5 of findFiles): the matches in path order, capped at
// max_find_results and the output budget, and the notices of what was cut, pruned or hidden.
func (f *finder) listing() *schema.FindFilesResult {
	f.sortFound()
	res := &schema.FindFilesResult{Paths: []string{}}
	var b strings.Builder
	for _, p := range f.found {
		if len(res.Paths) == f.e.maxFindResults {
			res.Truncated = true
			break
		}
		shown := f.shown(p)
		n := utf8.RuneCountInString(shown)
		if len(res.Paths) > 0 {
			n++
		}
		if !f.budget.Take(n) {
			res.Truncated = true
			break
		}
		if len(res.Paths) > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(shown)
		res.Paths = append(res.Paths, shown)
	}
	switch {
	case f.budget.Over:
		endBudget(&b, f.budget.Limit, "search from a path further down, or use a more specific pattern", f.fsys.hidden)
	case !res.Truncated && (f.dropped || f.fsys.pruned > 0):
		// Compaction kept only a prefix that already overruns the caps, so this cannot happen;
		// a pruned directory can: nothing below it could be shown.
		res.Truncated = true
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("[... " + strconv.Itoa(f.fsys.pruned) + " directories not searched: their paths alone are longer than max_output_chars (" +
			strconv.Itoa(f.budget.Limit) + ")]")
		endHidden(&b, f.fsys.hidden)
	default:
		endListing(&b, res.Truncated, len(res.Paths), f.e.maxFindResults, "matches", "No matches found.", f.fsys.hidden)
	}
	h := f.fsys.hidden
	res.Hidden = &h
	if f.fsys.reads > maxFindDirReads {
		res.Truncated = true
		b.WriteString("\n[... walk cut short after " + strconv.Itoa(maxFindDirReads) + " directory listings; narrow the path or the pattern]")
	}
	if endWork(&b, f.filter.work, f.filter.load, "search from a path further down, or use a pattern with fewer \"**\" components and alternatives") {
		res.Truncated = true
	}
	res.Text = b.String()
	return res
}

// cleanGlob applies find rule 1 and validates the pattern.
func cleanGlob(op, pattern string) (string, *Error) {
	if err := checkGlob(op, "pattern", pattern, "name fewer alternatives in pattern (or run one find_files per group of them), or use \"*\" and \"**\" wildcards"); err != nil {
		return "", err
	}
	invalid := fserr.Errorf(op, "", schema.KindInvalidPattern, "Pattern %s is not a valid glob pattern.", fserr.PyRepr(pattern))
	if strings.HasPrefix(pattern, "/") {
		return "", fserr.Errorf(op, "", schema.KindInvalidPattern, "Pattern %s must be relative to the search path, not absolute.", fserr.PyRepr(pattern))
	}
	if strings.IndexByte(pattern, 0) >= 0 {
		return "", invalid
	}
	var parts []string
	for _, p := range strings.Split(pattern, "/") {
		switch {
		case p == "" || p == ".":
			continue
		case p == "..":
			return "", invalid
		case p == "**" && len(parts) > 0 && parts[len(parts)-1] == "**":
			continue // "**/**" is "**"; doublestar would walk the tree once per repetition
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return "", invalid
	}
	clean := strings.Join(parts, "/")
	if strings.HasSuffix(pattern, "/") {
		clean += "/"
	}
	if !doublestar.ValidatePattern(clean) {
		return "", invalid
	}
	return clean, nil
}

// namesDot reports whether a cleaned pattern has a component starting with "." (find rule 2):
// it names hidden entries itself, so none is counted as hidden.
func namesDot(pattern string) bool {
	for _, p := range strings.Split(pattern, "/") {
		if strings.HasPrefix(p, ".") {
			return true
		}
	}
	return false
}

// escapeGlob escapes the glob metacharacters of a literal path.
func escapeGlob(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '*', '?', '[', ']', '{', '}', '\\':
			b.WriteByte('\\')
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

// comparePaths orders root-relative paths component by component (a "/" sorts before any other
// byte), which is the order of a depth-first walk with sorted siblings.
func comparePaths(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		x, y := a[i], b[i]
		if x == y {
			continue
		}
		if x == '/' {
			return -1
		}
		if y == '/' {
			return 1
		}
		if x < y {
			return -1
		}
		return 1
	}
	return len(a) - len(b)
}

// errWalkSpent stops doublestar's walk once the work budget is spent.
var errWalkSpent = errors.New("work budget spent")

// foundPath is one visible match: its root-relative spelling and whether it is a directory.
type foundPath struct {
	lex string
	dir bool
}

// finder collects the matches of one find_files call.
type finder struct {
	e       *Engine
	c       *call
	fsys    *walkFS
	filter  *walkFilter
	base    string // resolved search path, root-relative
	spelled string // the model's spelling of it, root-relative
	budget  text.Budget
	// dirsOnly: the pattern ended in "/", so only directories (real or symlinked) match.
	dirsOnly bool
	// found holds the matches so far, unsorted and possibly repeated (alternatives can name a
	// path twice). It is compacted (compact) so it never holds much more than the caps can show.
	found      []foundPath
	foundChars int
	cutoff     string // after a compaction: a match sorting after it cannot be shown
	dropped    bool   // a compaction dropped matches
}

// Compaction: when found holds more than compactEntries entries or compactChars (times the
// budget) characters, it is sorted and cut to the shortest prefix that still overruns
// max_find_results or the output budget, so the result is the same and memory stays bounded
// whatever the tree holds.
const (
	compactEntries = 4096
	compactChars   = 4
)

// shown is a match as displayed.
func (f *finder) shown(p foundPath) string {
	s := f.e.display(p.lex)
	if p.dir {
		s += "/"
	}
	return s
}

// lexOf maps a walk name (root-relative, below the resolved search path) to the model's spelling.
func (f *finder) lexOf(name string) string {
	if name == f.base {
		return f.spelled
	}
	if f.base == "." {
		return relpath.Child(f.spelled, name)
	}
	if rest, ok := strings.CutPrefix(name, f.base+"/"); ok {
		return relpath.Child(f.spelled, rest)
	}
	return f.spelled
}

// sortFound sorts found and drops repeats.
func (f *finder) sortFound() {
	slices.SortFunc(f.found, func(x, y foundPath) int { return comparePaths(x.lex, y.lex) })
	f.found = slices.CompactFunc(f.found, func(x, y foundPath) bool { return x.lex == y.lex })
}

// compact cuts found to the prefix the result could show, plus the first match past the caps.
func (f *finder) compact() {
	f.sortFound()
	chars, keep := 0, len(f.found)
	for i, p := range f.found {
		chars += utf8.RuneCountInString(f.shown(p)) + 1
		if i+1 > f.e.maxFindResults || chars > f.budget.Limit {
			keep = i + 1
			break
		}
	}
	if keep < len(f.found) {
		f.dropped = true
		f.cutoff = f.found[keep-1].lex
		clear(f.found[keep:])
		f.found = f.found[:keep]
	}
	f.foundChars = 0
	for _, p := range f.found {
		f.foundChars += len(p.lex)
	}
}

// visit is doublestar's callback: resolve the match, filter it (walk rule 3), record it.
func (f *finder) visit(name string, d fs.DirEntry) error {
	if err := f.c.ctx.Err(); err != nil {
		return err
	}
	if !f.filter.work.Spend(1) {
		return errWalkSpent
	}
	if name == f.base {
		return nil
	}
	lex := f.lexOf(name)
	if f.dropped && comparePaths(lex, f.cutoff) > 0 {
		return nil // sorts after what the result can show
	}
	parent, leaf := relpath.Parent(name)
	realParent, ok := f.fsys.realOf(parent)
	if !ok {
		return nil
	}
	r := &resolved{spelling: lex, lexical: lex, rel: relpath.Child(realParent, leaf), exists: true}
	isDir := d.IsDir()
	if d.Type()&fs.ModeSymlink != 0 {
		res, err := f.e.resolveRel("", r.rel)
		if err != nil || !res.exists || !confirmResolved(f.e, res.rel, res.info) {
			return nil // dangling, looping, leading outside, or changed meanwhile: not shown
		}
		r.rel, r.info = res.rel, res.info
		isDir = res.info.IsDir()
	}
	if f.dirsOnly && !isDir {
		return nil
	}
	if f.filter.filters && !f.e.canRead(r) {
		if isDir {
			f.fsys.countDenied(name)
		} else {
			f.fsys.hidden.Access++
		}
		return nil
	}
	f.found = append(f.found, foundPath{lex: lex, dir: isDir})
	if f.foundChars += len(lex); len(f.found) > compactEntries+f.e.maxFindResults || f.foundChars > compactChars*f.budget.Limit {
		f.compact()
	}
	return nil
}
