package engine

import (
	"sort"
	"strings"

	"github.com/fsbox/fsbox/engine/internal/posthook"
)

// Hook output never carries a host path: a formatter's error names the file by the absolute path
// it opened (node --check reports "/home/u/project/sub/a.js:3"), and the model must not learn
// where the root or a mount lives. scrubHostPaths replaces each of the root's and mounts' host
// directories, as resolved and as configured, by its root-relative form: "<root>/sub/a.js"
// becomes "sub/a.js", the root alone ".", "<mount dir>/x" "<mount point>/x".
//
// It does not find a host path the hook spells differently (relative to somewhere else, escaped,
// split across lines) nor paths outside the root and mounts (a hook's own installation), which
// are the host's to show.

// hostPaths returns the host directories to scrub with their root-relative forms, longest first
// (a mount inside the root's directory is replaced before the root).
func (e *Engine) hostPaths() [][2]string {
	var out [][2]string
	add := func(prefixes [][]string, rel string) {
		for _, p := range prefixes {
			if len(p) > 0 {
				out = append(out, [2]string{"/" + strings.Join(p, "/"), rel})
			}
		}
	}
	add(e.rootPrefixes, ".")
	for _, m := range e.mounts.all() {
		add(m.prefixes, m.path)
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i][0]) > len(out[j][0]) })
	return out
}

// longestHostPath is how much more output is kept than is shown, so a host path cut at the
// bound is still found whole.
func (e *Engine) longestHostPath() int {
	n := 0
	for _, p := range e.hostPaths() {
		n = max(n, len(p[0]))
	}
	return n
}

// scrubHostPaths replaces the host directories in s (see above). A directory is replaced only
// as a whole path: "/srv/root" in "/srv/root2" or "/x/srv/root" stays.
func (e *Engine) scrubHostPaths(s string) string {
	for _, hp := range e.hostPaths() {
		s = posthook.ReplacePathPrefix(s, hp[0], hp[1])
	}
	return s
}
