package engine

import (
	"io"
	"io/fs"
	"slices"
	"strings"

	"github.com/fsbox/fsbox/engine/internal/ignore"
	"github.com/fsbox/fsbox/engine/internal/relpath"
)

// ignorer applies the ignore rules (Config.IgnoreVCS, default on) to the walkers: the rules, their
// precedence, their index and their bounds are the ignore package's (engine/internal/ignore);
// what is here is where they are read from, through the walk's directory descriptors like any
// entry, so a symlinked or special ignore file, or one access rules deny, is not read. Ignore
// rules are not access rules: they hide entries from walks, never a path the model named.
type ignorer struct {
	global []ignore.Rule
}

// newIgnorer loads the host's global excludes file.
func newIgnorer() *ignorer { return &ignorer{global: hostExcludes()} }

// rootLevel builds the rules in force in the parent of the resolved directory rel, a walk's
// root: the global ones, the root's .git/info/exclude and the ignore files of rel's ancestors,
// each opened from the root. The walk then adds rel's own level with below.
func (ig *ignorer) rootLevel(e *Engine, f *walkFilter, rel string, load *ignore.Load) *ignore.Level {
	base := ignore.Root(ig.global, load)
	if h, err := openDirHandle(e, ".", nil); err == nil {
		if git, err := h.child(".git"); err == nil {
			if info, err := git.child("info"); err == nil {
				if b, ok := readIgnoreFile(info, "exclude"); ok {
					base.Add(b)
				}
				info.close()
			}
			git.close()
		}
		h.close()
	}
	base.Finish()
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
		if lvl.Off() {
			break
		}
	}
	return lvl
}

// below builds the level of directory rel (resolved, root-relative) from its parent's level. h
// is rel's handle (nil: rel is opened from the root) and ents its sorted listing (nil: the
// ignore files are looked up by name).
func (ig *ignorer) below(e *Engine, f *walkFilter, parent *ignore.Level, rel string, h *dirHandle, ents []fs.DirEntry) *ignore.Level {
	lvl := parent.Below(rel)
	if lvl.Off() {
		return lvl
	}
	if ents != nil && !slices.ContainsFunc(ents, ignore.IsFile) {
		return lvl.Finish()
	}
	if h == nil {
		oh, err := openDirHandle(e, rel, nil)
		if err != nil {
			return lvl.Finish()
		}
		defer oh.close()
		h = &oh
	}
	for _, name := range ignore.Files {
		if ents != nil && !slices.ContainsFunc(ents, func(de fs.DirEntry) bool { return de.Name() == name }) {
			continue
		}
		p := relpath.Child(rel, name)
		if (f == nil || f.filters) && !e.canRead(&resolved{spelling: p, lexical: p, rel: p, exists: true}) {
			continue
		}
		if b, ok := readIgnoreFile(*h, name); ok {
			lvl.Add(b)
		}
	}
	return lvl.Finish()
}

// readIgnoreFile reads the regular file name of h, at most ignore.MaxFileBytes of it, into a
// buffer of its size (read_file's fstat), not grown as it is read.
func readIgnoreFile(h dirHandle, name string) ([]byte, bool) {
	f, size, ok := h.openEntry(name, true)
	if !ok {
		return nil, false
	}
	defer f.Close()
	b := make([]byte, min(max(size, 0), ignore.MaxFileBytes))
	n, err := io.ReadFull(f, b)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, false
	}
	return b[:n], true
}
