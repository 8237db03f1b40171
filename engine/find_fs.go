package engine

import (
	"io/fs"
	"strings"

	"github.com/fsbox/fsbox/engine/internal/ignore"
	"github.com/fsbox/fsbox/engine/internal/relpath"
	"github.com/fsbox/fsbox/schema"
)

// maxFindDirReads bounds the directory listings of one find_files call (find rule 5): ten times
// a large monorepo's directory count, so only a pattern that multiplies the walk meets it. A
// variable so tests can lower it.
var maxFindDirReads = 100_000

// walkFS is the fs.FS doublestar walks: root-relative names over the engine's root.
//
//   - It opens only directories it has resolved (no symlink on the way at the time of the
//     check), recording each real subdirectory a listing shows, so a directory reached through
//     the walk costs no resolution, and one named literally in the pattern is resolved once
//     through the core's resolver. doublestar, with WithNoFollow, never enters a symlinked
//     directory by a wildcard.
//   - Listings are by descriptor (dirHandle): each directory is opened relative to its parent,
//     which stays open while the walk is below it (doublestar walks depth first).
//   - For a pattern with "**", whose walk visits every visible subdirectory, the subdirectories
//     of each listing are listed ahead by a few goroutines, so the walk mostly finds its next
//     listing done: a directory listing is a system call or two, and those run in parallel.
//
// Only doublestar's goroutine calls the fs.FS methods; the prefetcher's goroutines only fill the
// listings queued for them.
type walkFS struct {
	e     *Engine
	real  map[string]string // spelling (root-relative) → resolved path
	reads int               // ReadDir calls so far (find rule 5)
	stack []openDir         // directories listed along the walk's current path, outermost first
	// The last listing: doublestar lists each directory twice in a row for "**/x" (once to match
	// x in it, once to walk on), and the second costs nothing this way.
	lastReal string
	lastEnts []fs.DirEntry

	pre *prefetcher // for a pattern with "**"; nil otherwise

	// prune reports a directory not to enter (budget rule 4); pruned counts them.
	prune  func(name string) bool
	pruned int
	// realChars is the size of real's keys and values; past maxRealChars the map is cleared (a
	// spelling not in it is resolved again), so a deep chain of long names cannot grow it to the
	// square of the depth.
	realChars int

	// hidden counts what the walk left out (walk rules 2 and 3); dotMatch reports whether a dot
	// entry (root-relative name) counts: one the pattern would match, or a dot directory a "**"
	// would enter. It is nil when the pattern names a dot entry itself. counted holds the
	// denied directories counted, so one both matched and listed counts once.
	hidden   schema.HiddenCounts
	dotMatch func(name string, dir bool) bool
	counted  map[string]struct{}
	// countedChars is the size of counted's keys; past maxRealChars nothing more is recorded, so
	// a count may then repeat a directory, but memory stays bounded.
	countedChars int

	// ign is the engine's ignore rules (nil without them); reach reports whether the pattern
	// would have matched or entered an entry, for counting what they hid.
	ign   *ignorer
	reach func(name string, dir bool) bool

	// work is the call's work budget (budget_work.go): every Open, Stat and ReadDir spends a
	// unit, a listing one more per entry. Once it is spent, or the call cancelled, every method
	// answers "not found" or an empty listing, so doublestar unwinds without touching the
	// tree, whatever alternatives it has left to expand.
	work *workBudget
	load *ignore.Load
	// cost is the pattern's matching cost (matchUnits): each listed entry spends it, since
	// doublestar matches every entry of a listing against the pattern's component.
	cost uint64
}

// maxRealChars bounds the memory of walkFS.real.
const maxRealChars = 8 << 20

// openDir is a directory on the walk's current path.
type openDir struct {
	real string
	sh   *sharedHandle
	ign  *ignore.Level // its ignore rules; nil without them
}

func newWalkFS(e *Engine, base string, prefetch bool, work *workBudget, load *ignore.Load) *walkFS {
	w := &walkFS{e: e, real: map[string]string{base: base}, work: work, load: load}
	if prefetch {
		w.pre = newPrefetcher(listSorted)
	}
	return w
}

// close stops the prefetchers and closes every handle still open.
func (w *walkFS) close() {
	if w.pre != nil {
		w.pre.stop()
	}
	for _, d := range w.stack {
		d.sh.release()
	}
	w.stack = nil
}

// listSorted lists a directory's names and types, sorted.
func listSorted(h dirHandle) ([]fs.DirEntry, error) {
	ents, err := h.list()
	sortEntries(ents)
	return ents, err
}

// popTo drops from the stack every directory that is not an ancestor of real.
func (w *walkFS) popTo(real string) {
	parent, _ := relpath.Parent(real)
	for len(w.stack) > 0 {
		top := w.stack[len(w.stack)-1].real
		if top == "." || top == parent || strings.HasPrefix(parent, top+"/") {
			return
		}
		w.stack[len(w.stack)-1].sh.release()
		w.stack = w.stack[:len(w.stack)-1]
	}
}

// list returns the sorted entries of the resolved directory real and its handle, pushed on the
// stack: from a prefetch when one was queued, else opened now (relative to its parent when the
// parent is on the stack, else from the root).
func (w *walkFS) list(real string) (*sharedHandle, []fs.DirEntry, error) {
	w.popTo(real)
	if w.pre != nil {
		if sh, ents, err, ok := w.pre.take(real); ok {
			if err != nil {
				if sh != nil {
					sh.release()
				}
				return nil, nil, err
			}
			w.stack = append(w.stack, openDir{real: real, sh: sh})
			return sh, ents, nil
		}
	}
	parent, leaf := relpath.Parent(real)
	var h dirHandle
	var err error
	if n := len(w.stack); n > 0 && w.stack[n-1].real == parent && real != "." {
		h, err = w.stack[n-1].sh.h.child(leaf)
	} else {
		h, err = openDirHandle(w.e, real, nil)
	}
	if err != nil {
		return nil, nil, err
	}
	sh := newShared(h)
	w.stack = append(w.stack, openDir{real: real, sh: sh})
	ents, err := listSorted(h)
	return sh, ents, err
}

// realOf returns the resolved path of a root-relative spelling.
func (w *walkFS) realOf(name string) (string, bool) {
	if r, ok := w.real[name]; ok {
		return r, true
	}
	res, err := w.e.resolveRel("", name)
	if err != nil || !res.exists {
		return "", false
	}
	w.remember(name, res.rel)
	return res.rel, true
}

// remember records the resolved path of a spelling, within maxRealChars.
func (w *walkFS) remember(name, real string) {
	if w.realChars += len(name) + len(real); w.realChars > maxRealChars {
		base := w.real
		w.real = map[string]string{}
		for k, v := range base {
			if k == v && !strings.Contains(k, "/") {
				w.real[k] = v // keep the top level: cheap and always asked for
			}
		}
		w.realChars = len(name) + len(real)
	}
	w.real[name] = real
}

func (w *walkFS) Open(name string) (fs.File, error) {
	if !w.work.Spend(1) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	real, ok := w.realOf(name)
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	root, sub, _ := w.e.rootFor(real)
	return root.OpenFile(sub, openFlagsRead, 0)
}

func (w *walkFS) Stat(name string) (fs.FileInfo, error) {
	if !w.work.Spend(1) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	real, ok := w.realOf(name)
	if !ok {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	root, sub, _ := w.e.rootFor(real)
	return root.Lstat(sub)
}

func (w *walkFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if w.reads++; w.reads > maxFindDirReads || !w.work.Spend(1) {
		return nil, nil
	}
	real, ok := w.realOf(name)
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	if w.denied(real, name) {
		w.countDenied(name)
		return nil, nil // walk rule 4: nothing below a denied directory is shown
	}
	if w.prune != nil && w.prune(name) {
		w.pruned++
		return nil, nil
	}
	if real == w.lastReal && w.lastEnts != nil {
		if !w.work.Spend(w.units(w.lastEnts)) {
			return nil, nil
		}
		return w.lastEnts, nil
	}
	sh, ents, err := w.list(real)
	if err != nil {
		return nil, err
	}
	if !w.work.Spend(w.units(ents)) {
		return nil, nil
	}
	ents = w.dropIgnored(name, real, sh, ents)
	w.lastReal, w.lastEnts = real, ents
	w.countDots(name, ents)
	for i := len(ents) - 1; i >= 0; i-- {
		de := ents[i]
		if !de.IsDir() {
			continue
		}
		child, childReal := relpath.Child(name, de.Name()), relpath.Child(real, de.Name())
		w.remember(child, childReal)
		if w.pre != nil && (w.e.showDots || !strings.HasPrefix(de.Name(), ".")) && !w.denied(childReal, child) {
			w.pre.queue(sh, de.Name(), childReal)
		}
	}
	return ents, nil
}

// units is the work doublestar does with a listing: one unit for each entry and the match of
// each name against the pattern, spent before it starts so that one huge listing cannot
// overrun the budget.
func (w *walkFS) units(ents []fs.DirEntry) int {
	n := 0
	for _, de := range ents {
		n += matchUnits(w.cost, len(de.Name()))
	}
	return n
}

// dropIgnored loads the ignore rules of the directory just listed (the top of the stack) and
// returns its entries without those they ignore, counting the ones the pattern would have
// reached (but ".git", which is always skipped, like rg does, and never worth a notice).
func (w *walkFS) dropIgnored(name, real string, sh *sharedHandle, ents []fs.DirEntry) []fs.DirEntry {
	if w.ign == nil {
		return ents
	}
	var up *ignore.Level
	if n := len(w.stack); n > 1 {
		if parent, _ := relpath.Parent(real); w.stack[n-2].real == parent && real != "." {
			up = w.stack[n-2].ign
		}
	}
	if up == nil {
		up = w.ign.rootLevel(w.e, nil, real, w.load)
	}
	lvl := w.ign.below(w.e, nil, up, real, &sh.h, ents)
	w.stack[len(w.stack)-1].ign = lvl
	if lvl.Off() {
		return ents
	}
	out := make([]fs.DirEntry, 0, len(ents))
	for _, de := range ents {
		if w.dotMatch != nil && strings.HasPrefix(de.Name(), ".") {
			out = append(out, de) // hidden by name anyway, and counted so (countDots)
			continue
		}
		if lvl.EntryIgnored(real, de.Name(), de.IsDir()) {
			if de.Name() != ".git" && (w.reach == nil || w.reach(relpath.Child(name, de.Name()), de.IsDir())) {
				w.hidden.Ignored++
			}
			continue
		}
		out = append(out, de)
	}
	return out
}

// countDots counts the dot entries of the listing of name that the pattern would have reached.
func (w *walkFS) countDots(name string, ents []fs.DirEntry) {
	if w.dotMatch == nil {
		return
	}
	n := 0
	for _, de := range ents {
		if strings.HasPrefix(de.Name(), ".") && w.dotMatch(relpath.Child(name, de.Name()), de.IsDir()) {
			n++
		}
	}
	// doublestar lists a directory twice only back to back ("**/x"), which the lastReal cache
	// answers before this count; alternatives ({a,b,a}) are merged before the walk.
	w.hidden.Dot += n
}

// countDenied counts a denied directory (name, root-relative) once, whether it was matched,
// listed, or both.
func (w *walkFS) countDenied(name string) {
	if !w.once(name) {
		w.hidden.Access++
	}
}

// once reports whether key was seen before, and records it (within maxRealChars).
func (w *walkFS) once(key string) bool {
	if _, ok := w.counted[key]; ok {
		return true
	}
	if w.countedChars += len(key); w.countedChars > maxRealChars {
		return false
	}
	if w.counted == nil {
		w.counted = map[string]struct{}{}
	}
	w.counted[key] = struct{}{}
	return false
}

// denied reports whether a denied pattern matches a directory.
func (w *walkFS) denied(real, name string) bool {
	return w.e.denies() && w.e.walkDenied(real, name)
}
