package confine

import (
	"os"
	"path/filepath"
	"strings"
)

// installDirs returns the installation directories of the executables exec, read and executed
// beneath by the process and its hooks: a program outside the system's directories (a Go tool in
// ~/go/bin, node under ~/.nvm, a pyenv shim) needs its own tree to run (its libraries, its
// interpreter's standard library, the shim's real interpreter). For each executable, as named
// and with symlinks resolved, that is its directory, or the parent of a directory named bin,
// sbin or shims (~/.nvm/versions/node/v20 for …/v20/bin/node, ~/.pyenv for ~/.pyenv/shims/python).
//
// It never returns the root of the file system, the home directory, the temporary directory, a
// directory above either of them, or ~/.local: a program installed directly in ~/bin gets ~/bin,
// never ~.
func installDirs(exec []string) []string {
	home, _ := os.UserHomeDir()
	tmp := os.TempDir()
	var out []string
	seen := map[string]bool{}
	for _, exe := range exec {
		if !filepath.IsAbs(exe) {
			continue
		}
		names := []string{exe}
		if real, err := filepath.EvalSymlinks(exe); err == nil && real != exe {
			names = append(names, real)
		}
		for _, n := range names {
			dir := filepath.Dir(n)
			cand := dir
			switch filepath.Base(dir) {
			case "bin", "sbin", "shims":
				cand = filepath.Dir(dir)
			}
			if tooWide(cand, home, tmp) {
				cand = dir
			}
			if tooWide(cand, home, tmp) || seen[cand] {
				continue
			}
			seen[cand] = true
			out = append(out, cand)
		}
	}
	return out
}

// tooWide reports a directory that is /, home, tmp, or above home or tmp.
func tooWide(dir, home, tmp string) bool {
	for _, p := range []string{home, tmp} {
		if p != "" && (dir == p || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")) {
			return true
		}
	}
	// ~/.local holds ~/.local/share (keyrings, histories) beside ~/.local/bin; pipx and pip
	// --user programs there are symlinks or scripts whose real trees are found on their own.
	return dir == "/" || dir == "." || home != "" && dir == filepath.Join(home, ".local")
}
