package engine

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"

	"github.com/fsbox/fsbox/engine/internal/fserr"
	"github.com/fsbox/fsbox/engine/internal/relpath"
	"github.com/fsbox/fsbox/schema"
)

// maxSymlinkHops bounds the symlinks one resolution may follow; Linux's MAXSYMLINKS is 40, and a
// path needing more is treated as a loop (symlink_loop).
const maxSymlinkHops = 40

// resolved is a model path resolved inside the root. Every field is root-relative: "." is the
// root, separators are "/", there is no leading "./" and no trailing "/".
type resolved struct {
	spelling string // the path as the model wrote it
	// lexical is the spelling joined onto cwd and cleaned without following symlinks; "" when
	// that lexical path leaves the root (patterns are then matched on rel only).
	lexical string
	rel     string      // the path with every symlink followed: what patterns and events use
	exists  bool        // rel exists
	info    fs.FileInfo // Lstat of rel when exists; never a symlink
	// dirSlash reports whether the spelling ended in "/", which names a directory.
	dirSlash bool
}

// resolve resolves the model's path against cwd inside the root, component by component in one
// descriptor walk (walkComponents):
//
//  1. the empty path and paths with a NUL byte are invalid_path, and so are a Windows absolute
//     path ("C:\x", "\\server\share") and a home-directory path ("~/x"), with a message naming
//     the problem (fserr.ForeignPath); otherwise "\" is an ordinary character on POSIX, so
//     "a\..\b" is a single relative name;
//  2. an absolute path must name the root (as configured or as resolved) or something below it,
//     else outside_root; "/proc/self/root/..." is outside like any other foreign prefix;
//  3. ".." is applied to the components resolved so far (never to a directory handle); going
//     above the root is outside_root;
//  4. a symlink is replaced by its target: relative targets continue from the link's directory,
//     absolute targets must lie in the root (else outside_root) and continue from the root;
//     more than maxSymlinkHops links is symlink_loop;
//  5. once a component is missing the rest is applied lexically and exists is false, so a
//     dangling in-root link resolves to its (missing) in-root target;
//  6. a non-directory followed by further components is parent_not_directory, and an existing
//     non-directory spelled with a trailing "/" is not_a_directory;
//  7. a spelling or resolved path over relpath.MaxBytes, or over relpath.MaxComponents components after
//     cwd is joined and symlinks are expanded, is path_too_long.
//
// The result names no symlink at the time of the check, and its FileInfo comes from a descriptor
// walk that follows no symlink (confirmResolved where the handles are not descriptors). Later I/O goes through the os.Root, so a
// component swapped for a symlink afterwards still cannot lead out of the root, and the openers
// (openRegular, openParent) verify they reached the file resolve saw.
func (e *Engine) resolve(op, spelling string) (*resolved, *Error) {
	if spelling == "" {
		return nil, fserr.Errorf(op, "", schema.KindInvalidPath, "Path must not be empty.")
	}
	if strings.IndexByte(spelling, 0) >= 0 {
		return nil, fserr.Errorf(op, "", schema.KindInvalidPath, "Path %s contains a NUL byte.", fserr.PyRepr(spelling))
	}
	if len(spelling) > relpath.MaxBytes {
		return nil, errTooLong(op, spelling)
	}
	if err := fserr.ForeignPath(op, spelling); err != nil {
		return nil, err
	}
	var comps []string
	if strings.HasPrefix(spelling, "/") {
		rest, ok := e.absToRel(spelling, true)
		if !ok {
			return nil, fserr.Errorf(op, "", schema.KindOutsideRoot, "Path %s resolves outside the root directory.", fserr.PyRepr(spelling))
		}
		comps = rest
	} else {
		comps = append(relpath.Split(e.cwd), relpath.Split(spelling)...)
	}
	// Where the directory handles are os.Roots (not Linux), walkComponents' Lstats follow a
	// component swapped for an in-root symlink meanwhile; its FileInfo could then describe a
	// file nobody checked (a denied one). There it is confirmed by descriptor (confirmResolved),
	// so every identity check downstream compares against the file that really is at r.rel, and
	// a file replaced by a concurrent atomic write (a new inode under the same name) fails the
	// confirmation, so the walk is retried a few times before the call gives up. On Linux the
	// walk itself is that descriptor walk, so there is nothing to confirm.
	var r *resolved
	for attempt := 0; ; attempt++ {
		var err *Error
		if r, err = e.walkComponents(op, spelling, comps); err != nil {
			return nil, err
		}
		if !r.exists || confirmResolved(e, r.rel, r.info) {
			break
		}
		if attempt == maxReopens {
			return nil, errChanged(op, r)
		}
	}
	r.dirSlash = strings.HasSuffix(spelling, "/") || strings.HasSuffix(spelling, "/.")
	if r.dirSlash && r.exists && !r.info.IsDir() {
		return nil, fserr.Errorf(op, r.rel, schema.KindNotADirectory, "Path %s ends in '/' but is not a directory.", fserr.PyRepr(spelling))
	}
	return r, nil
}

// resolveRel resolves a root-relative path (for example a walk entry such as "src/a.go") the way
// resolve resolves a model path, without joining it onto cwd. Its spelling is rel itself.
func (e *Engine) resolveRel(op, rel string) (*resolved, *Error) {
	if strings.IndexByte(rel, 0) >= 0 {
		return nil, fserr.Errorf(op, "", schema.KindInvalidPath, "Path %s contains a NUL byte.", fserr.PyRepr(rel))
	}
	return e.walkComponents(op, rel, relpath.Split(rel))
}

// walkComponents does the work of resolve on a root-relative component list, in one descriptor
// walk: it holds a descriptor of the directory reached so far and looks at each next name with
// one lstat (fstatat, AT_SYMLINK_NOFOLLOW) and, for a directory with more to come, one open
// (O_NOFOLLOW|O_DIRECTORY) relative to it. The work is linear in the number of components; only
// ".." and an absolute symlink target re-open from the root (one open per component kept), and
// both are bounded by relpath.MaxComponents and maxSymlinkHops. A directory swapped for a symlink
// between its lstat and its open fails the open: changed_during_request.
func (e *Engine) walkComponents(op, spelling string, comps []string) (*resolved, *Error) {
	if len(comps) > relpath.MaxComponents {
		return nil, errTooLong(op, spelling)
	}
	r := &resolved{spelling: spelling, lexical: relpath.Clean(comps)}
	done := make([]string, 0, len(comps))
	todo := append([]string(nil), comps...)
	w := &componentWalk{e: e, op: op, spelling: spelling, exists: true}
	h, err := openDirHandle(e, ".", nil)
	if err == errRootGone {
		return nil, errRootGoneFor(op)
	}
	if err != nil {
		return nil, fserr.FromOS(op, ".", spelling, err)
	}
	w.h = h
	defer func() { w.h.close() }()
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		var serr *Error
		if done, todo, serr = w.step(c, done, todo); serr != nil {
			return nil, serr
		}
	}
	return w.finish(r, done)
}

// componentWalk is the state of one walkComponents besides the components resolved so far
// (done, all but a missing tail existing) and still to resolve (todo), which its steps take and
// return (kept out of the struct so that they stay on the stack): whether done exists, the
// directory handle h of done while it does, the symlinks followed (hops), and the Lstat of done's
// last component (nil after "..").
type componentWalk struct {
	e            *Engine
	op, spelling string
	exists       bool
	hops         int
	last         fs.FileInfo
	h            dirHandle
}

// changed is the error of a component swapped while the walk used it.
func (w *componentWalk) changed() *Error {
	return fserr.Errorf(w.op, "", schema.KindChangedDuringRequest, "Path %s changed while it was being resolved. Retry.", fserr.PyRepr(w.spelling))
}

// reopen points h at the directory done names, walking from the root again.
func (w *componentWalk) reopen(done []string) *Error {
	next, err := openDirHandle(w.e, relpath.Join(done), nil)
	componentSteps.Add(int64(len(done)) + 1)
	if err != nil {
		return w.changed()
	}
	w.h.close()
	w.h = next
	return nil
}

// step resolves one component c against done (rules 3-6 of resolve).
func (w *componentWalk) step(c string, done, todo []string) ([]string, []string, *Error) {
	switch c {
	case "", ".":
		return done, todo, nil
	case "..":
		if len(done) == 0 {
			return nil, nil, fserr.Errorf(w.op, "", schema.KindOutsideRoot, "Path %s resolves outside the root directory.", fserr.PyRepr(w.spelling))
		}
		done = done[:len(done)-1]
		w.last = nil
		if w.exists {
			return done, todo, w.reopen(done)
		}
		return done, todo, nil
	}
	if !w.exists {
		return append(done, c), todo, nil
	}
	componentSteps.Add(1)
	fi, err := w.h.lstat(c)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			w.exists = false
			return append(done, c), todo, nil
		}
		if errors.Is(err, syscall.ENOTDIR) {
			return nil, nil, fserr.Errorf(w.op, relpath.Join(done), schema.KindParentNotDirectory, "Path %s has a parent that is not a directory.", fserr.PyRepr(w.spelling))
		}
		return nil, nil, fserr.FromOS(w.op, relpath.Join(append(done, c)), w.spelling, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return w.follow(c, done, todo)
	}
	done, err2 := w.enter(c, fi, done, todo)
	return done, todo, err2
}

// follow replaces the symlink c by its target (rule 4): a relative target continues from the
// link's directory, an absolute one from the root, when it lies in the root.
func (w *componentWalk) follow(c string, done, todo []string) ([]string, []string, *Error) {
	w.hops++
	if w.hops > maxSymlinkHops {
		return nil, nil, fserr.Errorf(w.op, "", schema.KindSymlinkLoop, "Path %s resolves through a symlink loop.", fserr.PyRepr(w.spelling))
	}
	target, err := w.h.readlink(c)
	if errors.Is(err, syscall.ENAMETOOLONG) {
		return nil, nil, errTooLong(w.op, w.spelling)
	}
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, fs.ErrNotExist) {
		// Not a symlink any more, or gone: it was swapped since the lstat.
		return nil, nil, w.changed()
	}
	if err != nil {
		return nil, nil, fserr.FromOS(w.op, relpath.Join(append(done, c)), w.spelling, err)
	}
	if target == "" {
		w.exists = false
		return append(done, c), todo, nil
	}
	if strings.HasPrefix(target, "/") {
		rest, ok := w.e.absToRel(target, false)
		if !ok {
			return nil, nil, fserr.Errorf(w.op, "", schema.KindOutsideRoot, "Path %s resolves outside the root directory.", fserr.PyRepr(w.spelling))
		}
		done = done[:0]
		todo = append(rest, todo...)
		if err := w.reopen(done); err != nil {
			return nil, nil, err
		}
	} else {
		todo = append(relpath.Split(target), todo...)
	}
	if len(done)+len(todo) > relpath.MaxComponents {
		return nil, nil, errTooLong(w.op, w.spelling)
	}
	return done, todo, nil
}

// enter appends the existing entry c (Lstat fi, no symlink) to done and, when more components
// follow, moves h into it: it must be a directory (rule 6).
func (w *componentWalk) enter(c string, fi fs.FileInfo, done, todo []string) ([]string, *Error) {
	done = append(done, c)
	w.last = fi
	more := relpath.HasMore(todo)
	if !fi.IsDir() && more {
		return nil, fserr.Errorf(w.op, relpath.Join(done), schema.KindParentNotDirectory, "Path %s has a parent that is not a directory.", fserr.PyRepr(w.spelling))
	}
	if more {
		componentSteps.Add(1)
		next, err := w.h.child(c)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				w.exists = false
				return done, nil
			}
			return nil, w.changed()
		}
		w.h.close()
		w.h = next
	}
	return done, nil
}

// finish fills r from the walk: the resolved path (rule 7's length limit) and, when it exists,
// its Lstat, taken through its parent when the walk ended on "..".
func (w *componentWalk) finish(r *resolved, done []string) (*resolved, *Error) {
	r.rel = relpath.Join(done)
	if w.exists && len(r.rel) > relpath.MaxBytes {
		return nil, errTooLong(w.op, w.spelling)
	}
	r.exists = w.exists
	if w.exists {
		if w.last == nil {
			if len(done) > 0 {
				// After "..": h is the directory done names; stat it through its parent.
				if err := w.reopen(done); err != nil {
					return nil, err
				}
			}
			fi, err := w.h.lstat(".")
			if err != nil {
				return nil, fserr.FromOS(w.op, ".", w.spelling, err)
			}
			w.last = fi
		}
		r.info = w.last
	}
	return r, nil
}

// errTooLong is the error for a path longer than relpath.MaxBytes or relpath.MaxComponents.
func errTooLong(op, spelling string) *Error {
	return fserr.Errorf(op, "", schema.KindPathTooLong, "Path %s is too long (more than %d bytes or %d components). Use a shorter path.",
		fserr.PyRepr(fserr.Shorten(spelling)), relpath.MaxBytes, relpath.MaxComponents)
}

// absToRel maps an absolute path onto root-relative components when it names the root (as
// resolved, or as configured before its symlinks were resolved) or something below it. With
// lenient set (model paths) a path whose raw components do not start with the root is also
// tried after lexical cleaning, so "/work/../work/root/a" works; symlink targets get no such
// courtesy because the OS would resolve their ".." against real directories outside the root.
func (e *Engine) absToRel(p string, lenient bool) ([]string, bool) {
	for _, base := range e.rootPrefixes {
		if rest, ok := relpath.CutPrefix(relpath.Split(p), base); ok {
			return rest, true
		}
	}
	if !lenient {
		// A symlink may name a mounted directory by its host path; a model path may not (the
		// model knows the mount by its mount point only, and probing host paths tells nothing).
		if rest, ok := e.mounts.mountToRel(relpath.Split(p)); ok {
			return rest, true
		}
	}
	if lenient {
		clean := relpath.Split(path.Clean(p))
		for _, base := range e.rootPrefixes {
			if rest, ok := relpath.CutPrefix(clean, base); ok {
				return rest, true
			}
		}
	}
	return nil, false
}

// display turns a root-relative path into the path results show: relative to cwd, with ".."
// segments for paths inside the root but outside cwd, "." for cwd itself.
func (e *Engine) display(rel string) string {
	if e.cwd == "." {
		return rel
	}
	if rel == e.cwd {
		return "."
	}
	if strings.HasPrefix(rel, e.cwd+"/") {
		return rel[len(e.cwd)+1:]
	}
	cwd := relpath.Split(e.cwd)
	target := relpath.Split(rel)
	i := 0
	for i < len(cwd) && i < len(target) && cwd[i] == target[i] {
		i++
	}
	parts := make([]string, 0, len(cwd)-i+len(target)-i)
	for range cwd[i:] {
		parts = append(parts, "..")
	}
	parts = append(parts, target[i:]...)
	return strings.Join(parts, "/")
}

// displayOf is the path a result shows for r: the model's names (the lexical path) when they stay
// in the root, else the resolved path; relative to cwd either way.
func (e *Engine) displayOf(r *resolved) string {
	if r.lexical != "" {
		return e.display(r.lexical)
	}
	return e.display(r.rel)
}

// hostToModel rewrites a host path for model-facing text: inside the root it becomes
// root-relative, anything else absolute is fserr.OutsidePlaceholder, relative names stay as they are.
func (e *Engine) hostToModel(p string) string {
	if !strings.HasPrefix(p, "/") {
		return p
	}
	clean := relpath.Split(path.Clean(p))
	for _, base := range e.rootPrefixes {
		if rest, ok := relpath.CutPrefix(clean, base); ok {
			return relpath.Join(rest)
		}
	}
	if rest, ok := e.mounts.mountToRel(clean); ok {
		return relpath.Join(rest)
	}
	return fserr.OutsidePlaceholder
}

// sameFile reports whether two FileInfos describe the same file: the same inode and the same
// type. The type matters because a removed file's inode number is often reused at once, so a
// file swapped for a symlink can carry the old number.
func sameFile(a, b fs.FileInfo) bool {
	if a == nil || b == nil || a.Mode().Type() != b.Mode().Type() {
		return false
	}
	if same, ok := sameInode(a, b); ok {
		return same
	}
	return os.SameFile(a, b)
}
