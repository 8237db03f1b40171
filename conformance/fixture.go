package conformance

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Fixture is the temporary tree of one vector: <base>/ws is the root, and two trees outside it
// hold the same canary files:
//
//   - <base>/ws-outside, the prefix sibling: its name starts with the root's name, so a server that
//     checks containment by string prefix (CVE-2025-53110) lets it through. Only the vectors about
//     that bug (traversal/*-abs-prefix-sibling) aim at it;
//   - <base>/elsewhere, which shares no prefix with the root: every other escape attempt aims at
//     it, so a prefix bug fails the prefix vectors and no others.
type Fixture struct {
	Base, Root, Outside string
	// Elsewhere is the outside tree that shares no prefix with Root.
	Elsewhere string
	// Mounted is the tree a vector's host_config may mount inside the root (Vector.Mounted).
	Mounted string
	// RootArg is what the runner passes as root_dir (a symlink to Root with RootViaSymlink).
	RootArg string
	// RealBase is Base with symlinks resolved (the temp dir may itself be reached through one).
	RealBase string
	// Home is the fake $HOME the runner gives the servers it starts ({{home}}), and Far a canary
	// tree outside the temp directory ({{far}}): a server that allows all of $HOME, or everything
	// but the temp directory, is caught reading or writing there. Both live below CanaryBase, a
	// directory of the runner's own outside the temp directory (Options.CanaryDir); without one
	// (NewFixture) they are <base>/home and <base>/far.
	Home, Far, CanaryBase string
}

// homeCanaries are the fake $HOME's files: a key a careless allowlist hands out.
var homeCanaries = []Entry{
	{Path: ".ssh/id_fsbox_canary", Content: Content{Text: ptr("FAKE HOME PRIVATE KEY canary\n")}},
	{Path: "home-notes.txt", Content: Content{Text: ptr("HOME CANARY notes\n")}},
}

// farCanaries are the files of the canary tree outside the temp directory.
var farCanaries = []Entry{
	{Path: "far-secret.txt", Content: Content{Text: ptr("FAR CANARY beyond the temp directory\n")}},
}

// fixtureNames are the entries the runner itself makes in a fixture's base; anything else that
// appears there is a stray file beside the root.
var fixtureNames = map[string]bool{"ws": true, "ws-outside": true, "elsewhere": true, "mounted": true,
	"wslink": true, "host-config.json": true, "home": true, "far": true,
	"fsbox-with-host-config": true} // binding.go's wrapper beside host-config.json

// defaultOutside is always present in the sibling tree.
var defaultOutside = []Entry{
	{Path: "secret.txt", Content: Content{Text: ptr("TOP SECRET outside\n")}},
	{Path: "sub", Dir: true},
	{Path: "sub/deep.txt", Content: Content{Text: ptr("deep outside\n")}},
	// A name no workspace holds or links to: a listing of an outside directory shows it even when
	// every other name there is one the model could guess from a link's target.
	{Path: "outside-canary-name.txt", Content: Content{Text: ptr("NAME CANARY outside\n")}},
}

func ptr[T any](v T) *T { return &v }

// NewFixture builds the vector's tree below base, the fake $HOME and far canaries included.
func NewFixture(base string, v *Vector) (*Fixture, error) { return newFixtureIn(base, "", v) }

// newFixtureIn builds the vector's tree below base and its fake $HOME and far canary tree below
// canaryBase ("": below base too).
func newFixtureIn(base, canaryBase string, v *Vector) (*Fixture, error) {
	f := &Fixture{Base: base, Root: filepath.Join(base, "ws"), Outside: filepath.Join(base, "ws-outside"),
		Elsewhere: filepath.Join(base, "elsewhere"), Mounted: filepath.Join(base, "mounted"), CanaryBase: canaryBase}
	cb := canaryBase
	if cb == "" {
		cb = base
	}
	f.Home, f.Far = filepath.Join(cb, "home"), filepath.Join(cb, "far")
	f.RootArg = f.Root
	for _, d := range []string{f.Root, f.Outside, f.Elsewhere, f.Mounted, f.Home, f.Far} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	var err error
	if f.RealBase, err = filepath.EvalSymlinks(base); err != nil {
		return nil, err
	}
	for _, d := range f.OutsideTrees() {
		if err := f.create(d, append(append([]Entry{}, defaultOutside...), v.Outside...)); err != nil {
			return nil, fmt.Errorf("outside tree: %w", err)
		}
	}
	if err := f.create(f.Home, homeCanaries); err != nil {
		return nil, fmt.Errorf("fake home: %w", err)
	}
	if err := f.create(f.Far, farCanaries); err != nil {
		return nil, fmt.Errorf("far canaries: %w", err)
	}
	if err := f.create(f.Root, v.Workspace); err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	if err := f.create(f.Mounted, v.Mounted); err != nil {
		return nil, fmt.Errorf("mounted: %w", err)
	}
	if v.RootViaSymlink {
		f.RootArg = filepath.Join(base, "wslink")
		if err := os.Symlink(f.Root, f.RootArg); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// OutsideTrees are the trees outside the root that hold the default canaries.
func (f *Fixture) OutsideTrees() []string { return []string{f.Outside, f.Elsewhere} }

// watchedTrees are every tree outside the root that nothing may change: the outside trees, the
// fake $HOME and the far canaries.
func (f *Fixture) watchedTrees() []string { return []string{f.Outside, f.Elsewhere, f.Home, f.Far} }

// hostBases are the directories whose paths no reply may name: the fixture's base and the
// canary base, as given and resolved.
func (f *Fixture) hostBases() []string {
	out := []string{f.Base, f.RealBase}
	if f.CanaryBase != "" {
		out = append(out, f.CanaryBase)
		if r, err := filepath.EvalSymlinks(f.CanaryBase); err == nil && r != f.CanaryBase {
			out = append(out, r)
		}
	}
	return out
}

// namesHost reports whether s contains one of the fixture's host directories.
func (f *Fixture) namesHost(s string) bool {
	for _, b := range f.hostBases() {
		if b != "" && strings.Contains(s, b) {
			return true
		}
	}
	return false
}

// Expand replaces {{root}}, {{outside}} (the prefix sibling) and {{elsewhere}} in s with the
// fixture's absolute paths.
func (f *Fixture) Expand(s string) string {
	if !strings.Contains(s, "{{") {
		return s
	}
	return strings.NewReplacer("{{root}}", f.Root, "{{outside}}", f.Outside, "{{elsewhere}}", f.Elsewhere,
		"{{mounted}}", f.Mounted, "{{root_arg}}", f.RootArg, "{{home}}", f.Home, "{{far}}", f.Far).Replace(s)
}

// ExpandAll applies Expand to every string in a decoded JSON value.
func (f *Fixture) ExpandAll(v any) any {
	switch x := v.(type) {
	case string:
		return f.Expand(x)
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = f.ExpandAll(x[i])
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = f.ExpandAll(e)
		}
		return out
	}
	return v
}

func (f *Fixture) create(dir string, entries []Entry) error {
	type pending struct {
		p    string
		mode os.FileMode
	}
	var modes []pending
	for _, e := range entries {
		p, err := within(dir, e.Path)
		if err != nil {
			return err
		}
		if err := f.makeEntry(p, e); err != nil {
			return fmt.Errorf("%s: %w", e.Path, err)
		}
		if e.Mode != "" {
			m, err := strconv.ParseUint(e.Mode, 8, 32)
			if err != nil {
				return fmt.Errorf("%s: bad mode %q", e.Path, e.Mode)
			}
			modes = append(modes, pending{p, os.FileMode(m)})
		}
	}
	// Modes last, deepest first, so a 0000 directory can still be populated.
	for i := len(modes) - 1; i >= 0; i-- {
		if err := os.Chmod(modes[i].p, modes[i].mode); err != nil {
			return err
		}
	}
	return nil
}

func (f *Fixture) makeEntry(p string, e Entry) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	switch {
	case e.Dir:
		return os.MkdirAll(p, 0o755)
	case e.Symlink != nil:
		return os.Symlink(f.Expand(*e.Symlink), p)
	case e.FIFO:
		return mkfifo(p)
	default:
		data, err := e.Bytes()
		if err != nil {
			return err
		}
		return os.WriteFile(p, data, 0o644)
	}
}

// within joins a fixture-relative path onto dir, refusing anything that leaves it: the runner's
// own fixture code must not be the thing that escapes.
func within(dir, rel string) (string, error) {
	if rel == "" || filepath.IsAbs(rel) {
		return "", fmt.Errorf("fixture path %q must be relative", rel)
	}
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if p != dir && !strings.HasPrefix(p, dir+string(filepath.Separator)) {
		return "", fmt.Errorf("fixture path %q leaves its tree", rel)
	}
	return p, nil
}

// Apply performs out-of-band filesystem operations.
func (f *Fixture) Apply(ops []FSOp) error {
	for _, op := range ops {
		dir := f.Root
		switch op.In {
		case "outside":
			dir = f.Outside
		case "elsewhere":
			dir = f.Elsewhere
		case "mounted":
			dir = f.Mounted
		}
		p, err := within(dir, op.Path)
		if err != nil {
			return err
		}
		switch op.Op {
		case "create":
			if err := os.RemoveAll(p); err != nil {
				return err
			}
			if err := f.makeEntry(p, op.Entry); err != nil {
				return err
			}
			if op.Mode != "" {
				m, _ := strconv.ParseUint(op.Mode, 8, 32)
				if err := os.Chmod(p, os.FileMode(m)); err != nil {
					return err
				}
			}
		case "delete":
			if err := os.RemoveAll(p); err != nil {
				return err
			}
		case "rename":
			to, err := within(dir, op.To)
			if err != nil {
				return err
			}
			if err := os.Rename(p, to); err != nil {
				return err
			}
		case "chmod":
			m, err := strconv.ParseUint(op.Mode, 8, 32)
			if err != nil {
				return err
			}
			if err := os.Chmod(p, os.FileMode(m)); err != nil {
				return err
			}
		default:
			return fmt.Errorf("unknown fs op %q", op.Op)
		}
	}
	return nil
}

// Check compares the workspace with expectations; it returns one message per mismatch.
func (f *Fixture) Check(entries []Entry) []string { return f.checkIn(f.Root, "after", entries) }

// CheckMounted compares the mounted tree with expectations.
func (f *Fixture) CheckMounted(entries []Entry) []string {
	return f.checkIn(f.Mounted, "after_mounted", entries)
}

// checkIn compares the tree at dir with expectations; what names the list in messages.
func (f *Fixture) checkIn(dir, what string, entries []Entry) []string {
	var bad []string
	for _, e := range entries {
		p, err := within(dir, e.Path)
		if err != nil {
			bad = append(bad, err.Error())
			continue
		}
		fi, err := os.Lstat(p)
		if e.Absent {
			if err == nil {
				bad = append(bad, fmt.Sprintf("%s: %s exists, want absent", what, e.Path))
			}
			continue
		}
		if err != nil {
			bad = append(bad, fmt.Sprintf("%s: %s: %v", what, e.Path, redactErr(err, f)))
			continue
		}
		switch {
		case e.Symlink != nil:
			t, err := os.Readlink(p)
			if err != nil || t != f.Expand(*e.Symlink) {
				bad = append(bad, fmt.Sprintf("%s: %s is not a symlink to %q", what, e.Path, *e.Symlink))
			}
		case e.Dir:
			if !fi.IsDir() {
				bad = append(bad, fmt.Sprintf("%s: %s is not a directory", what, e.Path))
			}
		case e.FIFO:
			if fi.Mode()&fs.ModeNamedPipe == 0 {
				bad = append(bad, fmt.Sprintf("%s: %s is not a FIFO", what, e.Path))
			}
		case e.HasContent():
			want, _ := e.Bytes()
			got, err := os.ReadFile(p)
			if err != nil {
				bad = append(bad, fmt.Sprintf("%s: %s: %v", what, e.Path, redactErr(err, f)))
			} else if !bytes.Equal(got, want) {
				bad = append(bad, fmt.Sprintf("%s: %s holds %s, want %s", what, e.Path, quoteShort(got), quoteShort(want)))
			}
		}
		if e.Mode != "" {
			m, _ := strconv.ParseUint(e.Mode, 8, 32)
			if fi.Mode().Perm() != os.FileMode(m) {
				bad = append(bad, fmt.Sprintf("%s: %s has mode %04o, want %s", what, e.Path, fi.Mode().Perm(), e.Mode))
			}
		}
	}
	return bad
}

func redactErr(err error, f *Fixture) string {
	return strings.NewReplacer(f.Root, "<root>", f.Outside, "<outside>", f.Elsewhere, "<elsewhere>", f.Mounted, "<mounted>",
		f.Home, "<home>", f.Far, "<far>").Replace(err.Error())
}

func quoteShort(b []byte) string {
	if len(b) > 80 {
		return fmt.Sprintf("%q… (%d bytes)", b[:80], len(b))
	}
	return fmt.Sprintf("%q", b)
}

// Snapshot records a tree: every path with its type, mode and content hash (symlinks not followed).
func Snapshot(dir string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrPermission) {
				out[p] = "unreadable"
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		desc := fi.Mode().String()
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			t, _ := os.Readlink(p)
			desc += " -> " + t
		case fi.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				desc += " unreadable"
			} else {
				sum := sha256.Sum256(data)
				desc += " " + hex.EncodeToString(sum[:8])
			}
		}
		out[rel] = desc
		return nil
	})
	return out, err
}

// snapshotOutside records every watched tree (keyed by the tree's name and the path below it)
// and whatever stands beside the root in the root's parent that the runner did not put there
// (keyed "beside the root/<name>"): a server's temporary file next to the root shows up there.
func (f *Fixture) snapshotOutside() (map[string]string, error) {
	out := map[string]string{}
	add := func(d, name string) error {
		snap, err := Snapshot(d)
		if err != nil {
			return err
		}
		for k, v := range snap {
			out[filepath.ToSlash(filepath.Join(name, k))] = v
		}
		return nil
	}
	for _, d := range f.watchedTrees() {
		if err := add(d, filepath.Base(d)); err != nil {
			return nil, err
		}
	}
	ents, err := os.ReadDir(f.Base)
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		if !fixtureNames[e.Name()] {
			if err := add(filepath.Join(f.Base, e.Name()), "beside the root/"+e.Name()); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
		}
	}
	return out, nil
}

// snapDiff is one difference between two snapshots: the path and a message naming it.
type snapDiff struct{ path, msg string }

// diffSnapshots lists what changed between two snapshots of a tree.
func diffSnapshots(before, after map[string]string) []snapDiff {
	var out []snapDiff
	for k, v := range before {
		if w, ok := after[k]; !ok {
			out = append(out, snapDiff{k, "outside tree: " + k + " was removed"})
		} else if w != v {
			out = append(out, snapDiff{k, "outside tree: " + k + " changed (" + v + " → " + w + ")"})
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			out = append(out, snapDiff{k, "outside tree: " + k + " was created"})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].msg < out[j].msg })
	return out
}

// Cleanup makes the tree removable (modes may have been set to 0000) and removes it.
func (f *Fixture) Cleanup() error {
	_ = filepath.WalkDir(f.Base, func(p string, d fs.DirEntry, err error) error {
		if d != nil && d.IsDir() {
			_ = os.Chmod(p, 0o755)
		}
		return nil
	})
	if f.CanaryBase != "" {
		_ = os.RemoveAll(f.CanaryBase)
	}
	return os.RemoveAll(f.Base)
}

// hash12 is the content hash of the protocol: the first 12 hex digits of SHA-256 over raw bytes.
func hash12(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:12]
}
