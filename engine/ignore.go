package engine

import (
	"bufio"
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

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
// Ignore rules are not access rules: read_file, write_file and the other path tools reach an
// ignored path as before, and hidden counts say how many entries they left out (hidden.ignored).
// They protect nothing; they keep vendored and generated trees out of the model's context.
type ignorer struct {
	global []gitignore.Pattern
}

// maxIgnoreBytes bounds what is read of one ignore file; patterns past it are not applied.
const maxIgnoreBytes = 1 << 20

// ignoreFiles are the per-directory ignore files, lowest precedence first.
var ignoreFiles = []string{".gitignore", ".ignore", ".rgignore"}

// ignoreLevel is the ignore rules in force in one directory: its own patterns on top of its
// parent's.
type ignoreLevel struct {
	parent *ignoreLevel
	pats   []gitignore.Pattern // this directory's, lowest precedence first
	// off: this directory was named explicitly, though ignored, so nothing below it is ignored.
	off bool
	// any: some pattern applies here (own, an ancestor's, or global).
	any bool
}

// newIgnorer loads the host's global excludes file.
func newIgnorer() *ignorer { return &ignorer{global: hostExcludes()} }

// globalExcludes reads the host's global git excludes file, if any.
func globalExcludes() []gitignore.Pattern {
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
	return parseIgnore(b, nil)
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
// class through to path.Match, which knows only "^").
func parseIgnore(b []byte, domain []string) []gitignore.Pattern {
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), maxIgnoreBytes)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		line = strings.ReplaceAll(line, "[!", "[^")
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}

// rootLevel builds the rules in force in the parent of the resolved directory rel, a walk's
// root: the global ones, the root's .git/info/exclude and the ignore files of rel's ancestors,
// each opened from the root. The walk then adds rel's own level with below.
func (ig *ignorer) rootLevel(e *Engine, f *walkFilter, rel string) *ignoreLevel {
	base := &ignoreLevel{pats: ig.global}
	if h, err := openDirHandle(e, ".", nil); err == nil {
		if git, err := h.child(".git"); err == nil {
			if info, err := git.child("info"); err == nil {
				if b, ok := readIgnoreFile(info, "exclude"); ok {
					base.pats = append(slices.Clip(base.pats), parseIgnore(b, nil)...)
				}
				info.close()
			}
			git.close()
		}
		h.close()
	}
	base.any = len(base.pats) > 0
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
	lvl := &ignoreLevel{parent: parent, off: parent.off, any: parent.any}
	if lvl.off {
		return lvl
	}
	if rel != "." {
		dir, name := parentRel(rel)
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
	var domain []string
	if rel != "." {
		domain = strings.Split(rel, "/")
	}
	for _, name := range ignoreFiles {
		if ents != nil && !slices.ContainsFunc(ents, func(de fs.DirEntry) bool { return de.Name() == name }) {
			continue
		}
		p := joinChild(rel, name)
		if (f == nil || f.filters) && !e.canRead(&resolved{spelling: p, lexical: p, rel: p, exists: true}) {
			continue
		}
		if b, ok := readIgnoreFile(*h, name); ok {
			lvl.pats = append(lvl.pats, parseIgnore(b, domain)...)
		}
	}
	lvl.any = lvl.any || len(lvl.pats) > 0
	return lvl
}

// isIgnoreFile reports whether a listed entry is one of ignoreFiles.
func isIgnoreFile(de fs.DirEntry) bool { return slices.Contains(ignoreFiles, de.Name()) }

// readIgnoreFile reads the regular file name of h, at most maxIgnoreBytes of it.
func readIgnoreFile(h dirHandle, name string) ([]byte, bool) {
	f, _, ok := h.openEntry(name, true)
	if !ok {
		return nil, false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxIgnoreBytes))
	return b, err == nil
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
		for i := len(lv.pats) - 1; i >= 0; i-- {
			if m := lv.pats[i].Match(path, isDir); m != gitignore.NoMatch {
				return m == gitignore.Exclude
			}
		}
	}
	return false
}
