package ignore

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

// MaxFileBytes bounds what is read of one ignore file; patterns past it are not applied.
const MaxFileBytes = 1 << 20

// Bounds on the ignore patterns applied (see Cost above): patterns past them are not applied, so
// the entries they would hide are shown, and the walk's text says so.
const (
	MaxPatternsPerFile = 10_000
	MaxPatternsPerCall = 30_000
)

// Rule is one parsed pattern and the key that indexes it (index).
type Rule struct {
	pat gitignore.Pattern
	key key
}

// key says which names a pattern can match: one with a component equal to s (keyComp),
// starting with s (keyPrefix) or ending with s (keySuffix); keyNone: any.
type key struct {
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

// Load is one call's account of its ignore rules: how many patterns it applied and left
// out (the caps above), and the work budget their checks spend.
type Load struct {
	Work     Budget // nil: not counted
	patterns int
	dropped  int
}

// Notice is the closing line for patterns not applied, or "".
func (l *Load) Notice() string {
	if l == nil || l.dropped == 0 {
		return ""
	}
	what := " ignore patterns"
	if l.dropped == 1 {
		what = " ignore pattern"
	}
	return "[" + strconv.Itoa(l.dropped) + what + " not applied: one call applies at most " + strconv.Itoa(MaxPatternsPerCall) +
		", and at most " + strconv.Itoa(MaxPatternsPerFile) + " of one file; entries they would hide are shown]"
}

// take admits up to n more patterns within the per-call cap and returns how many.
func (l *Load) take(n int) int {
	if l == nil {
		return n
	}
	k := min(n, max(MaxPatternsPerCall-l.patterns, 0))
	l.patterns += k
	l.dropped += n - k
	return k
}

// Budget is the call's work budget as the match spends it: Spend counts n units and reports
// whether the walk may go on.
type Budget interface{ Spend(n int) bool }

// Applied and Dropped are the patterns the call applied and left out.
func (l *Load) Applied() int { return l.patterns }
func (l *Load) Dropped() int { return l.dropped }

// Root is the base level of a walk: the global rules (within load's cap). The caller adds the
// root's .git/info/exclude with Add and then calls Finish.
func Root(global []Rule, load *Load) *Level {
	return &Level{rules: global[:load.take(len(global))], load: load}
}

// Below starts the level of directory rel (resolved, root-relative) under its parent's level
// parent. A directory its parent's rules ignore was named explicitly (walks never enter one
// otherwise), so its level is off. The caller adds rel's ignore files with Add (unless Off) and
// then calls Finish.
func (parent *Level) Below(rel string) *Level {
	lvl := &Level{parent: parent, off: parent.off, any: parent.any, load: parent.load}
	if lvl.off {
		return lvl
	}
	if rel != "." {
		dir, name := relpath.Parent(rel)
		if parent.EntryIgnored(dir, name, true) {
			lvl.off = true
			return lvl
		}
		lvl.dir = rel
	}
	return lvl
}

// Add parses the content of one of the level's ignore files (in the order of Files) onto its
// rules.
func (l *Level) Add(b []byte) {
	if l.domain == nil && l.dir != "" {
		l.domain = strings.Split(l.dir, "/") // here, not in Below: most directories have no ignore file
	}
	l.rules = append(slices.Clip(l.rules), Parse(b, l.domain, l.load)...)
}

// Off reports whether nothing at or below the level is ignored (its directory was named
// explicitly though ignored).
func (l *Level) Off() bool { return l.off }

// Files are the per-directory ignore files, lowest precedence first.
var Files = []string{".gitignore", ".ignore", ".rgignore"}

// Level is the ignore rules in force in one directory: its own patterns on top of its
// parent's.
type Level struct {
	parent *Level
	rules  []Rule   // this directory's, lowest precedence first
	dir    string   // the directory of rules, root-relative ("": the root, or global)
	domain []string // dir as components, once a rule is added (nil: the root, or global)
	idx    *index   // rules indexed; nil until the level is complete
	load   *Load
	// off: this directory was named explicitly, though ignored, so nothing below it is ignored.
	off bool
	// any: some pattern applies here (own, an ancestor's, or global).
	any bool
}

// GlobalExcludes reads the host's global git excludes file, if any.
func GlobalExcludes() []Rule {
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
	return Parse(b, nil, nil)
}

func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, MaxFileBytes))
}

// Parse parses the lines of one ignore file whose directory is domain (root-relative
// components). Comments and blank lines are skipped, a CR before the newline is dropped, and
// "[!...]" is written as "[^...]" for Go's path.Match (git accepts both; go-git passes the
// class through to path.Match, which knows only "^"). At most MaxPatternsPerFile patterns
// are kept, and no more than load admits; the others are counted in load.
func Parse(b []byte, domain []string, load *Load) []Rule {
	var lines []string
	skipped := 0
	room := MaxPatternsPerFile
	if load != nil {
		room = min(room, max(MaxPatternsPerCall-load.patterns, 0))
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
	rs := make([]Rule, len(lines))
	for i, line := range lines {
		line = strings.ReplaceAll(line, "[!", "[^")
		rs[i] = Rule{pat: gitignore.ParsePattern(line, domain), key: keyOf(line)}
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
func keyOf(line string) key {
	p := strings.TrimPrefix(line, "!")
	if !strings.HasSuffix(p, "\\ ") {
		p = strings.TrimRight(p, " ")
	}
	p = strings.TrimSuffix(p, "/")
	best := key{}
	for _, c := range strings.Split(p, "/") {
		if c == "" || c == "**" {
			continue
		}
		i := strings.IndexAny(c, `*?[\`)
		if i < 0 {
			return key{keyComp, c}
		}
		if i > len(best.s) {
			best = key{keyPrefix, c[:i]}
		}
		if j := strings.LastIndexAny(c, `*?[]\`); len(c)-j-1 > len(best.s) {
			best = key{keySuffix, c[j+1:]}
		}
	}
	return best
}

// index selects, for a path, the rules of a level that can match it (see keyOf). Rules
// with the same key are chained through next, highest first, so the index costs a map entry per
// distinct key and an int32 per rule.
type index struct {
	comp, prefix, suffix   map[string]int32 // key → highest rule number with that key
	prefixLens, suffixLens []int            // the key lengths in prefix and suffix, ascending
	next                   []int32          // rule number → next lower one with its key, or -1
	rest                   []int32          // rules with keyNone, ascending
}

func newIndex(rules []Rule) *index {
	x := &index{comp: map[string]int32{}, prefix: map[string]int32{}, suffix: map[string]int32{}, next: make([]int32, len(rules))}
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
func (x *index) candidates(buf []int32, sub []string) []int32 {
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

// Finish indexes the level's rules once they are all read.
func (l *Level) Finish() *Level {
	if len(l.rules) > 0 {
		l.idx = newIndex(l.rules)
	}
	l.any = l.any || len(l.rules) > 0
	return l
}

// IsFile reports whether a listed entry is one of Files.
func IsFile(de fs.DirEntry) bool { return slices.Contains(Files, de.Name()) }

// EntryIgnored reports whether the entry name of the directory rel (resolved, root-relative),
// whose rules l holds, is ignored. isDir is the entry's own type: a symlink is matched as a
// file, as git and rg do. The deepest matching pattern decides; a nil level ignores nothing.
func (l *Level) EntryIgnored(rel, name string, isDir bool) bool {
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
func (l *Level) match(path []string, isDir bool) gitignore.MatchResult {
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
		if l.load != nil && l.load.Work != nil && !l.load.Work.Spend(1) {
			return gitignore.NoMatch
		}
		if m := l.rules[i].pat.Match(path, isDir); m != gitignore.NoMatch {
			return m
		}
	}
	return gitignore.NoMatch
}
