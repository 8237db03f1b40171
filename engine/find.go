package engine

import (
	"errors"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/fsbox/fsbox/schema"
)

func init() {
	register(schema.ToolFindFiles, tool((*Engine).findFiles))
}

// findFiles matches a glob against the paths below path (walk rules 1–7 in walk.go), with
// doublestar's dialect: "*" and "?" stay within one name, "**" spans any number of directories,
// "[...]" classes, "{a,b}" alternatives, "\" escapes. Further rules:
//
//  1. The pattern is relative to path: an absolute pattern, a ".." component, or nothing but "."
//     components is invalid_pattern; "." and empty components are dropped, as are repeated "**"
//     components; a trailing "/" matches directories only.
//  2. Names starting with "." are matched by a wildcard only when the pattern names the dot
//     itself (".github/**", "**/.env"); "**" never enters a dot directory.
//  3. Symlinked directories are matched (as directories) but never entered by a wildcard; a
//     literal component of the pattern may name one, and is followed inside the root.
//  4. The search path itself is not a match; results are sorted by path, component by
//     component, and capped at max_find_results.
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
	fsys := newWalkFS(e, r.rel, strings.Contains(pattern, "**"))
	defer fsys.close()
	full := pattern
	if r.rel != "." {
		full = escapeGlob(r.rel) + "/" + pattern
	}
	f := &finder{e: e, c: c, fsys: fsys, filter: e.newWalkFilter(), base: r.rel, spelled: dir.lex, seen: map[string]bool{}}
	werr := doublestar.GlobWalk(fsys, full, f.visit, doublestar.WithNoFollow(), doublestar.WithNoHidden())
	if err := c.ctx.Err(); err != nil {
		return nil, cancelled(c.tool, err)
	}
	if werr != nil {
		if errors.Is(werr, doublestar.ErrBadPattern) {
			return nil, errorf(c.tool, "", kindInvalidPattern, "Pattern %s is not a valid glob pattern.", pyRepr(a.Pattern))
		}
		return nil, osError(c.tool, r.rel, r.spelling, werr)
	}
	slices.SortFunc(f.found, func(x, y foundPath) int { return comparePaths(x.lex, y.lex) })
	res := &schema.FindFilesResult{Paths: []string{}}
	var b strings.Builder
	for _, p := range f.found {
		if len(res.Paths) == e.maxFindResults {
			res.Truncated = true
			break
		}
		shown := e.display(p.lex)
		if p.dir {
			shown += "/"
		}
		if len(res.Paths) > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(shown)
		res.Paths = append(res.Paths, shown)
	}
	endListing(&b, res.Truncated, len(res.Paths), e.maxFindResults, "matches", "No matches found.")
	if fsys.reads > maxFindDirReads {
		res.Truncated = true
		b.WriteString("\n[... walk cut short after " + strconv.Itoa(maxFindDirReads) + " directory listings; narrow the path or the pattern]")
	}
	res.Text = b.String()
	c.emit(&schema.FilesSearchedEvent{
		EventBase:  e.base(c, schema.KindFilesSearched, r.rel),
		Pattern:    a.Pattern,
		Search:     "find",
		MatchCount: len(res.Paths),
		Truncated:  res.Truncated,
	})
	return res, nil
}

// cleanGlob applies find rule 1 and validates the pattern.
func cleanGlob(op, pattern string) (string, *Error) {
	invalid := errorf(op, "", kindInvalidPattern, "Pattern %s is not a valid glob pattern.", pyRepr(pattern))
	if strings.HasPrefix(pattern, "/") {
		return "", errorf(op, "", kindInvalidPattern, "Pattern %s must be relative to the search path, not absolute.", pyRepr(pattern))
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
	found   []foundPath
	seen    map[string]bool // alternatives can name a path twice
}

// visit is doublestar's callback: resolve the match, filter it (walk rule 3), record it.
func (f *finder) visit(name string, d fs.DirEntry) error {
	if err := f.c.ctx.Err(); err != nil {
		return err
	}
	if name == f.base || f.seen[name] {
		return nil
	}
	f.seen[name] = true
	lex := f.spelled
	if rest, ok := strings.CutPrefix(name, f.base+"/"); ok || f.base == "." {
		if f.base == "." {
			rest = name
		}
		lex = joinChild(f.spelled, rest)
	}
	parent, leaf := parentRel(name)
	realParent, ok := f.fsys.realOf(parent)
	if !ok {
		return nil
	}
	r := &resolved{spelling: lex, lexical: lex, rel: joinChild(realParent, leaf), exists: true}
	isDir := d.IsDir()
	if d.Type()&fs.ModeSymlink != 0 {
		res, err := f.e.resolveRel("", r.rel)
		if err != nil || !res.exists || !statResolved(f.e, res.rel, res.info) {
			return nil // dangling, looping, leading outside, or changed meanwhile: not shown
		}
		r.rel, r.info = res.rel, res.info
		isDir = res.info.IsDir()
	}
	if f.filter.filters && !f.e.canRead(r) {
		return nil
	}
	f.found = append(f.found, foundPath{lex: lex, dir: isDir})
	return nil
}
