package engine

import (
	"os"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/engine/internal/text"
	"github.com/fsbox/fsbox/schema"
)

func TestWriteFile_Basics(t *testing.T) {
	fx := makeFixture(t, "hello.txt: Hello, world!\n", "link.txt => hello.txt", "sub/", "p |")
	e := fx.engine(schema.Config{})
	res := mustCall(t, e, "write_file", schema.WriteFileArgs{Path: "fmt.txt", Content: "ab\ncd\n"}, Hooks{}).(*schema.WriteFileResult)
	if want := "Wrote 6 chars (2 lines) to fmt.txt. [hash:" + text.ContentHash([]byte("ab\ncd\n")) + "]"; res.Text != want || !res.Created {
		t.Errorf("write = %q created=%v; want %q", res.Text, res.Created, want)
	}
	// Through an in-root symlink: the target changes, the link stays a link.
	mustCall(t, e, "write_file", schema.WriteFileArgs{Path: "link.txt", Content: "via link\n"}, Hooks{})
	if got := fx.read("hello.txt"); got != "via link\n" {
		t.Errorf("hello.txt = %q", got)
	}
	if fi, _ := os.Lstat(fx.abs("link.txt")); fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("link.txt is no longer a symlink")
	}
	for _, c := range []struct {
		path string
		kind schema.ErrorKind
	}{
		{"sub", "not_a_file"},
		{"p", "not_regular_file"},
		{"deep/nested/file.txt", "parent_missing"},
		{"hello.txt/child", "parent_not_directory"},
		{".env", "denied"},
		{"apps/api/.env", "denied"},
		{".envrc", "protected"},
		{"apps/.envrc", "protected"},
	} {
		_, err := tryCall(t, e, "write_file", schema.WriteFileArgs{Path: c.path, Content: "x"}, Hooks{})
		wantKind(t, "write_file("+c.path+")", err, c.kind)
	}
	_, err := tryCall(t, e, "write_file", schema.WriteFileArgs{Path: "deep/nested/file.txt", Content: "x"}, Hooks{})
	if err.Msg != "Parent directory 'deep/nested' does not exist. Use create_directory first." {
		t.Errorf("parent msg = %q", err.Msg)
	}
}

func TestWriteFile_ModeAndCRLF(t *testing.T) {
	fx := makeFixture(t, "m.txt: old\n")
	if err := os.Chmod(fx.abs("m.txt"), 0o640); err != nil {
		t.Fatal(err)
	}
	e := fx.engine(schema.Config{})
	content := "h\u00e9llo\r\nnew content\n\x01\r"
	mustCall(t, e, "write_file", schema.WriteFileArgs{Path: "m.txt", Content: content}, Hooks{})
	fi, _ := os.Stat(fx.abs("m.txt"))
	if fi.Mode().Perm() != 0o640 {
		t.Errorf("mode = %v; want 0640", fi.Mode().Perm())
	}
	if got := fx.read("m.txt"); got != content {
		t.Errorf("content = %q; want %q", got, content)
	}
	entries, _ := os.ReadDir(fx.root)
	for _, en := range entries {
		if strings.HasPrefix(en.Name(), ".fsbox-") {
			t.Errorf("temporary file left behind: %s", en.Name())
		}
	}
}
