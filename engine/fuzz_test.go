package engine

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/fsbox/fsbox/schema"
)

// FuzzResolve feeds arbitrary paths to the resolver and read_file: resolution never panics,
// never yields a path outside the root, a resolved existing path is never a symlink, and no read
// ever returns the outside file's content or a host path.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{"a", "../x", "in/../../out", "out/secret.txt", "chain/x", "loop/x", "/", "//a", "a/./b/", "dang", "in/f.txt", `C:\x`, "\x00", "link/../in/f.txt"} {
		f.Add(s)
	}
	fx := makeFixture(f, "in/f.txt: inside\n", "link => in", "out => $OUTSIDE", "chain => link/../out",
		"loop => loop/x", "dang => nowhere", "abs => $ROOT/in", "$OUTSIDE/secret.txt: OUTSIDE\n")
	e := fx.engine(schema.Config{})
	f.Fuzz(func(t *testing.T, p string) {
		if !utf8.ValidString(p) {
			return // JSON cannot carry it: arguments are always valid UTF-8
		}
		for _, spelling := range []string{p, fx.root + "/" + p} {
			r, rerr := e.resolve("fuzz", spelling)
			if rerr == nil {
				if r.rel != "." && (strings.HasPrefix(r.rel, "/") || r.rel == ".." || strings.HasPrefix(r.rel, "../") || strings.Contains(r.rel, "/../")) {
					t.Fatalf("resolve(%q) = %q leaves the root", spelling, r.rel)
				}
				if r.exists {
					fi, err := os.Lstat(filepath.Join(fx.root, r.rel))
					if err != nil || fi.Mode()&os.ModeSymlink != 0 {
						t.Fatalf("resolve(%q) = %q, which is %v %v", spelling, r.rel, fi, err)
					}
				}
			}
			res, cerr := tryCall(t, e, "read_file", map[string]any{"path": spelling}, Hooks{})
			text := resultText(res)
			if cerr != nil {
				text = cerr.Msg
			}
			if strings.Contains(text, "OUTSIDE") {
				t.Fatalf("read_file(%q) read outside the root: %q", spelling, text)
			}
			assertNoHostPath(t, fx, text, spelling)
		}
	})
}

// FuzzEdit checks applyReplacements: it succeeds exactly when old occurs once, and then every
// byte outside the replaced span is kept verbatim; it never panics on any bytes.
func FuzzEdit(f *testing.F) {
	f.Add([]byte("one\r\ntwo\r\n"), "one", "ONE")
	f.Add([]byte("a\xffb\nx x"), "x", "y")
	f.Add([]byte(""), "", "y")
	f.Fuzz(func(t *testing.T, content []byte, old, new string) {
		r := &resolved{rel: "f.txt", spelling: "f.txt"}
		out, _, err := applyReplacements("edit_file", r, "f.txt", content, []schema.Replacement{{OldText: old, NewText: new}}, false)
		n := 0
		if old != "" {
			n = bytes.Count(content, []byte(old))
		}
		if (err == nil) != (n == 1) {
			t.Fatalf("applyReplacements(%q, %q) err=%v with %d occurrences", content, old, err, n)
		}
		if err != nil {
			return
		}
		at := bytes.Index(content, []byte(old))
		want := append(append(append([]byte(nil), content[:at]...), new...), content[at+len(old):]...)
		if !bytes.Equal(out, want) {
			t.Fatalf("applyReplacements(%q, %q, %q) = %q; want %q", content, old, new, out, want)
		}
	})
}
