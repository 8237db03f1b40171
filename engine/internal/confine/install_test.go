package confine

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A hook's executable brings its installation tree, never the home or temporary directory, nor
// anything above them.
func TestInstallDirs(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	mk := func(p string) string {
		p = filepath.Join(home, p)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, nil, 0o755)
		return p
	}
	node := mk(".nvm/versions/node/v20/bin/node")
	shim := mk(".pyenv/shims/python3")
	own := mk("bin/tool")
	tool := mk("tools/fmt")
	link := filepath.Join(home, ".local", "bin", "fmt")
	os.MkdirAll(filepath.Dir(link), 0o755)
	os.Symlink(tool, link)
	inTmp := filepath.Join(tmp, "bin", "x")
	got := installDirs([]string{node, shim, own, tool, link, inTmp, "relative/x", "/usr/bin/sh"})
	want := []string{
		filepath.Join(home, ".nvm/versions/node/v20"),
		filepath.Join(home, ".pyenv"),
		filepath.Join(home, "bin"),           // ~/bin/tool: the parent would be home itself
		filepath.Join(home, "tools"),         // no bin: its own directory
		filepath.Join(home, ".local", "bin"), // never ~/.local itself (~/.local/share)
		filepath.Join(tmp, "bin"),            // the parent would be the temporary directory
		"/usr",
	}
	if !slices.Equal(got, want) {
		t.Errorf("installDirs = %q\nwant %q", got, want)
	}
	for _, d := range got {
		if d == home || d == tmp || d == "/" {
			t.Errorf("%s is too wide", d)
		}
	}
}
