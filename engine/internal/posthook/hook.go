package posthook

import (
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/fsbox/fsbox/engine/internal/fserr"
	"github.com/fsbox/fsbox/schema"
)

// OutputBytes bounds the combined stdout and stderr kept of one hook run.
const OutputBytes = 4096

// WaitDelay bounds how long a hook's output pipes may stay open after the command exited or
// was killed (a background child holding them).
const WaitDelay = 2 * time.Second

// Hook is one compiled Config.PostEdit entry.
type Hook struct {
	pattern string // without a leading "/"
	base    bool   // no "/": matched against the base name
	Cmd     []string
	Timeout time.Duration
	Src     schema.PostEditHook
}

// Compile validates and compiles the post_edit entries of cfg; a bad entry is a
// configuration error naming the field.
func Compile(cfg *schema.Config) ([]Hook, *fserr.Error) {
	def := schema.DefaultPostEditTimeout
	if cfg.PostEditTimeout != nil {
		if *cfg.PostEditTimeout <= 0 {
			return nil, fserr.Config("post_edit_timeout must be a positive integer (seconds), got %d", *cfg.PostEditTimeout)
		}
		def = *cfg.PostEditTimeout
	}
	var out []Hook
	for i, h := range cfg.PostEdit {
		pat := strings.TrimPrefix(h.Path, "/")
		if pat == "" || !doublestar.ValidatePattern(pat) {
			return nil, fserr.Config("post_edit[%d].path: invalid glob %s", i, fserr.PyRepr(h.Path))
		}
		if len(h.Cmd) == 0 || h.Cmd[0] == "" {
			return nil, fserr.Config("post_edit[%d].cmd: must be a non-empty argument vector, e.g. [\"gofmt\", \"-w\", \"${file}\"]", i)
		}
		secs := def
		if h.Timeout != nil {
			if *h.Timeout <= 0 {
				return nil, fserr.Config("post_edit[%d].timeout must be a positive integer (seconds), got %d", i, *h.Timeout)
			}
			secs = *h.Timeout
		}
		out = append(out, Hook{pattern: pat, base: !strings.Contains(pat, "/"), Cmd: h.Cmd,
			Timeout: time.Duration(secs) * time.Second, Src: h})
	}
	return out, nil
}

// Matches reports whether the hook applies to the path rel (relative to the root the hooks were
// configured for).
func (h *Hook) Matches(rel string) bool {
	name := rel
	if h.base {
		name = path.Base(rel)
	}
	ok, _ := doublestar.Match(h.pattern, name)
	return ok
}

// Argv returns the hook's command with "${file}" replaced by file in every argument.
func (h *Hook) Argv(file string) []string {
	out := make([]string, len(h.Cmd))
	for i, a := range h.Cmd {
		out[i] = strings.ReplaceAll(a, "${file}", file)
	}
	return out
}

// Warning returns the warning line of a hook run that did not succeed, "" for one that did.
func Warning(run schema.PostEditRun, timeout time.Duration, verb string) string {
	if run.OK {
		return ""
	}
	var what string
	switch {
	case run.TimedOut:
		what = fmt.Sprintf("timed out after %s and was killed", timeout)
	case run.Error != "":
		what = "failed: " + run.Error
	default:
		what = fmt.Sprintf("exited with status %d", run.ExitCode)
	}
	w := fmt.Sprintf("Warning: post_edit hook `%s` %s; the %s itself is kept.", strings.Join(run.Cmd, " "), what, verb)
	if out := strings.TrimRight(run.Output, "\n"); out != "" {
		w += " Output:\n" + out
		if run.OutputTruncated {
			w += fmt.Sprintf("\n[output truncated at %d bytes]", OutputBytes)
		}
	}
	return w
}
