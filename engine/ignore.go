package engine

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/fsbox/fsbox/engine/internal/relpath"
	"github.com/go-git/go-git/v5/plumbing/format/config"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// Ignore rules (Config.IgnoreVCS, default on): what the walkers skip the way rg --files and
// git ls-files --exclude-standard do. Matching is go-git's gitignore package (the matcher Docker
// cagent uses; nested files by domain, negation, "**", anchoring); fsbox supplies which files are
// read, in which order, and how they are read. Precedence, lowest first (a later match wins):
//
//  1. the global excludes file: core.excludesFile of the host's ~/.gitconfig, else
//     $XDG_CONFIG_HOME/git/ignore (~/.config/git/ignore), read once when the engine starts;
//  2. .git/info/exclude of the root;
//  3. for each directory from the root down, its .gitignore, then .ignore, then .rgignore (rg's
//     order); a deeper directory's rules win over a shallower one's.
//
// Further rules:
//
//   - An entry named ".git" is always skipped.
//   - A walk rooted at an ignored path (the model named it) shows what is below it: ignore rules
//     hide entries the model did not ask for, never a path it named. The same holds for a
//     directory find_files reaches through a literal component of its pattern.
//   - Ignore files are read through the walk's directory descriptor like any entry: a symlinked
//     or special ignore file, or one access rules deny, is not read; at most maxIgnoreBytes of one
//     are read. Ignore files above the root are never read (nothing outside the root is).
//   - .gitignore files apply whether or not the root is a git repository (rg needs a .git
//     directory for them; a workspace copied without its .git still skips its node_modules).
//
// Cost. go-git's patterns are matched one at a time, and a walk checks every entry against every
// pattern of every level: three nested 1 MiB .gitignore files over 600 files took 55.8 s in one
// list_directory. So each level is compiled into an index (ignoreIndex), the way ripgrep's
// globset groups globs by strategy: every pattern component must match some component of the
// path, so a pattern with a literal component (node_modules, vendor/**) is keyed by it in a hash
// set, one whose component has a literal prefix or suffix (*.log, [Bb]uild, tmp*) by that, and
// only the rest (*, */*.tmp) is tried for every entry. An entry is then checked against the
// patterns its own names select, highest precedence first, with go-git's Match, so the result is
// exactly go-git's (TestIgnore_IndexAgreesWithGoGit). And what is read is bounded:
//
//   - at most maxIgnorePatternsPerFile patterns of one file and maxIgnorePatternsPerCall of one
//     call are applied; the walk's text then ends with "[N ignore patterns not applied: ...]";
//   - every pattern an entry is checked against spends a unit of the call's work budget
//     (budget_work.go), which ends a walk that checks too many.
//
// Ignore rules are not access rules: read_file, write_file and the other path tools reach an
// ignored path as before, and hidden counts say how many entries they left out (hidden.ignored).
// They protect nothing; they keep vendored and generated trees out of the model's context.
type ignorer struct {
	global []ignoreRule
}

// maxIgnoreBytes bounds what is read of one ignore file; patterns past it are not applied.
const maxIgnoreBytes = 1 << 20

// Bounds on the ignore patterns applied (see Cost above): patterns past them are not applied, so
// the entries they would hide are shown, and the walk's text says so.
const (
	maxIgnorePatternsPerFile = 10_000
	maxIgnorePatternsPerCall = 30_000
)

// ignoreRule is one parsed pattern and the key that indexes it (ignoreIndex).
type ignoreRule struct {
	pat gitignore.Pattern
	key ignoreKey
}

// ignoreKey says which names a pattern can match: one with a component equal to s (keyComp),
// starting with s (keyPrefix) or ending with s (keySuffix); keyNone: any.
type ignoreKey struct {
	kind keyKind
	s    string
}

type keyKind uint8

const (
	keyNone keyKind = iota
	keyComp
	keyPrefix
	keySuffix
)

// ignoreLoad is one call's account of its ignore rules: how many patterns it applied and left
// out (the caps above), and the work budget their checks spend.
type ignoreLoad struct {
	work     *workBudget // nil: not counted
	patterns int
	dropped  int
}

// notice is the closing line for patterns not applied, or "".
func (l *ignoreLoad) notice() string {
	if l == nil || l.dropped == 0 {
		return ""
	}
	what := " ignore patterns"
	if l.dropped == 1 {
		what = " ignore pattern"
	}
	return "[" + strconv.Itoa(l.dropped) + what + " not applied: one call applies at most " + strconv.Itoa(maxIgnorePatternsPerCall) +
		", and at most " + strconv.Itoa(maxIgnorePatternsPerFile) + " of one file; entries they would hide are shown]"
}

// take admits up to n more patterns within the per-call cap and returns how many.
func (l *ignoreLoad) take(n int) int {
	if l == nil {
		return n
	}
	k := min(n, max(maxIgnorePatternsPerCall-l.patterns, 0))
	l.patterns += k
	l.dropped += n - k
	return k
}

// ignoreFiles are the per-directory ignore files, lowest precedence first.
var ignoreFiles = []string{".gitignore", ".ignore", ".rgignore"}

// ignoreLevel is the ignore rules in force in one directory: its own patterns on top of its
// parent's.
type ignoreLevel struct {
	parent *ignoreLevel
	rules  []ignoreRule // this directory's, lowest precedence first
	domain []string     // the directory of rules, as components (nil: the root, or global)
	idx    *ignoreIndex // rules indexed; nil until the level is complete
	load   *ignoreLoad
	// off: this directory was named explicitly, though ignored, so nothing below it is ignored.
	off bool
	// any: some pattern applies here (own, an ancestor's, or global).
	any bool
}

// newIgnorer loads the host's global excludes file.
func newIgnorer() *ignorer { return &ignorer{global: hostExcludes()} }

// globalExcludes reads the host's global git excludes file, if any.
func globalExcludes() []ignoreRule {
	home, _ := os.UserHomeDir()
	path := ""
	if home != "" {
		if b, err := readBounded(filepath.Join(home, ".gitconfig")); err == nil {
			raw := config.New()
			if config.NewDecoder(bytes.NewReader(b)).Decode(raw) == nil {
				path = raw.Section("core").Options.Get("excludesfile")
			}
		}
		if p, ok := strings.CutPrefix(path, "~/"); ok {
			path = filepath.Join(home, p)
		}
	}
	if path == "" {
		xdg := os.Getenv("XDG_CONFIG_HOME")
		if xdg == "" && home != "" {
			xdg = filepath.Join(home, ".config")
		}
		if xdg == "" {
			return nil
		}
		path = filepath.Join(xdg, "git", "ignore")
	}
	b, err := readBounded(path)
	if err != nil {
		return nil
	}
	return parseIgnore(b, nil, nil)
}

func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxIgnoreBytes))
}

// parseIgnore parses the lines of one ignore file whose directory is domain (root-relative
// components). Comments and blank lines are skipped, a CR before the newline is dropped, and
// "[!...]" is written as "[^...]" for Go's path.Match (git accepts both; go-git passes the
// class through to path.Match, which knows only "^"). At most maxIgnorePatternsPerFile patterns
// are kept, and no more than load admits; the others are counted in load.
func parseIgnore(b []byte, domain []string, load *ignoreLoad) []ignoreRule {
	var lines []string
	skipped := 0
	room := maxIgnorePatternsPerFile
	if load != nil {
		room = min(room, max(maxIgnorePatternsPerCall-load.patterns, 0))
	}
	for len(b) > 0 {
		var line []byte
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			line, b = b, nil
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte{'\r'}), []byte{'\r'}) // as bufio.ScanLines and a TrimSuffix did
		if bytes.HasPrefix(line, []byte{'#'}) || len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if len(lines) == room {
			skipped++
			continue
		}
		lines = append(lines, string(line))
	}
	lines = lines[:load.take(len(lines))]
	if load != nil {
		load.dropped += skipped
	}
	rs := make([]ignoreRule, len(lines))
	for i, line := range lines {
		line = strings.ReplaceAll(line, "[!", "[^")
		rs[i] = ignoreRule{pat: gitignore.ParsePattern(line, domain), key: keyOf(line)}
	}
	return rs
}

// keyOf returns the key of a pattern line, read as gitignore.ParsePattern reads it: a leading
// "!" negates, trailing spaces go unless escaped, a trailing "/" means directories only, and the
// rest is split at "/". go-git matches each component but "" and "**" with filepath.Match
// against a component of the path (a pattern without "/" against any of them; with "/", in
// order), so the path has a component equal to a literal pattern component, or starting or
// ending with a component's literal prefix or suffix. The longest such key is taken; keyNone
// when there is none.
func keyOf(line string) ignoreKey {
	p := strings.TrimPrefix(line, "!")
	if !strings.HasSuffix(p, "\\ ") {
		p = strings.TrimRight(p, " ")
	}
	p = strings.TrimSuffix(p, "/")
	best := ignoreKey{}
	for _, c := range strings.Split(p, "/") {
		if c == "" || c == "**" {
			continue
		}
		i := strings.IndexAny(c, `*?[\`)
		if i < 0 {
			return ignoreKey{keyComp, c}
		}
		if i > len(best.s) {
			best = ignoreKey{keyPrefix, c[:i]}
		}
		if j := strings.LastIndexAny(c, `*?[]\`); len(c)-j-1 > len(best.s) {
			best = ignoreKey{keySuffix, c[j+1:]}
		}
	}
	return best
}

// ignoreIndex selects, for a path, the rules of a level that can match it (see keyOf). Rules
// with the same key are chained through next, highest first, so the index costs a map entry per
// distinct key and an int32 per rule.
type ignoreIndex struct {
	comp, prefix, suffix   map[string]int32 // key → highest rule number with that key
	prefixLens, suffixLens []int            // the key lengths in prefix and suffix, ascending
	next                   []int32          // rule number → next lower one with its key, or -1
	rest                   []int32          // rules with keyNone, ascending
}

func newIgnoreIndex(rules []ignoreRule) *ignoreIndex {
	x := &ignoreIndex{comp: map[string]int32{}, prefix: map[string]int32{}, suffix: map[string]int32{}, next: make([]int32, len(rules))}
	add := func(m map[string]int32, lens *[]int, k string, i int32) {
		head, ok := m[k]
		if !ok {
			head = -1
			if lens != nil && !slices.Contains(*lens, len(k)) {
				*lens = append(*lens, len(k))
			}
		}
		x.next[i], m[k] = head, i
	}
	for i, r := range rules {
		switch r.key.kind {
		case keyComp:
			add(x.comp, nil, r.key.s, int32(i))
		case keyPrefix:
			add(x.prefix, &x.prefixLens, r.key.s, int32(i))
		case keySuffix:
			add(x.suffix, &x.suffixLens, r.key.s, int32(i))
		default:
			x.rest = append(x.rest, int32(i))
		}
	}
	slices.Sort(x.prefixLens)
	slices.Sort(x.suffixLens)
	return x
}

// candidates appends to buf the numbers of the keyed rules that can match sub (the path below
// the level's directory), highest first, without repeats; the rules in rest can match any path.
func (x *ignoreIndex) candidates(buf []int32, sub []string) []int32 {
	chain := func(m map[string]int32, k string) {
		if i, ok := m[k]; ok {
			for ; i >= 0; i = x.next[i] {
				buf = append(buf, i)
			}
		}
	}
	for _, c := range sub {
		chain(x.comp, c)
		for _, n := range x.prefixLens {
			if n > len(c) {
				break
			}
			chain(x.prefix, c[:n])
		}
		for _, n := range x.suffixLens {
			if n > len(c) {
				break
			}
			chain(x.suffix, c[len(c)-n:])
		}
	}
	slices.SortFunc(buf, func(a, b int32) int { return int(b - a) })
	return slices.Compact(buf)
}

// finish indexes the level's rules once they are all read.
func (l *ignoreLevel) finish() *ignoreLevel {
	if len(l.rules) > 0 {
		l.idx = newIgnoreIndex(l.rules)
	}
	l.any = l.any || len(l.rules) > 0
	return l
}

// rootLevel builds the rules in force in the parent of the resolved directory rel, a walk's
// root: the global ones, the root's .git/info/exclude and the ignore files of rel's ancestors,
// each opened from the root. The walk then adds rel's own level with below.
func (ig *ignorer) rootLevel(e *Engine, f *walkFilter, rel string, load *ignoreLoad) *ignoreLevel {
	base := &ignoreLevel{rules: ig.global[:load.take(len(ig.global))], load: load}
	if h, err := openDirHandle(e, ".", nil); err == nil {
		if git, err := h.child(".git"); err == nil {
			if info, err := git.child("info"); err == nil {
				if b, ok := readIgnoreFile(info, "exclude"); ok {
					base.rules = append(slices.Clip(base.rules), parseIgnore(b, nil, load)...)
				}
				info.close()
			}
			git.close()
		}
		h.close()
	}
	base.finish()
	if rel == "." {
		return base
	}
	lvl := base
	parts := strings.Split(rel, "/")
	for i := range parts {
		dir := "."
		if i > 0 {
			dir = strings.Join(parts[:i], "/")
		}
		lvl = ig.below(e, f, lvl, dir, nil, nil)
		if lvl.off {
			break
		}
	}
	return lvl
}

// below builds the level of directory rel (resolved, root-relative) from its parent's level. h
// is rel's handle (nil: rel is opened from the root) and ents its sorted listing (nil: the
// ignore files are looked up by name). A directory its parent's rules ignore was named
// explicitly (walks never enter one otherwise), so its level is off.
func (ig *ignorer) below(e *Engine, f *walkFilter, parent *ignoreLevel, rel string, h *dirHandle, ents []fs.DirEntry) *ignoreLevel {
	lvl := &ignoreLevel{parent: parent, off: parent.off, any: parent.any, load: parent.load}
	if lvl.off {
		return lvl
	}
	if rel != "." {
		dir, name := relpath.Parent(rel)
		if parent.entryIgnored(dir, name, true) {
			lvl.off = true
			return lvl
		}
	}
	if ents != nil && !slices.ContainsFunc(ents, isIgnoreFile) {
		return lvl
	}
	if h == nil {
		oh, err := openDirHandle(e, rel, nil)
		if err != nil {
			return lvl
		}
		defer oh.close()
		h = &oh
	}
	if rel != "." {
		lvl.domain = strings.Split(rel, "/")
	}
	for _, name := range ignoreFiles {
		if ents != nil && !slices.ContainsFunc(ents, func(de fs.DirEntry) bool { return de.Name() == name }) {
			continue
		}
		p := relpath.Child(rel, name)
		if (f == nil || f.filters) && !e.canRead(&resolved{spelling: p, lexical: p, rel: p, exists: true}) {
			continue
		}
		if b, ok := readIgnoreFile(*h, name); ok {
			lvl.rules = append(lvl.rules, parseIgnore(b, lvl.domain, lvl.load)...)
		}
	}
	return lvl.finish()
}

// isIgnoreFile reports whether a listed entry is one of ignoreFiles.
func isIgnoreFile(de fs.DirEntry) bool { return slices.Contains(ignoreFiles, de.Name()) }

// readIgnoreFile reads the regular file name of h, at most maxIgnoreBytes of it, into a buffer
// of its size (read_file's fstat), not grown as it is read.
func readIgnoreFile(h dirHandle, name string) ([]byte, bool) {
	f, size, ok := h.openEntry(name, true)
	if !ok {
		return nil, false
	}
	defer f.Close()
	b := make([]byte, min(max(size, 0), maxIgnoreBytes))
	n, err := io.ReadFull(f, b)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, false
	}
	return b[:n], true
}

// entryIgnored reports whether the entry name of the directory rel (resolved, root-relative),
// whose rules l holds, is ignored. isDir is the entry's own type: a symlink is matched as a
// file, as git and rg do. The deepest matching pattern decides; a nil level ignores nothing.
func (l *ignoreLevel) entryIgnored(rel, name string, isDir bool) bool {
	if l == nil || l.off {
		return false
	}
	if name == ".git" {
		return true
	}
	if !l.any {
		return false
	}
	var path []string
	if rel == "." {
		path = []string{name}
	} else {
		path = append(strings.Split(rel, "/"), name)
	}
	for lv := l; lv != nil; lv = lv.parent {
		if m := lv.match(path, isDir); m != gitignore.NoMatch {
			return m == gitignore.Exclude
		}
	}
	return false
}

// match returns the result of the level's highest-precedence rule that matches path, trying
// only the rules its index selects. Each rule tried spends a unit of the call's work budget;
// once that is spent, nothing more is ignored (the walk stops soon after).
func (l *ignoreLevel) match(path []string, isDir bool) gitignore.MatchResult {
	if l.idx == nil || len(path) <= len(l.domain) {
		return gitignore.NoMatch
	}
	for i, d := range l.domain {
		if path[i] != d {
			return gitignore.NoMatch
		}
	}
	var buf [64]int32
	keyed, rest := l.idx.candidates(buf[:0], path[len(l.domain):]), l.idx.rest
	for len(keyed) > 0 || len(rest) > 0 {
		var i int32
		if n := len(rest); n == 0 || len(keyed) > 0 && keyed[0] > rest[n-1] {
			i, keyed = keyed[0], keyed[1:]
		} else {
			i, rest = rest[n-1], rest[:n-1]
		}
		if l.load != nil && l.load.work != nil && !l.load.work.spend(1) {
			return gitignore.NoMatch
		}
		if m := l.rules[i].pat.Match(path, isDir); m != gitignore.NoMatch {
			return m
		}
	}
	return gitignore.NoMatch
}
