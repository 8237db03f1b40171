package server

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strings"
)

// ExpandHostPath expands a path of the host's own configuration (root_dir in the --config file,
// the --root flag): a leading "~" or "~/…" becomes the current user's home directory, "~user/…"
// that user's, and $VAR or ${VAR} the variable's value; "$$" is a literal "$". An unset variable,
// an unknown user or an unknown home directory is an error naming it, never an empty string, so
// "$WORKSPACE/src" with WORKSPACE unset cannot silently become "/src".
//
// It is for paths the host wrote. The server never applies it to a client's initialize config
// (root_dir there is taken literally, so a client cannot probe or use the host's environment)
// nor to model paths, which the engine refuses when they start with "~" (invalid_path).
func ExpandHostPath(p string) (string, error) {
	if strings.HasPrefix(p, "~") {
		name, rest, _ := strings.Cut(p[1:], "/")
		var home string
		if name == "" {
			h, err := os.UserHomeDir()
			if err != nil || h == "" {
				return "", fmt.Errorf("cannot expand %q: the home directory is unknown ($HOME is not set)", p)
			}
			home = h
		} else {
			u, err := user.Lookup(name)
			if err != nil {
				return "", fmt.Errorf("cannot expand %q: no user %q", p, name)
			}
			home = u.HomeDir
		}
		p = home
		if rest != "" {
			p = filepath.Join(home, rest)
		}
	}
	var missing []string
	out := os.Expand(p, func(name string) string {
		if name == "$" {
			return "$"
		}
		v, ok := os.LookupEnv(name)
		if !ok {
			missing = append(missing, name)
		}
		return v
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("cannot expand %q: environment variable %s is not set", p, strings.Join(missing, ", "))
	}
	return out, nil
}
