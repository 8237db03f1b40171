package fserr

import (
	"strings"

	"github.com/fsbox/fsbox/engine/internal/relpath"
	"github.com/fsbox/fsbox/schema"
)

// ForeignPath returns the invalid_path error for a model path written for another system or
// for a shell, or nil. On POSIX "\" and "~" are ordinary characters, so without this check
// `C:\src\a.go` would be taken as one odd relative name and "~/notes.md" as a directory named
// "~" inside the root: a write would create them, a read would answer not_found, and neither
// tells the model what it did wrong. The shapes refused:
//
//   - a Windows absolute path: a drive letter, ":" and a separator ("C:\x", "c:/x"), or a UNC
//     path starting with two backslashes ("\\server\share");
//   - a home-directory path: "~" alone, "~/…", or "~user/…" (a POSIX user name and "/").
//
// What it does not refuse: a drive-relative "C:x", a bare "~user", "a~b" or "x/~/y", which are
// legal POSIX names a workspace may hold; and "..\x", which stays a single relative name (it
// cannot leave the root, "\" being no separator here). Host configuration paths are expanded
// elsewhere (cmd/fsbox); model paths never are.
func ForeignPath(op, spelling string) *Error {
	if isWindowsAbs(spelling) {
		return Errorf(op, "", schema.KindInvalidPath,
			"Path %s looks like a Windows absolute path; this server runs on a POSIX system and paths are relative to the workspace root (use \"/\" as the separator, e.g. \"src/main.go\").",
			PyRepr(Shorten(spelling)))
	}
	if isTildePath(spelling) {
		return Errorf(op, "", schema.KindInvalidPath,
			"Path %s starts with \"~\", but ~ is not expanded in tool paths: paths are relative to the workspace root (e.g. \"notes.md\"), or absolute inside it.",
			PyRepr(Shorten(spelling)))
	}
	return nil
}

// isWindowsAbs reports whether p is a drive-absolute ("C:\", "C:/") or UNC ("\\") path.
func isWindowsAbs(p string) bool {
	if strings.HasPrefix(p, `\\`) {
		return true
	}
	if len(p) >= 3 && relpath.IsASCIILetter(p[0]) && p[1] == ':' && (p[2] == '\\' || p[2] == '/') {
		return true
	}
	return false
}

// isTildePath reports whether p is "~", starts with "~/", or starts with "~user/".
func isTildePath(p string) bool {
	rest, ok := strings.CutPrefix(p, "~")
	if !ok {
		return false
	}
	if rest == "" || rest[0] == '/' {
		return true
	}
	user, _, slash := strings.Cut(rest, "/")
	if !slash {
		return false
	}
	for i := 0; i < len(user); i++ {
		c := user[i]
		switch {
		case c == '_' || relpath.IsASCIILetter(c):
		case i > 0 && (c >= '0' && c <= '9' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return true
}

// Shorten shortens a long spelling for an error message: its first 100 bytes and an
// ellipsis.
func Shorten(s string) string {
	if len(s) <= 100 {
		return s
	}
	return strings.ToValidUTF8(s[:100], "") + "..."
}
