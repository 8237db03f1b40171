package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// everyTool enables every registered tool.
func everyTool() []string {
	var out []string
	for _, t := range schema.Tools {
		out = append(out, t.Name)
	}
	return out
}

// mountFixture is a fixture with a host directory to mount: <base>/mnt, beside the root and the
// outside directory, and a canary file next to it (<base>/HOSTSIBLING.txt) that no path in the
// mount may reach.
type mountFixture struct {
	*fixture
	mnt string
}

func makeMountFixture(t *testing.T, rootLines []string, mntFiles map[string]string) *mountFixture {
	t.Helper()
	fx := makeFixture(t, rootLines...)
	base := filepath.Dir(fx.root)
	mf := &mountFixture{fixture: fx, mnt: filepath.Join(base, "mnt")}
	if err := os.WriteFile(filepath.Join(base, "HOSTSIBLING.txt"), []byte("HOST SIBLING SECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fx.outside, "secret.txt"), []byte("OUTSIDE SECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(mf.mnt, 0o755)
	for name, content := range mntFiles {
		p := filepath.Join(mf.mnt, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		var err error
		if target, ok := strings.CutPrefix(content, "=> "); ok {
			err = os.Symlink(strings.NewReplacer("$MNT", mf.mnt, "$OUTSIDE", fx.outside).Replace(target), p)
		} else if strings.HasSuffix(name, "/") {
			err = os.MkdirAll(p, 0o755)
		} else {
			err = os.WriteFile(p, []byte(content), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return mf
}

// mntRead returns a file of the mounted directory, or "<missing>".
func (mf *mountFixture) mntRead(name string) string {
	b, err := os.ReadFile(filepath.Join(mf.mnt, name))
	if err != nil {
		return "<missing>"
	}
	return string(b)
}

// noHostPath fails when text names the fixture's host directories or shows a canary.
func (mf *mountFixture) noHostPath(t *testing.T, what, text string) {
	t.Helper()
	if base := filepath.Dir(mf.root); strings.Contains(text, base) {
		t.Errorf("%s names a host path (%s): %s", what, base, text)
	}
	for _, secret := range []string{"HOST SIBLING SECRET", "OUTSIDE SECRET", "HOSTSIBLING"} {
		if strings.Contains(text, secret) {
			t.Errorf("%s shows %q: %s", what, secret, text)
		}
	}
}

func TestMount_EveryToolCrossesIn(t *testing.T) {
	mf := makeMountFixture(t, []string{"src/main.go: package main\n"},
		map[string]string{"notes.md": "remember the milk\n", "sub/deep.md": "deep thought\n"})
	rec := &recorder{}
	e := mf.engine(schema.Config{Tools: everyTool(), Mounts: []schema.Mount{{Path: "memories", Dir: mf.mnt}}})
	h := rec.hooks(false)

	if got := resultText(mustCall(t, e, "read_file", map[string]any{"path": "memories/notes.md"}, h)); !strings.Contains(got, "remember the milk") {
		t.Errorf("read_file through the mount: %s", got)
	}
	list := resultText(mustCall(t, e, "list_directory", map[string]any{}, h))
	if !strings.Contains(list, "memories/") || !strings.Contains(list, "src/") {
		t.Errorf("list_directory of the root does not show the mount point: %s", list)
	}
	tree := resultText(mustCall(t, e, "directory_tree", map[string]any{}, h))
	if !strings.Contains(tree, "memories/sub/deep.md") {
		t.Errorf("directory_tree does not cross into the mount: %s", tree)
	}
	if got := resultText(mustCall(t, e, "find_files", map[string]any{"pattern": "**/*.md"}, h)); !strings.Contains(got, "memories/notes.md") || !strings.Contains(got, "memories/sub/deep.md") {
		t.Errorf("find_files does not cross into the mount: %s", got)
	}
	if got := resultText(mustCall(t, e, "search_files", map[string]any{"pattern": "thought"}, h)); !strings.Contains(got, "memories/sub/deep.md") {
		t.Errorf("search_files does not cross into the mount: %s", got)
	}
	if got := resultText(mustCall(t, e, "grep", map[string]any{"pattern": "milk"}, h)); !strings.Contains(got, "memories/notes.md:1:remember the milk") {
		t.Errorf("grep does not cross into the mount: %s", got)
	}
	if got := resultText(mustCall(t, e, "list_files", map[string]any{}, h)); !strings.Contains(got, "memories/sub/deep.md") {
		t.Errorf("list_files does not cross into the mount: %s", got)
	}

	// Changes land in the mounted directory, never in the root.
	mustCall(t, e, "write_file", map[string]any{"path": "memories/new.md", "content": "fresh\n"}, h)
	mustCall(t, e, "edit_file", map[string]any{"path": "memories/notes.md", "old_text": "milk", "new_text": "eggs"}, h)
	mustCall(t, e, "create_directory", map[string]any{"path": "memories/a/b"}, h)
	if mf.mntRead("new.md") != "fresh\n" || mf.mntRead("notes.md") != "remember the eggs\n" {
		t.Errorf("writes did not land in the mounted directory: %q %q", mf.mntRead("new.md"), mf.mntRead("notes.md"))
	}
	if fi, err := os.Stat(filepath.Join(mf.mnt, "a/b")); err != nil || !fi.IsDir() {
		t.Errorf("create_directory did not land in the mounted directory: %v", err)
	}
	if _, err := os.Lstat(mf.abs("memories")); err == nil {
		t.Errorf("a change through the mount created memories in the root itself")
	}
	// A move across the mount boundary (same host filesystem here) and back.
	mustCall(t, e, "move_file", map[string]any{"source": "src/main.go", "destination": "memories/main.go"}, h)
	if mf.mntRead("main.go") != "package main\n" || mf.read("src/main.go") != "<missing>" {
		t.Errorf("move into the mount: mnt=%q root=%q", mf.mntRead("main.go"), mf.read("src/main.go"))
	}
	mustCall(t, e, "move_file", map[string]any{"source": "memories/main.go", "destination": "src/main.go"}, h)
	mustCall(t, e, "delete", map[string]any{"path": "memories/new.md"}, h)
	mustCall(t, e, "remove_directory", map[string]any{"path": "memories/a/b"}, h)
	if mf.mntRead("new.md") != "<missing>" {
		t.Errorf("delete through the mount left the file")
	}
	// Events name the stitched path.
	var paths []string
	for _, ev := range rec.events {
		if w, ok := ev.(*schema.FileWrittenEvent); ok {
			paths = append(paths, w.Path)
		}
	}
	if len(paths) == 0 || paths[0] != "memories/new.md" {
		t.Errorf("file_written events name %v; want memories/new.md first", paths)
	}
}

func TestMount_ReadOnlyRefusesEveryChange(t *testing.T) {
	mf := makeMountFixture(t, []string{"here.txt: here\n"}, map[string]string{"doc.md": "read me\n", "d/x.md": "x\n", "empty/": ""})
	rec := &recorder{}
	e := mf.engine(schema.Config{Tools: everyTool(), Mounts: []schema.Mount{{Path: "ref", Dir: mf.mnt, ReadOnly: true}}})
	h := rec.hooks(true)
	if got := resultText(mustCall(t, e, "read_file", map[string]any{"path": "ref/doc.md"}, h)); !strings.Contains(got, "read me") {
		t.Fatalf("read_file in a read-only mount: %s", got)
	}
	changes := []struct {
		tool string
		args map[string]any
	}{
		{"write_file", map[string]any{"path": "ref/doc.md", "content": "changed\n"}},
		{"write_file", map[string]any{"path": "ref/new.md", "content": "new\n"}},
		{"edit_file", map[string]any{"path": "ref/doc.md", "old_text": "read", "new_text": "READ"}},
		{"create_directory", map[string]any{"path": "ref/newdir"}},
		{"delete", map[string]any{"path": "ref/doc.md"}},
		{"delete", map[string]any{"path": "ref/d"}},
		{"remove_directory", map[string]any{"path": "ref/empty"}},
		{"move_file", map[string]any{"source": "ref/doc.md", "destination": "taken.md"}},
		{"move_file", map[string]any{"source": "here.txt", "destination": "ref/here.txt"}},
	}
	for _, c := range changes {
		_, err := tryCall(t, e, c.tool, c.args, h)
		wantKind(t, c.tool+" in a read-only mount", err, schema.KindReadOnlyFilesystem)
		mf.noHostPath(t, c.tool, err.Msg)
	}
	if len(rec.requests) != 0 {
		t.Errorf("a refused change still asked the client: %d change requests", len(rec.requests))
	}
	if mf.mntRead("doc.md") != "read me\n" || mf.mntRead("d/x.md") != "x\n" || mf.mntRead("new.md") != "<missing>" || mf.read("here.txt") != "here\n" {
		t.Errorf("a read-only mount changed")
	}
	if fi, err := os.Stat(filepath.Join(mf.mnt, "empty")); err != nil || !fi.IsDir() {
		t.Errorf("remove_directory removed a directory of a read-only mount")
	}
}

// TestMount_ReadOnlyHandlesRefuse checks the last guard on its own: a directory handle inside a
// read-only mount answers EROFS for every change, whatever the policy check let through.
func TestMount_ReadOnlyHandlesRefuse(t *testing.T) {
	mf := makeMountFixture(t, nil, map[string]string{"doc.md": "read me\n", "d/": ""})
	e := mf.engine(schema.Config{Mounts: []schema.Mount{{Path: "ref", Dir: mf.mnt, ReadOnly: true}}})
	h, err := openDirHandle(e, "ref", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer h.close()
	if err := h.mkdir("new"); err == nil {
		t.Errorf("mkdir in a read-only mount succeeded")
	}
	if err := h.unlink("doc.md", false); err == nil {
		t.Errorf("unlink in a read-only mount succeeded")
	}
	if err := renameAt(h, "doc.md", h, "moved.md"); err == nil {
		t.Errorf("rename in a read-only mount succeeded")
	}
	if _, perr := e.openParent("write", &resolved{spelling: "ref/doc.md", rel: "ref/doc.md"}, "ref"); perr == nil || perr.Kind != schema.KindReadOnlyFilesystem {
		t.Errorf("openParent in a read-only mount = %v; want read_only_filesystem", perr)
	}
	if mf.mntRead("doc.md") != "read me\n" {
		t.Errorf("the read-only mount changed")
	}
}

func TestMount_PointCannotBeRemovedMovedOrReplaced(t *testing.T) {
	mf := makeMountFixture(t, []string{"ref/", "ref/keep.txt: keep\n", "file.txt: f\n", "emptydir/"}, map[string]string{"doc.md": "doc\n"})
	e := mf.engine(schema.Config{Tools: everyTool(), Mounts: []schema.Mount{{Path: "ref/docs", Dir: mf.mnt}}})
	attempts := []struct {
		tool string
		args map[string]any
	}{
		{"delete", map[string]any{"path": "ref/docs"}},
		{"delete", map[string]any{"path": "ref"}}, // an ancestor: the mount would go with it
		{"delete", map[string]any{"path": "ref/docs/"}},
		{"remove_directory", map[string]any{"path": "ref/docs"}},
		{"move_file", map[string]any{"source": "ref/docs", "destination": "elsewhere"}},
		{"move_file", map[string]any{"source": "ref", "destination": "elsewhere"}},
		{"move_file", map[string]any{"source": "emptydir", "destination": "ref/docs", "overwrite": true}},
		{"move_file", map[string]any{"source": "file.txt", "destination": "ref/docs", "overwrite": true}},
	}
	for _, a := range attempts {
		_, err := tryCall(t, e, a.tool, a.args, Hooks{})
		if err == nil {
			t.Fatalf("%s(%v) succeeded on a mount point", a.tool, a.args)
		}
		mf.noHostPath(t, a.tool, err.Msg)
	}
	if mf.mntRead("doc.md") != "doc\n" || mf.read("ref/keep.txt") != "keep\n" || mf.read("file.txt") != "f\n" {
		t.Errorf("a refused attempt changed something")
	}
	// The handles refuse on their own too (EBUSY), should a caller get past resolveEntry.
	h, err := openDirHandle(e, "ref", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer h.close()
	if err := h.unlink("docs", true); err == nil {
		t.Errorf("unlink of a mount point through its parent's handle succeeded")
	}
	if err := h.mkdir("docs"); err == nil {
		t.Errorf("mkdir at a mount point succeeded")
	}
}

func TestMount_Containment(t *testing.T) {
	mf := makeMountFixture(t, []string{"inroot.txt: in the root\n"}, map[string]string{
		"notes.md": "notes\n",
		"up":       "=> ../HOSTSIBLING.txt",    // relative, up from the mount's top: the root's parent of the mount point
		"upup":     "=> ../../HOSTSIBLING.txt", // out of the root
		"abs":      "=> $OUTSIDE/secret.txt",   // absolute, outside everything
		"self":     "=> $MNT/notes.md",         // absolute, into the mounted directory itself
		"toroot":   "=> ../inroot.txt",         // relative, into the root
		"d/back":   "=> ../../inroot.txt",      // two levels up from d: the root
		"d/dd/esc": "=> ../../../../HOSTSIBLING.txt",
		"outdir":   "=> $OUTSIDE",
		"sub/x.md": "x\n",
	})
	e := mf.engine(schema.Config{Tools: everyTool(), Mounts: []schema.Mount{{Path: "m", Dir: mf.mnt}}})
	for _, p := range []string{"m/up", "m/upup", "m/abs", "m/d/dd/esc", "m/outdir/secret.txt", "m/../../HOSTSIBLING.txt",
		"m/../../mnt/notes.md", mf.mnt + "/../HOSTSIBLING.txt", mf.mnt + "/notes.md", filepath.Join(filepath.Dir(mf.mnt), "HOSTSIBLING.txt")} {
		res, err := tryCall(t, e, "read_file", map[string]any{"path": p}, Hooks{})
		text := resultText(res)
		if err != nil {
			text = err.Msg
		}
		mf.noHostPath(t, "read_file "+p, strings.ReplaceAll(text, p, "<spelling>"))
		if err == nil {
			t.Errorf("read_file(%q) succeeded: %s", p, text)
		}
	}
	for p, want := range map[string]string{"m/self": "notes", "m/toroot": "in the root", "m/d/back": "in the root", "m/sub/../notes.md": "notes"} {
		got := resultText(mustCall(t, e, "read_file", map[string]any{"path": p}, Hooks{}))
		if !strings.Contains(got, want) {
			t.Errorf("read_file(%q) = %s; want %q", p, got, want)
		}
		mf.noHostPath(t, "read_file "+p, got)
	}
	// Walkers list the links' names at most, never what is behind an escaping one.
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"directory_tree", map[string]any{}}, {"search_files", map[string]any{"pattern": "SECRET"}}, {"grep", map[string]any{"pattern": "SECRET"}},
		{"find_files", map[string]any{"pattern": "**"}}, {"list_directory", map[string]any{"path": "m"}}, {"list_files", map[string]any{}},
	} {
		text := resultText(mustCall(t, e, c.tool, c.args, Hooks{}))
		mf.noHostPath(t, c.tool, text)
	}
	// file_info of a link to the mounted directory's own absolute path shows the stitched path.
	if got := resultText(mustCall(t, e, "file_info", map[string]any{"path": "m/self"}, Hooks{})); strings.Contains(got, mf.mnt) || !strings.Contains(got, "m/notes.md") {
		t.Errorf("file_info of a link into the mount by host path: %s", got)
	}
}

// TestMount_SwapRace flips a directory inside the mount between itself and symlinks out of the
// mount (to the outside directory, and up to the host directory beside the mount) while the
// tools read through it: no call may ever show what is outside.
func TestMount_SwapRace(t *testing.T) {
	mf := makeMountFixture(t, nil, map[string]string{"dir/f.txt": "inside\n", "dir/sub/g.txt": "inside\n"})
	if err := os.WriteFile(filepath.Join(mf.outside, "f.txt"), []byte("OUTSIDE SECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := mf.engine(allWalkers(schema.Config{Mounts: []schema.Mount{{Path: "m", Dir: mf.mnt}}}))
	flip := &fixture{t: t, root: mf.mnt, outside: mf.outside}
	stop := flipDirectory(flip, "dir", mf.outside, filepath.Dir(mf.mnt))
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"read_file", map[string]any{"path": "m/dir/f.txt"}}, {"list_directory", map[string]any{"path": "m/dir"}},
		{"search_files", map[string]any{"pattern": "."}}, {"directory_tree", map[string]any{"path": "m"}},
		{"find_files", map[string]any{"pattern": "**"}}, {"grep", map[string]any{"pattern": ".", "path": "m/dir"}},
	}
	for range 200 {
		for _, c := range calls {
			res, err := tryCall(t, e, c.tool, c.args, Hooks{})
			text := resultText(res)
			if err != nil {
				text = err.Msg
			}
			if strings.Contains(text, "SECRET") || strings.Contains(text, "HOSTSIBLING") {
				t.Fatalf("%s(%v) showed what is outside the mount:\n%s", c.tool, c.args, text)
			}
		}
	}
	if stop() == 0 {
		t.Fatalf("the directory never flipped")
	}
}

func TestMount_PolicyAppliesInside(t *testing.T) {
	mf := makeMountFixture(t, nil, map[string]string{".env": "TOKEN=1\n", "private/p.md": "private\n", "ok.md": "ok\n", "id_rsa": "KEY\n"})
	e := mf.engine(schema.Config{Tools: everyTool(), Mounts: []schema.Mount{{Path: "m", Dir: mf.mnt}},
		DeniedPatterns: &[]string{"m/private", "**/.env", "**/id_rsa"}})
	for _, p := range []string{"m/.env", "m/private/p.md", "m/id_rsa"} {
		_, err := tryCall(t, e, "read_file", map[string]any{"path": p}, Hooks{})
		wantKind(t, "read_file "+p, err, schema.KindDenied)
	}
	list := resultText(mustCall(t, e, "list_directory", map[string]any{"path": "m"}, Hooks{}))
	if strings.Contains(list, "private") || strings.Contains(list, "id_rsa") || !strings.Contains(list, "ok.md") {
		t.Errorf("list_directory of the mount ignores the policy: %s", list)
	}
	_, err := tryCall(t, e, "write_file", map[string]any{"path": "m/private/new.md", "content": "x"}, Hooks{})
	wantKind(t, "write_file below a denied directory of a mount", err, schema.KindDenied)
}

func TestMount_ShadowsDirectoryAtMountPoint(t *testing.T) {
	mf := makeMountFixture(t, []string{"memories/old.txt: shadowed\n"}, map[string]string{"new.txt": "mounted\n"})
	e := mf.engine(schema.Config{Tools: everyTool(), Mounts: []schema.Mount{{Path: "memories", Dir: mf.mnt}}})
	list := resultText(mustCall(t, e, "list_directory", map[string]any{"path": "memories"}, Hooks{}))
	if strings.Contains(list, "old.txt") || !strings.Contains(list, "new.txt") {
		t.Errorf("the mount does not shadow the root's directory: %s", list)
	}
	root := resultText(mustCall(t, e, "list_directory", map[string]any{}, Hooks{}))
	if strings.Count(root, "memories") != 1 {
		t.Errorf("the mount point is listed %d times: %s", strings.Count(root, "memories"), root)
	}
	_, err := tryCall(t, e, "read_file", map[string]any{"path": "memories/old.txt"}, Hooks{})
	wantKind(t, "read_file of a shadowed file", err, schema.KindNotFound)
}

func TestMount_ConfigRefusals(t *testing.T) {
	fx := makeFixture(t, "file.txt: f\n", "dir/", "link => dir")
	dir := filepath.Join(filepath.Dir(fx.root), "mnt")
	os.Mkdir(dir, 0o755)
	cases := []struct {
		name  string
		m     []schema.Mount
		field string
	}{
		{"empty path", []schema.Mount{{Path: "", Dir: dir}}, "mounts[0].path"},
		{"absolute path", []schema.Mount{{Path: "/m", Dir: dir}}, "mounts[0].path"},
		{"dotdot", []schema.Mount{{Path: "../m", Dir: dir}}, "mounts[0].path"},
		{"dot", []schema.Mount{{Path: ".", Dir: dir}}, "mounts[0].path"},
		{"dot component", []schema.Mount{{Path: "dir/./m", Dir: dir}}, "mounts[0].path"},
		{"nested", []schema.Mount{{Path: "m", Dir: dir}, {Path: "m/n", Dir: dir}}, "mounts[1].path"},
		{"duplicate", []schema.Mount{{Path: "m", Dir: dir}, {Path: "m/", Dir: dir}}, "mounts[1].path"},
		{"missing dir", []schema.Mount{{Path: "m", Dir: dir + "/nope"}}, "mounts[0].dir"},
		{"dir is a file", []schema.Mount{{Path: "m", Dir: fx.abs("file.txt")}}, "mounts[0].dir"},
		{"no dir", []schema.Mount{{Path: "m"}}, "mounts[0].dir"},
		{"parent missing", []schema.Mount{{Path: "nope/m", Dir: dir}}, "mounts[0].path"},
		{"parent is a symlink", []schema.Mount{{Path: "link/m", Dir: dir}}, "mounts[0].path"},
		{"parent is a file", []schema.Mount{{Path: "file.txt/m", Dir: dir}}, "mounts[0].path"},
		{"point is a file", []schema.Mount{{Path: "file.txt", Dir: dir}}, "mounts[0].path"},
	}
	for _, c := range cases {
		_, err := New(schema.Config{RootDir: fx.root, Mounts: c.m}, Options{})
		if err == nil {
			t.Errorf("%s: New accepted %+v", c.name, c.m)
			continue
		}
		if !strings.HasPrefix(err.Error(), c.field) && !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: error %q does not name %s", c.name, err, c.field)
		}
		if strings.Contains(err.Error(), fx.root) {
			t.Errorf("%s: error names the root: %s", c.name, err)
		}
	}
}

// TestMount_HostLayer: with a host that fixed the policy, mounts are the host's, relative to its
// root; a session root narrowed to a subdirectory sees the mounts below it at their paths
// relative to it, and no others.
func TestMount_HostLayer(t *testing.T) {
	mf := makeMountFixture(t, []string{"proj/", "proj/a.txt: a\n"}, map[string]string{"n.md": "note\n"})
	host := schema.Config{RootDir: mf.root, Mounts: []schema.Mount{{Path: "proj/mem", Dir: mf.mnt}, {Path: "other", Dir: mf.mnt}}}
	e, err := New(schema.Config{RootDir: "proj", Tools: everyTool()}, Options{Host: &host})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if got := resultText(mustCall(t, e, "read_file", map[string]any{"path": "mem/n.md"}, Hooks{})); !strings.Contains(got, "note") {
		t.Errorf("the host's mount below the session root is not at mem: %s", got)
	}
	list := resultText(mustCall(t, e, "list_directory", map[string]any{}, Hooks{}))
	if !strings.Contains(list, "mem/") || strings.Contains(list, "other") {
		t.Errorf("session root listing: %s", list)
	}
}

// TestMount_HookRunsInMountedDirectory: a post_edit hook for a file in a mount is handed the file
// where it really is (the mounted directory), and the result carries the content after it.
func TestMount_HookRunsInMountedDirectory(t *testing.T) {
	mf := makeMountFixture(t, nil, map[string]string{})
	e := mf.engine(schema.Config{Tools: everyTool(), Mounts: []schema.Mount{{Path: "m", Dir: mf.mnt}},
		PostEdit: []schema.PostEditHook{{Path: "m/*.md", Cmd: []string{"sh", "-c", `echo hooked >> "$1"`, "sh", "${file}"}}}})
	mustCall(t, e, "write_file", map[string]any{"path": "m/w.md", "content": "w\n"}, Hooks{})
	if got := mf.mntRead("w.md"); got != "w\nhooked\n" {
		t.Errorf("after the hook the mounted file is %q; want the hook's line appended", got)
	}
	if _, err := os.Lstat(mf.abs("m")); err == nil {
		t.Errorf("the hook created m in the root")
	}
}
