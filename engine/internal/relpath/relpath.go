package relpath

import "strings"

// Limits on the paths one call resolves or creates. Every step of resolution and creation is one
// system call per component, so these bound the work (and the descriptors) of a single call.
const (
	// MaxBytes is PATH_MAX on Linux: longer paths cannot be passed to the kernel in one call,
	// and most tools (git, tar, editors) fail on them, so no real tree needs more.
	MaxBytes = 4096
	// MaxComponents bounds the components of a path after cwd is joined and symlinks are
	// expanded: 2048 is the most a MaxBytes path can hold ("d/d/…"), so every path the
	// kernel could take whole is accepted, while symlinks cannot expand one beyond it. Real
	// source trees are rarely 30 deep.
	MaxComponents = 2048
)

// CutPrefix returns comps without the leading base components, if comps starts with them
// (with no ".." among the matched ones).
func CutPrefix(comps, base []string) ([]string, bool) {
	if len(comps) < len(base) {
		return nil, false
	}
	for i, b := range base {
		if comps[i] != b {
			return nil, false
		}
	}
	return comps[len(base):], true
}

// Split splits p on "/" dropping empty and "." components; ".." is kept.
func Split(p string) []string {
	parts := strings.Split(p, "/")
	out := parts[:0]
	for _, s := range parts {
		if s != "" && s != "." {
			out = append(out, s)
		}
	}
	return out
}

// Join joins root-relative components; no components is the root ".".
func Join(comps []string) string {
	if len(comps) == 0 {
		return "."
	}
	return strings.Join(comps, "/")
}

// Clean applies ".." to comps without looking at the disk; "" when it leaves the root.
func Clean(comps []string) string {
	out := make([]string, 0, len(comps))
	for _, c := range comps {
		switch c {
		case "", ".":
		case "..":
			if len(out) == 0 {
				return ""
			}
			out = out[:len(out)-1]
		default:
			out = append(out, c)
		}
	}
	return Join(out)
}

// HasMore reports whether todo still names something below the current component.
func HasMore(todo []string) bool {
	for _, c := range todo {
		if c != "" && c != "." {
			return true
		}
	}
	return false
}

// Parent returns the root-relative parent of rel and rel's last name; the root's parent is
// the root itself.
func Parent(rel string) (dir, name string) {
	i := strings.LastIndexByte(rel, '/')
	if i < 0 {
		if rel == "." {
			return ".", "."
		}
		return ".", rel
	}
	return rel[:i], rel[i+1:]
}

// Ancestors returns the proper ancestors of rel, outermost first ("a", "a/b" for "a/b/c").
func Ancestors(rel string) []string {
	if rel == "." || rel == "" {
		return nil
	}
	var out []string
	for i := 0; i < len(rel); i++ {
		if rel[i] == '/' {
			out = append(out, rel[:i])
		}
	}
	return out
}

// Child joins a root-relative directory and a name.
func Child(dir, name string) string {
	if dir == "." {
		return name
	}
	return dir + "/" + name
}

// IsASCIILetter reports whether c is an ASCII letter: the drive letter of a Windows-looking path
// (fserr's path hints) and the bytes a case-folded search literal may match in either case (scan).
func IsASCIILetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }
