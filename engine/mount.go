package engine

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/fsbox/fsbox/engine/internal/fserr"
	"github.com/fsbox/fsbox/engine/internal/relpath"
	"github.com/fsbox/fsbox/schema"
)

// Mounts (Config.Mounts) show extra host directories at fixed root-relative paths. Each is opened
// once, in New, as an os.Root of its own, and the one namespace the model sees is stitched
// together in the directory handles (dirHandle), not in path strings:
//
//  1. A handle on a directory that is a mount point's parent, or an ancestor of one, knows its
//     root-relative path (mountPos). Its child, lstat and list answer for the mount point from
//     the mount's own root: child opens the mounted directory, lstat describes it, list shows it
//     as a directory (replacing anything of that name in the root, which the mount shadows).
//     Every other handle carries no position and costs nothing extra.
//  2. Resolution, the walkers, delete, move and the openers all go through those handles, so a
//     mount is entered one component at a time like any directory, with O_NOFOLLOW, and nothing
//     below it can lead out of the mounted directory except by "..", which (as for a bind mount)
//     leads to the mount point's parent in the root, and by symlinks, which resolve in the
//     stitched namespace and are contained like every other link.
//  3. The calls that take a path through an os.Root (rootFor) pick the mount's root for a path
//     at or below its mount point.
//  4. A mount point, and every directory above one, cannot be removed, moved or replaced
//     (resolveEntry refuses it; the handles answer EBUSY as a last guard). Below a read-only
//     mount every change is refused: by the policy check (read_only_filesystem, before any
//     change request) and by the handles and openParent (EROFS), whatever got past it.
//  5. Patterns and permission rules match the stitched, root-relative paths ("memories/a.md"),
//     as do events, locks and hashes. The mounted directory's host path appears nowhere the
//     model looks: hostToModel and absToRel map it onto the mount point.
//
// Mounts do not nest. A mount does not protect against the same host files being reachable under
// a second name (a mount of a directory that is also inside the root), and the session root of a
// host that fixed the policy is opened on the host's real tree, so it cannot lie inside a mount.
type mount struct {
	path     string     // root-relative mount point
	comps    []string   // its components
	prefixes [][]string // components of the mounted directory, resolved and as configured
	dir      string     // resolved host directory: for hooks, never shown to the model
	root     *os.Root
	top      *os.File // the mounted directory itself, opened once through root
	readOnly bool
}

// mountTable is the engine's mounts; nil when there are none.
type mountTable struct {
	list      []*mount
	at        map[string]*mount   // by mount point
	ancestors map[string]bool     // every proper ancestor of a mount point, "." included
	names     map[string][]string // directory → the names of the mount points in it
}

// mountPos is where a directory handle sits in the stitched namespace (rule 1): t and rel are set
// only on the mount points' ancestors, ro inside a read-only mount.
type mountPos struct {
	t   *mountTable
	rel string // root-relative path of the handle's directory, when t is set
	ro  bool   // inside a read-only mount: every change through the handle is EROFS
}

// rootPos is the position of a handle on the root itself.
func (e *Engine) rootPos() mountPos {
	if e.mounts == nil {
		return mountPos{}
	}
	return mountPos{t: e.mounts, rel: "."}
}

// mountAt returns the mount whose mount point is the entry name of the handle at p.
func (p mountPos) mountAt(name string) *mount {
	if p.t == nil {
		return nil
	}
	return p.t.at[relpath.Child(p.rel, name)]
}

// child is the position of the handle on the real subdirectory name.
func (p mountPos) child(name string) mountPos {
	if p.t == nil {
		return mountPos{ro: p.ro}
	}
	rel := relpath.Child(p.rel, name)
	if p.t.ancestors[rel] {
		return mountPos{t: p.t, rel: rel, ro: p.ro}
	}
	return mountPos{ro: p.ro}
}

// guards reports whether the entry name of the handle at p is a mount point or above one, so that
// removing, moving or replacing it would take a mount with it.
func (p mountPos) guards(name string) bool {
	return p.t != nil && p.t.guards(relpath.Child(p.rel, name))
}

// guards reports whether rel is a mount point or a directory above one (nil-safe).
func (t *mountTable) guards(rel string) bool {
	return t != nil && (t.at[rel] != nil || t.ancestors[rel])
}

// changeErr is the error a handle at p answers for a change of its entry name (rule 4), or nil.
func (p mountPos) changeErr(name string) error {
	switch {
	case p.ro:
		return syscall.EROFS
	case p.guards(name):
		return syscall.EBUSY
	}
	return nil
}

// mountEntries rewrites the listing of the directory at p: the mount points in it are shown as
// directories, replacing whatever the root has under their names.
func (p mountPos) mountEntries(ents []fs.DirEntry) []fs.DirEntry {
	if p.t == nil {
		return ents
	}
	names := p.t.names[p.rel]
	if len(names) == 0 {
		return ents
	}
	ents = slices.DeleteFunc(ents, func(de fs.DirEntry) bool { return slices.Contains(names, de.Name()) })
	for _, n := range names {
		ents = append(ents, mountDirent(n))
	}
	return ents
}

// mountDirent is the listing entry of a mount point: a directory.
type mountDirent string

func (d mountDirent) Name() string      { return string(d) }
func (d mountDirent) IsDir() bool       { return true }
func (d mountDirent) Type() fs.FileMode { return fs.ModeDir }
func (d mountDirent) Info() (fs.FileInfo, error) {
	return nil, &fs.PathError{Op: "info", Path: string(d), Err: syscall.ENOTSUP}
}

// stat describes the mounted directory (its own root), under the mount point's name.
func (m *mount) stat(name string) (fs.FileInfo, error) {
	fi, err := m.root.Stat(".")
	if err != nil {
		return nil, err
	}
	return namedInfo{fi, name}, nil
}

// namedInfo is a FileInfo shown under another name.
type namedInfo struct {
	fs.FileInfo
	name string
}

func (n namedInfo) Name() string { return n.name }

// of returns the mount a root-relative path is at or below, and the path inside it ("." for the
// mount point).
func (t *mountTable) of(rel string) (*mount, string) {
	if t == nil || rel == "." {
		return nil, rel
	}
	for _, m := range t.list {
		if rel == m.path {
			return m, "."
		}
		if sub, ok := strings.CutPrefix(rel, m.path+"/"); ok {
			return m, sub
		}
	}
	return nil, rel
}

// rootFor returns the os.Root that holds the root-relative rel and rel inside it (rule 3), with
// the mount, if any.
func (e *Engine) rootFor(rel string) (*os.Root, string, *mount) {
	if m, sub := e.mounts.of(rel); m != nil {
		return m.root, sub, m
	}
	return e.root, rel, nil
}

// errMountPoint is the refusal of removing, moving or replacing a mount point or a directory
// above one.
func errMountPoint(op string, r *resolved) *Error {
	return fserr.Errorf(op, r.rel, schema.KindPermissionDenied, "Path %s is a mount point or contains one; it cannot be removed, moved or replaced. Change the files inside it instead.", fserr.PyRepr(r.spelling))
}

// checkReadOnlyMount refuses a change below a read-only mount (rule 4).
func (e *Engine) checkReadOnlyMount(op string, r *resolved) *Error {
	if m, _ := e.mounts.of(r.rel); m != nil && m.readOnly {
		return fserr.Errorf(op, r.rel, schema.KindReadOnlyFilesystem, "Path %s is in the read-only mount '%s'; nothing in it can be changed.", fserr.PyRepr(r.spelling), m.path)
	}
	return nil
}

// mountToRel maps an absolute host path inside a mounted directory onto the stitched namespace.
func (t *mountTable) mountToRel(comps []string) ([]string, bool) {
	if t == nil {
		return nil, false
	}
	for _, m := range t.list {
		for _, base := range m.prefixes {
			if rest, ok := relpath.CutPrefix(comps, base); ok {
				return append(slices.Clone(m.comps), rest...), true
			}
		}
	}
	return nil, false
}

// close releases the mounted directories.
func (t *mountTable) close() {
	if t == nil {
		return
	}
	for _, m := range t.list {
		m.top.Close()
		m.root.Close()
	}
}

// openMounts validates and opens the mounts of the configuration, after the root is open. src is
// the host's list; prefix is the session root relative to the host's root ("" when they are the
// same), and only the mounts below it are visible, at their paths relative to it.
func (e *Engine) openMounts(src []schema.Mount, prefix string) *Error {
	if len(src) == 0 {
		return nil
	}
	t := &mountTable{at: map[string]*mount{}, ancestors: map[string]bool{}, names: map[string][]string{}}
	// Messages name the field, never the host directory: with a host that fixed the policy they
	// reach the client at initialize.
	for i, sm := range src {
		field := fmt.Sprintf("mounts[%d]", i)
		comps, rel, err := t.mountPoint(field, sm, prefix)
		if err == nil && comps == nil {
			continue // outside the session's root: not visible in this session
		}
		var m *mount
		if err == nil {
			m, err = e.openMount(field, sm, comps, rel)
		}
		if err != nil {
			t.close()
			return err
		}
		parent, base := relpath.Parent(rel)
		t.list = append(t.list, m)
		t.at[rel] = m
		t.names[parent] = append(t.names[parent], base)
		t.ancestors["."] = true
		for _, a := range relpath.Ancestors(rel) {
			t.ancestors[a] = true
		}
	}
	if len(t.list) > 0 {
		e.mounts = t
	}
	return nil
}

// mountPoint checks the path of the mount sm (field names it in messages) and returns it
// relative to the session root (prefix is the session root relative to the host's; comps nil,
// with no error, for a mount outside the session's root): a non-empty root-relative path
// without "." or ".." components, not nesting with a mount of t.
func (t *mountTable) mountPoint(field string, sm schema.Mount, prefix string) (comps []string, rel string, err *Error) {
	p := filepath.ToSlash(sm.Path)
	if p == "" || strings.HasPrefix(p, "/") || strings.IndexByte(p, 0) >= 0 {
		return nil, "", fserr.Config("%s.path must be a non-empty root-relative path, got %s", field, fserr.PyRepr(sm.Path))
	}
	comps = relpath.Split(p)
	if len(comps) == 0 || slices.Contains(comps, "..") || slices.Contains(strings.Split(p, "/"), ".") {
		return nil, "", fserr.Config("%s.path %s must name a directory below the root without '.' or '..' components", field, fserr.PyRepr(sm.Path))
	}
	if prefix != "" {
		rest, ok := relpath.CutPrefix(comps, relpath.Split(prefix))
		if !ok || len(rest) == 0 {
			return nil, "", nil
		}
		comps = rest
	}
	rel = relpath.Join(comps)
	for _, other := range t.list {
		if rel == other.path || strings.HasPrefix(rel, other.path+"/") || strings.HasPrefix(other.path, rel+"/") {
			return nil, "", fserr.Config("%s.path %s overlaps the mount at %s; mounts may not nest", field, fserr.PyRepr(sm.Path), fserr.PyRepr(other.path))
		}
	}
	return comps, rel, nil
}

// openMount resolves and opens the host directory of the mount sm at rel (components comps): an
// existing directory, mounted where the root has a real directory as parent, reached without
// symlinks, and no non-directory in the way.
func (e *Engine) openMount(field string, sm schema.Mount, comps []string, rel string) (*mount, *Error) {
	if sm.Dir == "" {
		return nil, fserr.Config("%s.dir must name a host directory", field)
	}
	abs, err := filepath.Abs(sm.Dir)
	if err != nil {
		return nil, fserr.Config("%s.dir cannot be made absolute", field)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fserr.Config("%s.dir does not exist or cannot be resolved", field)
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return nil, fserr.Config("%s.dir is not a directory", field)
	}
	// The parent must be a real directory of the root, reached without symlinks, or the
	// handles (which know real paths) would never meet the mount point.
	parent, _ := relpath.Parent(rel)
	if r, rerr := e.resolveRel("new", parent); rerr != nil || !r.exists || !r.info.IsDir() || r.rel != parent {
		return nil, fserr.Config("%s.path %s: its parent must be a directory in the root, reached without symlinks", field, fserr.PyRepr(sm.Path))
	}
	if r, rerr := e.resolveRel("new", rel); rerr == nil && r.exists && r.rel == rel && !r.info.IsDir() {
		return nil, fserr.Config("%s.path %s exists in the root and is not a directory", field, fserr.PyRepr(sm.Path))
	}
	root, err := os.OpenRoot(real)
	var top *os.File
	if err == nil {
		if top, err = openTop(root); err != nil {
			root.Close()
		}
	}
	if err != nil {
		return nil, fserr.Config("%s.dir cannot be opened", field)
	}
	m := &mount{path: rel, comps: comps, dir: real, root: root, top: top, readOnly: sm.ReadOnly,
		prefixes: [][]string{relpath.Split(real)}}
	if abs != real {
		m.prefixes = append(m.prefixes, relpath.Split(abs))
	}
	return m, nil
}

// renameGuard is the mounts' refusal of a rename between two handles (rule 4): out of or into a
// read-only mount, or of a mount point or a directory above one, at either end.
func renameGuard(from dirHandle, oldname string, to dirHandle, newname string) error {
	if err := from.mnt.changeErr(oldname); err != nil {
		return err
	}
	return to.mnt.changeErr(newname)
}

// openTop opens the directory of root itself, once: the descriptor walks start from a duplicate
// of it (rootHandle).
func openTop(root *os.Root) (*os.File, error) {
	return root.OpenFile(".", os.O_RDONLY|syscall.O_CLOEXEC, 0)
}
