package engine

import (
	"testing"

	"github.com/fsbox/fsbox/schema"
)

func TestResolve(t *testing.T) {
	fx := makeFixture(t,
		"a/b/c.txt", "hello.txt", "link.txt => hello.txt", "abslink => $ROOT/a/b",
		"out => $OUTSIDE", "dotdot => ../outside", "loop => loop", "dangling => gone.txt",
		"chain1 => chain2", "chain2 => a/b", "sub/", "sublink => sub/../a",
	)
	e := fx.engine(schema.Config{})
	cases := []struct {
		in     string
		rel    string
		exists bool
		kind   schema.ErrorKind
	}{
		{in: "hello.txt", rel: "hello.txt", exists: true},
		{in: "./a/../hello.txt", rel: "hello.txt", exists: true},
		{in: "link.txt", rel: "hello.txt", exists: true},
		{in: "abslink/c.txt", rel: "a/b/c.txt", exists: true},
		{in: "chain1/c.txt", rel: "a/b/c.txt", exists: true},
		{in: "sublink/b", rel: "a/b", exists: true},
		{in: "abslink/../../hello.txt", rel: "hello.txt", exists: true},
		{in: "dangling", rel: "gone.txt"},
		{in: "new/dir/x", rel: "new/dir/x"},
		{in: fx.root + "/a/b", rel: "a/b", exists: true},
		{in: fx.root, rel: ".", exists: true},
		{in: ".", rel: ".", exists: true},
		{in: `C:\x`, kind: "invalid_path"},
		{in: `a\..\b`, rel: `a\..\b`},
		{in: "out/x", kind: "outside_root"},
		{in: "dotdot", kind: "outside_root"},
		{in: "..", kind: "outside_root"},
		{in: "/etc/passwd", kind: "outside_root"},
		{in: "/proc/self/root" + fx.root + "/hello.txt", kind: "outside_root"},
		{in: "loop", kind: "symlink_loop"},
		{in: "hello.txt/x", kind: "parent_not_directory"},
		{in: "", kind: "invalid_path"},
		{in: "a\x00b", kind: "invalid_path"},
	}
	for _, c := range cases {
		r, err := e.resolve("test", c.in)
		if c.kind != "" {
			wantKind(t, "resolve("+c.in+")", err, c.kind)
			continue
		}
		if err != nil {
			t.Errorf("resolve(%q) = %v; want %q", c.in, err, c.rel)
			continue
		}
		if r.rel != c.rel || r.exists != c.exists {
			t.Errorf("resolve(%q) = %q exists=%v; want %q exists=%v", c.in, r.rel, r.exists, c.rel, c.exists)
		}
	}
}
