package engine

import (
	"bytes"
	"io"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/fsbox/fsbox/engine/internal/fserr"
	"github.com/fsbox/fsbox/engine/internal/scan"
	"github.com/fsbox/fsbox/engine/internal/text"
	"github.com/fsbox/fsbox/schema"
)

// grepMaxContext bounds grep's context argument (pydantic-ai-harness rejects, not clamps, more).
const grepMaxContext = 20

// grepWidth is where grep cuts a long line, with rg's --max-columns-preview marker.
const grepWidth = 4096

// grep is pydantic-ai-harness's rg-backed grep, natively: the same walk, ignore rules, scanner
// and budgets as search_files (search_files.go), with rg's options and output format:
//
//  1. pattern is RE2 (literal quotes it; ignore_case prefixes (?i)); context is 0 to 20;
//  2. glob is rg's (rgGlob: a name at any depth without "/", a path below path with one, "!"
//     negates); a file or directory it names is searched even if ignore rules skip it;
//     file_type adds the globs of one of rg's type names (fileTypes);
//  3. matching lines print as "path:line:text", context lines as "path-line-text", rg's "--"
//     group separators dropped; a line over 4096 characters is cut there with
//     " [... omitted end of long line]";
//  4. the cap max_search_results counts context lines too: "[... truncated at N lines]".
func (e *Engine) grep(c *call, a *schema.GrepArgs) (*schema.GrepResult, error) {
	context := 0
	if a.Context != nil {
		context = *a.Context
	}
	if context < 0 || context > grepMaxContext {
		return nil, fserr.Errorf(c.tool, "", schema.KindInvalidArguments, "context must be between 0 and %d.", grepMaxContext)
	}
	pattern := a.Pattern
	if a.Literal {
		pattern = regexp.QuoteMeta(pattern)
	}
	if a.IgnoreCase {
		pattern = "(?i)" + pattern
	}
	m, merr := boundedLineMatcher(c.tool, "pattern", pattern, "search for a shorter pattern, or split an alternation over several grep calls")
	if merr != nil {
		return nil, merr
	}
	s := &searcher{e: e, c: c, m: m, filter: e.newWalkFilter(c), limit: e.maxSearchResults, budget: e.newBudget(),
		context: context, cut: cutLong, what: "lines", noLinks: true, narrow: "narrow the search: a path further down, a more specific pattern, a glob or a file_type"}
	r, dir, werr := e.openWalkRoot(c, a.Path, true)
	if werr != nil {
		return nil, werr
	}
	base := r.lexical
	if base == "" {
		base = r.rel
	}
	if dir != nil {
		base = dir.lex
	}
	files, ferr := newRgFiles(c.tool, a.Glob, a.FileType, base, dir == nil)
	if ferr != nil {
		if dir != nil {
			dir.close()
		}
		return nil, ferr
	}
	if files != nil {
		s.include = files
		s.filter.unignore = files.unignore
		s.filter.globCost = files.cost()
		s.dirExclude = files.dirExcluded
	}
	if err := s.search(r, dir); err != nil {
		return nil, err
	}
	sr := s.result()
	res := &schema.GrepResult{Text: sr.Text, Lines: make([]schema.GrepLine, len(sr.Matches)), Truncated: sr.Truncated, Hidden: sr.Hidden}
	for i, m := range sr.Matches {
		res.Lines[i] = schema.GrepLine{Path: m.Path, Line: m.Line, Text: m.Text, Context: i < len(s.ctxs) && s.ctxs[i]}
	}
	e.searched(c, r.rel, a.Pattern, "grep", len(res.Lines), res.Truncated)
	return res, nil
}

// cutLong cuts a line after grepWidth characters, as rg --max-columns 4096
// --max-columns-preview shows it.
func cutLong(line []byte) string {
	if len(line) <= grepWidth || utf8.RuneCount(line) <= grepWidth {
		return text.DecodeLenient(line)
	}
	return text.DecodeLenient(line[:text.RuneOffset(line, 0, 0, grepWidth)]) + " [... omitted end of long line]"
}

// scanContext scans a whole file (at most maxSearchFileBytes, checked by the caller) for grep
// with context lines: each match with up to s.context lines before and after, overlapping
// windows merged, every line once. The file is read once into a per-worker buffer; the line
// scanner (with its literal prefilter) finds the matching lines, and only a file with matches is
// split into lines. Binary files give nothing.
func (s *searcher) scanContext(st *scan.State, f io.Reader, size int64, o *searchOut, live func() bool) error {
	if int64(cap(st.Whole)) < size {
		st.Whole = make([]byte, size)
	}
	buf := st.Whole[:size]
	n, err := io.ReadFull(f, buf)
	if err != nil && err != io.ErrUnexpectedEOF {
		return err
	}
	buf = buf[:n]
	defer func() {
		if cap(st.Whole) > 4*scan.SearchChunk {
			st.Whole = nil // one large file grew it; do not keep megabytes per worker
		}
	}()
	var hits []int
	binary, err := s.m.Scan(st, bytes.NewReader(buf), int64(len(buf)), func(line int, _ []byte) bool {
		hits = append(hits, line)
		return len(hits) <= s.limit && live()
	})
	if err != nil || binary || len(hits) == 0 {
		return err
	}
	// Lines wanted: the windows around the hits, merged, in order.
	next := 0 // index into hits of the next match
	line := 1 // 1-based number of the line at off
	off := 0  // start of the current line in buf
	last := 0 // last line emitted
	for off < len(buf) && next < len(hits) || off < len(buf) && line <= last+s.context && last > 0 {
		end := bytes.IndexByte(buf[off:], '\n')
		var text []byte
		if end < 0 {
			text, end = buf[off:], len(buf)
		} else {
			text, end = buf[off:off+end], off+end+1
		}
		text = bytes.TrimSuffix(text, []byte{'\r'})
		isHit := next < len(hits) && hits[next] == line
		inWindow := next < len(hits) && line >= hits[next]-s.context || last > 0 && line <= last+s.context
		if isHit {
			next++
		}
		if isHit || inWindow {
			o.ctx = append(o.ctx, !isHit)
			if !s.keep(o, line, text) {
				return nil
			}
			if isHit {
				last = line
			}
		}
		off = end
		line++
	}
	return nil
}

// rgGlob is one rg --glob: gitignore-style, relative to the walk's root (base, a root-relative
// spelling). Without "/" (but a trailing one) it matches a name at any depth; with one, the path
// below base ("/" in front anchors nothing more). A leading "!" negates it. Matching is
// doublestar's ("**", classes, alternatives).
type rgGlob struct {
	src      string
	neg      bool
	anchored bool
	dirOnly  bool
	base     string
}

func newRgGlob(op, glob, base string) (*rgGlob, *Error) {
	g := &rgGlob{src: glob, base: base}
	p := glob
	if rest, ok := strings.CutPrefix(p, "!"); ok {
		g.neg, p = true, rest
	}
	if rest, ok := strings.CutSuffix(p, "/"); ok {
		g.dirOnly, p = true, rest
	}
	p = strings.TrimPrefix(p, "/")
	g.anchored = strings.Contains(p, "/")
	if err := checkGlob(op, "glob", glob, "name fewer alternatives in glob, or give a path further down"); err != nil {
		return nil, err
	}
	if p == "" || strings.IndexByte(p, 0) >= 0 || !doublestar.ValidatePattern(p) {
		return nil, fserr.Errorf(op, "", schema.KindInvalidPattern, "Invalid glob %s.", fserr.PyRepr(glob))
	}
	g.src = p
	return g, nil
}

// raw reports whether the glob's pattern (negation aside) matches the entry at lex.
func (g *rgGlob) raw(lex string, isDir bool) bool {
	if g.dirOnly && !isDir {
		return false
	}
	rel := lex
	if g.base != "." && g.base != "" {
		var ok bool
		if rel, ok = strings.CutPrefix(lex, g.base+"/"); !ok {
			if lex != g.base {
				return false
			}
			rel = path.Base(lex)
		}
	}
	if !g.anchored {
		rel = path.Base(rel)
	}
	ok, _ := doublestar.Match(g.src, rel)
	return ok
}

// rgFiles is the file filter of list_files and grep: a glob and a file type's globs.
type rgFiles struct {
	glob  *rgGlob   // nil: none
	types []*rgGlob // nil: any type
	// single: the search path is one file, which the glob and type still filter, by name.
	single bool
}

func newRgFiles(op, glob, fileType, base string, single bool) (*rgFiles, *Error) {
	if glob == "" && fileType == "" {
		return nil, nil
	}
	f := &rgFiles{single: single}
	if glob != "" {
		g, err := newRgGlob(op, glob, base)
		if err != nil {
			return nil, err
		}
		f.glob = g
	}
	if fileType != "" {
		globs, ok := fileTypes[fileType]
		if !ok {
			names := make([]string, 0, len(fileTypes))
			for n := range fileTypes {
				names = append(names, n)
			}
			slices.Sort(names)
			return nil, fserr.Errorf(op, "", schema.KindInvalidArguments, "Unknown file_type %s. Known types: %s.", fserr.PyRepr(fileType), strings.Join(names, ", "))
		}
		for _, p := range globs {
			g, _ := newRgGlob(op, p, base)
			f.types = append(f.types, g)
		}
	}
	return f, nil
}

// cost is the matching cost of the glob and the type's globs together (matchUnits).
func (f *rgFiles) cost() uint64 {
	var c uint64
	if f.glob != nil {
		c = globCost(f.glob.src)
	}
	for _, g := range f.types {
		c += globCost(g.src)
	}
	return c
}

// Match reports whether a file (root-relative spelling) is listed or searched.
func (f *rgFiles) Match(lex string) bool {
	if f.glob != nil && f.glob.raw(lex, false) == f.glob.neg {
		return false
	}
	if f.types != nil && !slices.ContainsFunc(f.types, func(g *rgGlob) bool { return g.raw(lex, false) }) {
		return false
	}
	return true
}

// unignore reports an entry the glob names, which ignore rules do not hide (rg's overrides).
func (f *rgFiles) unignore(lex string, isDir bool) bool {
	return f.glob != nil && !f.glob.neg && f.glob.raw(lex, isDir)
}

// dirExcluded reports a directory a "!" glob excludes: not entered.
func (f *rgFiles) dirExcluded(lex string) bool {
	return f.glob != nil && f.glob.neg && f.glob.raw(lex, true)
}

// fileTypes are the most used of rg's --type names (rg --type-list), with its globs.
var fileTypes = map[string][]string{
	"c":          {"*.[chH]", "*.[chH].in", "*.cats"},
	"cpp":        {"*.[ChH]", "*.cc", "*.[ch]pp", "*.[ch]xx", "*.hh", "*.inl", "*.[ChH].in", "*.cc.in", "*.[ch]pp.in", "*.[ch]xx.in", "*.hh.in"},
	"cs":         {"*.cs"},
	"css":        {"*.css", "*.scss"},
	"csv":        {"*.csv"},
	"dart":       {"*.dart"},
	"docker":     {"*Dockerfile*"},
	"elixir":     {"*.ex", "*.eex", "*.exs", "*.heex", "*.leex", "*.livemd"},
	"go":         {"*.go"},
	"h":          {"*.h", "*.hh", "*.hpp"},
	"haskell":    {"*.hs", "*.lhs", "*.cpphs", "*.c2hs", "*.hsc"},
	"html":       {"*.htm", "*.html", "*.ejs"},
	"java":       {"*.java", "*.jsp", "*.jspx", "*.properties"},
	"js":         {"*.js", "*.jsx", "*.vue", "*.cjs", "*.mjs"},
	"json":       {"*.json", "composer.lock", "*.sarif"},
	"kotlin":     {"*.kt", "*.kts"},
	"lua":        {"*.lua"},
	"make":       {"[Gg][Nn][Uu]makefile", "[Mm]akefile", "[Gg][Nn][Uu]makefile.am", "[Mm]akefile.am", "[Gg][Nn][Uu]makefile.in", "[Mm]akefile.in", "*.mk", "*.mak"},
	"markdown":   {"*.markdown", "*.md", "*.mdown", "*.mdwn", "*.mkd", "*.mkdn", "*.mdx"},
	"md":         {"*.markdown", "*.md", "*.mdown", "*.mdwn", "*.mkd", "*.mkdn", "*.mdx"},
	"php":        {"*.php", "*.php3", "*.php4", "*.php5", "*.php7", "*.php8", "*.pht", "*.phtml"},
	"protobuf":   {"*.proto"},
	"py":         {"*.py", "*.pyi"},
	"python":     {"*.py", "*.pyi"},
	"r":          {"*.R", "*.r", "*.Rmd", "*.Rnw"},
	"ruby":       {"Gemfile", "*.gemspec", ".irbrc", "Rakefile", "*.rb", "*.rbw"},
	"rust":       {"*.rs"},
	"scala":      {"*.scala", "*.sbt"},
	"sh":         {"*.bash", "*.bashrc", ".bash_login", ".bash_logout", ".bash_profile", "*.csh", ".cshrc", "*.ksh", ".kshrc", "*.sh", ".login", ".logout", ".profile", "*.tcsh", "*.zsh", ".zlogin", ".zlogout", ".zprofile", ".zshenv", ".zshrc"},
	"sql":        {"*.sql", "*.psql"},
	"swift":      {"*.swift"},
	"toml":       {"*.toml", "Cargo.lock"},
	"ts":         {"*.ts", "*.tsx", "*.cts", "*.mts"},
	"typescript": {"*.ts", "*.tsx", "*.cts", "*.mts"},
	"txt":        {"*.txt"},
	"xml":        {"*.xml", "*.xml.dist", "*.dtd", "*.xsl", "*.xslt", "*.xsd", "*.xjb", "*.rng", "*.sch", "*.xhtml"},
	"yaml":       {"*.yaml", "*.yml"},
}
