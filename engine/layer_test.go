package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// TestDefaultDenied_Walkers: the default denied files are neither shown nor searched by any
// walker, at any depth, and an explicit empty list brings them back.
func TestDefaultDenied_Walkers(t *testing.T) {
	fx := makeFixture(t, "a.txt: needle\n", ".env: needle=1\n", "app/.env.local: needle=2\n", "app/.env.example: needle=3\n",
		"app/id_rsa: needle\n", "app/certs/tls.pem: needle\n", "home/.ssh/config: needle\n", "app/server.key: needle\n")
	e := fx.engine(allWalkers(schema.Config{}))
	got := callText(t, e, "search_files", map[string]any{"pattern": "needle"})
	if want := "a.txt:1:needle\n[4 hidden entries omitted; name a hidden path explicitly to include it]\n[3 entries not shown: access rules deny them]"; got != want {
		t.Errorf("search_files = %q; want %q", got, want)
	}
	for _, p := range []string{".env", "app/id_rsa", "app/.env.local", "home/.ssh"} {
		_, err := tryCall(t, e, "search_files", map[string]any{"pattern": "needle", "path": p}, Hooks{})
		wantKind(t, "search_files in "+p, err, "denied")
	}
	// A pattern naming the dot shows hidden names, but not denied ones.
	if got := callText(t, e, "find_files", map[string]any{"pattern": "**/.env*"}); got != "app/.env.example\n[2 entries not shown: access rules deny them]" {
		t.Errorf("find_files **/.env* = %q; want only the example", got)
	}
	got = callText(t, e, "find_files", map[string]any{"pattern": "**/*"})
	for _, hidden := range []string{"id_rsa", "tls.pem", "server.key"} {
		if strings.Contains(got, hidden) {
			t.Errorf("find_files shows %s:\n%s", hidden, got)
		}
	}
	for _, tool := range []string{"list_directory", "directory_tree"} {
		got = callText(t, e, tool, map[string]any{"path": "app"})
		if strings.Contains(got, "id_rsa") || strings.Contains(got, "server.key") || strings.Contains(got, "tls.pem") {
			t.Errorf("%s shows a default-denied file:\n%s", tool, got)
		}
	}
	off := fx.engine(allWalkers(schema.Config{DeniedPatterns: &[]string{}}))
	got = withoutHidden(callText(t, off, "search_files", map[string]any{"pattern": "needle"}))
	if want := "a.txt:1:needle\napp/certs/tls.pem:1:needle\napp/id_rsa:1:needle\napp/server.key:1:needle"; got != want {
		t.Errorf("with denied_patterns: [] search_files = %q; want %q", got, want)
	}
	if got := callText(t, off, "find_files", map[string]any{"pattern": "**/.env*"}); got != ".env\napp/.env.example\napp/.env.local" {
		t.Errorf("with denied_patterns: [] find_files **/.env* = %q", got)
	}
}

// hostEngine opens an engine layered over host, as a server with a fixed policy does.
func (fx *fixture) hostEngine(host, cfg schema.Config) (*Engine, error) {
	fx.t.Helper()
	if host.RootDir == "" {
		host.RootDir = fx.root
	}
	e, err := New(cfg, Options{Host: &host})
	if err == nil {
		fx.t.Cleanup(func() { e.Close() })
	}
	return e, err
}

// TestHostLayer_Root: a session root must resolve inside the host's root; relative roots are
// taken from the host's root; symlinks cannot lead out.
func TestHostLayer_Root(t *testing.T) {
	fx := makeFixture(t, "sub/a.txt: a\n", "out => $OUTSIDE", "sub/up => ..", "$OUTSIDE/o.txt: o\n")
	for _, c := range []struct {
		root string
		ok   bool
	}{
		{"", true}, {fx.root, true}, {"sub", true}, {filepath.Join(fx.root, "sub"), true}, {"sub/up", true},
		{"/", false}, {"..", false}, {fx.outside, false}, {"out", false}, {"sub/../..", false},
		{filepath.Join(fx.outside, "missing"), false},
	} {
		e, err := fx.hostEngine(schema.Config{}, schema.Config{RootDir: c.root})
		switch {
		case c.ok && err != nil:
			t.Errorf("root_dir %q: %v; want accepted", c.root, err)
		case !c.ok && err == nil:
			t.Errorf("root_dir %q accepted (root %s); want refused", c.root, e.RootDir())
		case !c.ok:
			ee := err.(*Error)
			if ee.Kind != schema.KindInvalidArguments || !strings.HasPrefix(ee.Msg, "root_dir: ") || strings.Contains(ee.Msg, fx.root) {
				t.Errorf("root_dir %q: %s %q; want invalid_arguments naming root_dir, not the host root", c.root, ee.Kind, ee.Msg)
			}
			// Whether something exists outside the host's root is not the client's business.
			if !strings.Contains(ee.Msg, "is outside the host's root") {
				t.Errorf("root_dir %q: %q; want the outside refusal", c.root, ee.Msg)
			}
		}
	}
	e, err := fx.hostEngine(schema.Config{}, schema.Config{RootDir: "sub"})
	if err != nil {
		t.Fatal(err)
	}
	if got := callText(t, e, "read_file", map[string]any{"path": "a.txt"}); !strings.Contains(got, "a\n") {
		t.Errorf("read a.txt in the narrowed root = %q", got)
	}
	_, rerr := tryCall(t, e, "read_file", map[string]any{"path": "../sub/a.txt"}, Hooks{})
	wantKind(t, "read above the narrowed root", rerr, "outside_root")
}

// TestHostLayer_OpenWithinRefusesSwap: openWithin fails, never redirects, when a component is a
// symlink by the time it is opened.
func TestHostLayer_OpenWithinRefusesSwap(t *testing.T) {
	fx := makeFixture(t, "a/b/x.txt: x\n", "other/c/y.txt: y\n", "link => other")
	if r, err := openWithin(fx.root, "a/b"); err != nil {
		t.Fatalf("openWithin a/b: %v", err)
	} else {
		r.Close()
	}
	for _, rel := range []string{"link", "link/c", "a/b/x.txt", "missing"} {
		if r, err := openWithin(fx.root, rel); err == nil {
			r.Close()
			t.Errorf("openWithin %s succeeded; want refused", rel)
		}
	}
	// The check is on the descriptor: a component replaced after resolution fails the open.
	if err := os.Rename(fx.abs("a"), fx.abs("a.old")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("other", fx.abs("a")); err != nil {
		t.Fatal(err)
	}
	if r, err := openWithin(fx.root, "a/b"); err == nil {
		r.Close()
		t.Error("openWithin through a swapped-in symlink succeeded")
	}
}

// TestHostLayer_Patterns: the host's patterns and rules stay in force, matched from the host's
// root, whatever the session's layer says; the session can only add to them.
func TestHostLayer_Patterns(t *testing.T) {
	fx := makeFixture(t, "sub/secret/k.txt: k\n", "sub/docs/a.md: a\n", "sub/docs/b.txt: b\n", "sub/.env: x\n", "sub/w.txt: w\n")
	host := schema.Config{
		DeniedPatterns: &[]string{"sub/secret"}, AllowedPatterns: []string{"sub/**"},
		Permissions: []schema.PermissionRule{{Operations: []string{"write"}, Paths: []string{"/sub/w.txt"}, Mode: "deny"}},
	}
	client := schema.Config{
		RootDir:           "sub",
		DeniedPatterns:    &[]string{}, // adds nothing; cannot clear the host's
		AllowedPatterns:   []string{"docs/*.md", "secret/*", "w.txt"},
		ProtectedPatterns: &[]string{"docs/a.md"},
		Permissions:       []schema.PermissionRule{{Operations: []string{"read", "write"}, Paths: []string{"/**"}, Mode: "allow"}},
	}
	e, err := fx.hostEngine(host, client)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		acc  access
		want schema.ErrorKind
	}{
		{"secret/k.txt", accessRead, "denied"},      // host denied, seen from the host's root
		{"docs/a.md", accessRead, ""},               // both allow lists match
		{"docs/a.md", accessWrite, "protected"},     // the session's protected pattern
		{".env", accessRead, "not_allowed"},         // the session's allow list
		{"w.txt", accessWrite, "permission_denied"}, // a session allow rule does not shadow the host's deny
		{"w.txt", accessRead, ""},
	} {
		_, _, err := e.resolveFor("test", c.path, c.acc)
		if c.want == "" && err != nil || c.want != "" && (err == nil || err.Kind != c.want) {
			t.Errorf("%s access %d = %v; want %q", c.path, c.acc, err, c.want)
		}
	}
	// The session's allow list is ANDed with the host's: docs/b.txt matches the host's but not
	// the session's.
	if _, _, err := e.resolveFor("test", "docs/b.txt", accessRead); err == nil || err.Kind != "not_allowed" {
		t.Errorf("docs/b.txt = %v; want not_allowed", err)
	}
	// Walkers apply both layers.
	got := callText(t, e, "find_files", map[string]any{"pattern": "**/*"})
	if got != "docs/a.md\nw.txt\n[1 hidden entries omitted; name a hidden path explicitly to include it]\n[3 entries not shown: access rules deny them]" {
		t.Errorf("find_files = %q; want docs/a.md and w.txt", got)
	}
	// An interrupt rule of the host still asks when the session's rules allow.
	host.Permissions = []schema.PermissionRule{{Operations: []string{"write"}, Paths: []string{"/sub/docs/**"}, Mode: "interrupt"}}
	e, err = fx.hostEngine(host, schema.Config{RootDir: "sub", ProtectedPatterns: &[]string{}})
	if err != nil {
		t.Fatal(err)
	}
	if rule, _, err := e.resolveFor("test", "docs/a.md", accessWrite); err != nil || rule == nil {
		t.Errorf("write docs/a.md under a host interrupt rule: rule %v err %v; want the interrupt rule", rule, err)
	}
}
