package engine

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/engine/internal/fserr"
	"github.com/fsbox/fsbox/schema"
)

// pathTool is a tool that takes a path, as the adversarial table runs it.
type pathTool struct {
	name string
	// args returns the tool's arguments for the path p.
	args func(p string) map[string]any
	// expect may override the kind a case wants from this tool ("" = success); nil keeps the
	// table's answer.
	expect func(c adversarialCase, want schema.ErrorKind) schema.ErrorKind
}

// adversarialTools lists every path-taking tool the table runs. The walkers' test files append
// theirs in an init function.
var adversarialTools = []pathTool{
	{name: "read_file", args: func(p string) map[string]any { return map[string]any{"path": p} }},
	{name: "write_file", args: func(p string) map[string]any { return map[string]any{"path": p, "content": "pwned\n"} }},
	{name: "edit_file", args: func(p string) map[string]any {
		return map[string]any{"path": p, "old_text": "secret", "new_text": "pwned"}
	}},
	{name: "create_directory", args: func(p string) map[string]any { return map[string]any{"path": p} }},
	{name: "file_info", args: func(p string) map[string]any { return map[string]any{"path": p} }},
}

// adversarialFixture is the tree every case runs in (a fresh copy per case and tool).
var adversarialFixture = []string{
	"hello.txt: secret hello\n",
	"dir/inner.txt: secret inner\n",
	"inlink => hello.txt",
	"indirlink => dir",
	"absin => $ROOT/hello.txt",
	"outlink => $OUTSIDE/secret.txt",
	"outdirlink => $OUTSIDE",
	"dotdotlink => ../outside/secret.txt",
	"chain1 => chain2",
	"chain2 => outdirlink",
	"dangin => missing.txt",
	"dangout => $OUTSIDE/nothere.txt",
	"loop1 => loop2",
	"loop2 => loop1",
	"self => self",
	"$OUTSIDE/secret.txt: secret outside\n",
	"$OUTSIDE/sub/",
}

// adversarialCase is one hostile (or merely odd) path.
type adversarialCase struct {
	name string
	path string // $ROOT and $OUTSIDE expand
	kind schema.ErrorKind
	// per overrides kind for some tools; "ok" means the call succeeds.
	per map[string]schema.ErrorKind
}

const ok schema.ErrorKind = "ok"

var adversarialCases = []adversarialCase{
	{name: "dotdot", path: "../outside/secret.txt", kind: "outside_root"},
	{name: "dotdot inside then out", path: "dir/../../outside/secret.txt", kind: "outside_root"},
	{name: "bare dotdot", path: "..", kind: "outside_root"},
	{name: "absolute outside", path: "$OUTSIDE/secret.txt", kind: "outside_root"},
	{name: "absolute system file", path: "/etc/passwd", kind: "outside_root"},
	{name: "proc self root", path: "/proc/self/root$OUTSIDE/secret.txt", kind: "outside_root"},
	{name: "absolute inside", path: "$ROOT/hello.txt", kind: ok, per: map[string]schema.ErrorKind{"create_directory": "already_exists"}},
	{name: "absolute inside double slash", path: "/$ROOT/dir/../hello.txt", kind: ok, per: map[string]schema.ErrorKind{"create_directory": "already_exists"}},
	{name: "symlink file inside", path: "inlink", kind: ok, per: map[string]schema.ErrorKind{"create_directory": "already_exists"}},
	{name: "absolute symlink inside", path: "absin", kind: ok, per: map[string]schema.ErrorKind{"create_directory": "already_exists"}},
	{name: "symlink dir inside", path: "indirlink/inner.txt", kind: ok, per: map[string]schema.ErrorKind{"create_directory": "already_exists"}},
	{name: "symlink file outside", path: "outlink", kind: "outside_root"},
	{name: "symlink dir outside", path: "outdirlink/secret.txt", kind: "outside_root"},
	{name: "create through outside dir", path: "outdirlink/new.txt", kind: "outside_root"},
	{name: "relative symlink outside", path: "dotdotlink", kind: "outside_root"},
	{name: "symlink chain escapes", path: "chain1/secret.txt", kind: "outside_root"},
	{name: "dotdot after symlink", path: "indirlink/../../outside/secret.txt", kind: "outside_root"},
	{name: "dangling inside", path: "dangin", kind: "not_found", per: map[string]schema.ErrorKind{"write_file": ok, "create_directory": ok}},
	{name: "dangling outside", path: "dangout", kind: "outside_root"},
	{name: "symlink loop", path: "loop1", kind: "symlink_loop"},
	{name: "symlink to itself below", path: "self/x", kind: "symlink_loop"},
	{name: "NUL byte", path: "hello.txt\x00.png", kind: "invalid_path"},
	{name: "empty", path: "", kind: "invalid_path"},
	{name: "long name", path: strings.Repeat("n", 300), kind: "name_too_long"},
	{name: "long name below dir", path: "dir/" + strings.Repeat("n", 300) + "/x", kind: "name_too_long"},
	{name: "windows drive path", path: `C:\Windows\system.ini`, kind: "invalid_path"},
	{name: "windows UNC path", path: `\\server\share\x`, kind: "invalid_path"},
	{name: "home directory path", path: "~/.ssh/id_rsa", kind: "invalid_path"},
	{name: "windows dotdot", path: `..\outside\secret.txt`, kind: "not_found", per: map[string]schema.ErrorKind{"write_file": ok, "create_directory": ok}},
	{name: "trailing slash on file", path: "hello.txt/", kind: "not_a_directory"},
	{name: "file as directory", path: "hello.txt/x", kind: "parent_not_directory"},
	{name: "root itself", path: ".", kind: "not_a_file", per: map[string]schema.ErrorKind{"create_directory": ok, "file_info": ok}},
	{name: "missing parent", path: "nope/x.txt", kind: "not_found", per: map[string]schema.ErrorKind{"write_file": "parent_missing", "create_directory": ok}},
}

// TestAdversarialPaths runs every case through every path-taking tool via Call, each in a fresh
// fixture, and checks the error kind, that nothing outside the root changed, and that no
// message or result names an absolute host path.
func TestAdversarialPaths(t *testing.T) {
	for _, tl := range adversarialTools {
		for _, c := range adversarialCases {
			t.Run(tl.name+"/"+c.name, func(t *testing.T) {
				fx := makeFixture(t, adversarialFixture...)
				e := fx.engine(schema.Config{})
				before := snapshot(t, fx.outside)
				want := c.kind
				if k, ok := c.per[tl.name]; ok {
					want = k
				}
				if tl.expect != nil {
					want = tl.expect(c, want)
				}
				p := fx.expand(c.path)
				var rec recorder
				res, err := tryCall(t, e, tl.name, tl.args(p), rec.hooks(true))
				switch {
				case want == ok && err != nil:
					t.Errorf("%s(%q) = %s (%q); want success", tl.name, c.path, err.Kind, err.Msg)
				case want != ok && err == nil:
					t.Errorf("%s(%q) = success %q; want %s", tl.name, c.path, resultText(res), want)
				case want != ok && err.Kind != want:
					t.Errorf("%s(%q) = %s (%q); want %s", tl.name, c.path, err.Kind, err.Msg, want)
				}
				if after := snapshot(t, fx.outside); after != before {
					t.Errorf("%s(%q) changed the outside directory:\nbefore %s\nafter  %s", tl.name, c.path, before, after)
				}
				texts := []string{resultText(res)}
				if err != nil {
					texts = append(texts, err.Msg, err.Error(), err.Path)
				}
				for _, ev := range rec.events {
					b, _ := json.Marshal(ev)
					// Events carry root_dir on purpose; only their paths must be relative.
					texts = append(texts, strings.ReplaceAll(string(b), fx.root, "$ROOT_DIR"))
				}
				for _, s := range texts {
					assertNoHostPath(t, fx, s, p)
				}
			})
		}
	}
}

// assertNoHostPath fails when s names the root's or the outside directory's absolute location,
// except where the model's own spelling echoes it.
func assertNoHostPath(t *testing.T, fx *fixture, s, spelling string) {
	t.Helper()
	s = strings.ReplaceAll(s, spelling, "<spelling>")
	s = strings.ReplaceAll(s, fserr.PyRepr(spelling), "<spelling>")
	for _, host := range []string{fx.root, fx.outside, filepath.Dir(fx.root)} {
		if strings.Contains(s, host) {
			t.Errorf("text names a host path %q: %q", host, s)
		}
	}
}

// snapshot describes every entry below dir (type, mode, content) as one string.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			b.WriteString("ERR " + err.Error() + ";")
			return nil
		}
		fi, _ := os.Lstat(p)
		b.WriteString(strings.TrimPrefix(p, dir) + " " + fi.Mode().String())
		if fi.Mode().IsRegular() {
			c, _ := os.ReadFile(p)
			b.WriteString(" " + string(c))
		}
		b.WriteString(";")
		return nil
	})
	return b.String()
}
