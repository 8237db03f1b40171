package engine

import (
	"strings"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// TestForeignPaths checks which spellings are refused as Windows or home-directory paths, with a
// message naming the problem, and that look-alike POSIX names still resolve (and can be written).
func TestForeignPaths(t *testing.T) {
	fx := makeFixture(t, "hello.txt")
	e := fx.engine(schema.Config{})
	for _, c := range []struct {
		in, want string
	}{
		{`C:\x`, "Windows absolute path"},
		{`c:\Users\me\a.go`, "Windows absolute path"},
		{`C:/x/y`, "Windows absolute path"},
		{`\\server\share\a.txt`, "Windows absolute path"},
		{"~", "~ is not expanded"},
		{"~/x", "~ is not expanded"},
		{"~/", "~ is not expanded"},
		{"~root/.bashrc", "~ is not expanded"},
		{"~some_user.name-2/x", "~ is not expanded"},
	} {
		_, err := e.resolve("read_file", c.in)
		if err == nil || err.Kind != schema.KindInvalidPath || !strings.Contains(err.Msg, c.want) {
			t.Errorf("resolve(%q) = %v; want invalid_path saying %q", c.in, err, c.want)
		}
	}
	for _, in := range []string{"C:x", "~user", "~$doc.docx", "a~b", "x/~/y", "~-x/y", `a\b`, "C:", "1:\\x"} {
		if _, err := e.resolve("write_file", in); err != nil {
			t.Errorf("resolve(%q) = %v; want an ordinary relative name", in, err)
		}
	}
}
