package fsbox_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Rule 11 (tracked files): git holds sources, never build outputs. A tracked file fails this test
// when it is a compiled binary (ELF, Mach-O, PE, or a Go test binary's *.test / *.exe name) or
// when it is over maxTracked bytes and not listed in largeTracked with its reason. It protects
// against a binary or a generated blob slipping into a commit (stop 17 committed two test
// binaries, 32 MB, that .gitignore already listed); it does not judge what a large source is.
const maxTracked = 1 << 20

// largeTracked lists the tracked files allowed over maxTracked, each with why it must be there.
var largeTracked = map[string]string{}

func TestNoBuildOutputsTracked(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not on PATH")
	}
	out, err := exec.Command("git", "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	files := strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
	if len(files) < 10 {
		t.Fatalf("git ls-files listed %d files; expected the whole tree", len(files))
	}
	for _, f := range files {
		if problem := buildOutput(f); problem != "" {
			t.Errorf("%s is tracked but %s: remove it from git (and list it in .gitignore)", f, problem)
		}
	}
}

// buildOutput says why the tracked file f is a build output, or "" when it is not.
func buildOutput(f string) string {
	switch filepath.Ext(f) {
	case ".test", ".exe", ".o", ".a", ".so", ".dylib", ".dll", ".pyc":
		return "has a build output's extension"
	}
	info, err := os.Lstat(f)
	if err != nil || !info.Mode().IsRegular() { // deleted in the work tree, or a symlink
		return ""
	}
	if _, ok := largeTracked[filepath.ToSlash(f)]; !ok && info.Size() > maxTracked {
		return "is over 1 MB with no reason listed in largeTracked"
	}
	fh, err := os.Open(f)
	if err != nil {
		return ""
	}
	defer fh.Close()
	head := make([]byte, 4)
	n, _ := fh.Read(head)
	head = head[:n]
	for _, magic := range [][]byte{
		{0x7f, 'E', 'L', 'F'},    // ELF
		{0xcf, 0xfa, 0xed, 0xfe}, // Mach-O 64-bit
		{0xce, 0xfa, 0xed, 0xfe}, // Mach-O 32-bit
		{0xca, 0xfe, 0xba, 0xbe}, // Mach-O universal
	} {
		if bytes.Equal(head, magic) {
			return "is a compiled binary"
		}
	}
	if bytes.HasPrefix(head, []byte("MZ")) && strings.HasSuffix(f, ".exe") {
		return "is a compiled binary"
	}
	return ""
}
