package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/fsbox/fsbox/engine/internal/confine"
	"github.com/fsbox/fsbox/engine/internal/relpath"
	"github.com/fsbox/fsbox/engine/internal/text"
	"github.com/fsbox/fsbox/schema"
)

// Post-edit hooks (Config.PostEdit): host commands run after write_file or edit_file changed a
// file, a formatter typically. The model names the file and races the hook; the host names the
// command. What this file protects against, and what not:
//
//   - shell injection through a file name: there is no shell; a hook is an argument vector, and
//     "${file}" is replaced inside single arguments by "./" + the root-relative path, so a name
//     such as "a;touch PWNED;.go", "$(touch x).go" or "-rf.go" reaches the command as one
//     argument that cannot be an option;
//   - commands from anyone but the host: the hooks are read from the host's configuration
//     (Options.Host when the host fixed the policy, else the Config the host passed to New); the
//     server refuses post_edit in initialize, and no tool argument reaches a hook;
//   - a hook led outside the root: the path the hook opens is resolved later, by another
//     process, so a directory of it can meanwhile be swapped for a link to the outside (the
//     model can move links; a concurrent process can RENAME_EXCHANGE). No path check can close
//     that race, so the kernel does: on Linux each hook runs under a Landlock ruleset of its own
//     (engine/internal/confine), which lets it change files only beneath the root and writable
//     mounts and read only those, the read-only mounts and what it needs to run; it starts in the
//     root's (or mount's) directory descriptor, opened when the engine started, not in a path.
//     Where no confinement is available New refuses hooks unless the host opted in
//     (SandboxOptions.UnconfinedHooks), and the session reports them "unconfined";
//   - host paths in what the model sees: the root's and mounts' host directories are replaced
//     by their root-relative form in a hook's output (scrubHostPaths);
//   - a hook that hangs, floods or outlives the server: each runs with a timeout in a process
//     group of its own, killed as a group on timeout or when the call is cancelled (fsbox serve
//     cancels every call on SIGTERM); when the server dies, SIGKILL included, the launcher's
//     parent-death signal kills the group; at most hookOutputBytes of output are kept;
//   - a hook that moves the file out from under the engine: the content after the hooks is
//     re-read by descriptor from the root with O_NOFOLLOW (readAfterHooks), so a file the hook
//     removed or replaced with a symlink is reported as such, never followed.
//
// It does not protect against what a hook does inside the root: the engine's access rules
// (denied files, protected paths) are fsbox's, not the kernel's, and a hook, like any host
// command, is not held to them; nor against a hook's child that leaves its process group. A
// hook's failure is a warning in the result, never a rollback: the change has landed.

// hookOutputBytes bounds the combined stdout and stderr kept of one hook run.
const hookOutputBytes = 4096

// hookWaitDelay bounds how long a hook's output pipes may stay open after the command exited or
// was killed (a background child holding them).
const hookWaitDelay = 2 * time.Second

// postEditHook is one compiled Config.PostEdit entry.
type postEditHook struct {
	pattern string // without a leading "/"
	base    bool   // no "/": matched against the base name
	cmd     []string
	timeout time.Duration
	src     schema.PostEditHook
}

// compileHooks validates and compiles the post_edit entries of cfg; a bad entry is a
// configuration error naming the field.
func compileHooks(cfg *schema.Config) ([]postEditHook, *Error) {
	def := schema.DefaultPostEditTimeout
	if cfg.PostEditTimeout != nil {
		if *cfg.PostEditTimeout <= 0 {
			return nil, configError("post_edit_timeout must be a positive integer (seconds), got %d", *cfg.PostEditTimeout)
		}
		def = *cfg.PostEditTimeout
	}
	var out []postEditHook
	for i, h := range cfg.PostEdit {
		pat := strings.TrimPrefix(h.Path, "/")
		if pat == "" || !doublestar.ValidatePattern(pat) {
			return nil, configError("post_edit[%d].path: invalid glob %s", i, pyRepr(h.Path))
		}
		if len(h.Cmd) == 0 || h.Cmd[0] == "" {
			return nil, configError("post_edit[%d].cmd: must be a non-empty argument vector, e.g. [\"gofmt\", \"-w\", \"${file}\"]", i)
		}
		secs := def
		if h.Timeout != nil {
			if *h.Timeout <= 0 {
				return nil, configError("post_edit[%d].timeout must be a positive integer (seconds), got %d", i, *h.Timeout)
			}
			secs = *h.Timeout
		}
		out = append(out, postEditHook{pattern: pat, base: !strings.Contains(pat, "/"), cmd: h.Cmd,
			timeout: time.Duration(secs) * time.Second, src: h})
	}
	return out, nil
}

// matches reports whether the hook applies to the path rel (relative to the root the hooks were
// configured for).
func (h *postEditHook) matches(rel string) bool {
	name := rel
	if h.base {
		name = path.Base(rel)
	}
	ok, _ := doublestar.Match(h.pattern, name)
	return ok
}

// argv returns the hook's command with "${file}" replaced by file in every argument.
func (h *postEditHook) argv(file string) []string {
	out := make([]string, len(h.cmd))
	for i, a := range h.cmd {
		out[i] = strings.ReplaceAll(a, "${file}", file)
	}
	return out
}

// afterHooks is what the post_edit hooks of one change did.
type afterHooks struct {
	runs     []schema.PostEditRun
	warnings []string
	// changed reports that the file's content differs from what the tool wrote.
	changed bool
	// hash is the content hash after the hooks; absentHash when the file is gone or not a
	// regular file any more.
	hash string
	// content is the content after the hooks when whole (at most maxAnnouncedOldBytes).
	content []byte
	whole   bool
}

// runPostEdit runs every hook matching the root-relative rel, just written as written (hash
// wrote), and re-reads the file after them. It returns nil when no hook matched. verb ("write",
// "edit") is for the warnings.
func (e *Engine) runPostEdit(c *call, rel, wrote, verb string) *afterHooks {
	var matched []*postEditHook
	for i := range e.postEdit {
		if e.postEdit[i].matches(e.hookPrefix + rel) {
			matched = append(matched, &e.postEdit[i])
		}
	}
	if len(matched) == 0 {
		return nil
	}
	a := &afterHooks{}
	// A file in a mount is handed to the hook in the mounted directory, where it really is.
	dir, dirPath, file := e.top, e.rootDir, "./"+rel
	if m, sub := e.mounts.of(rel); m != nil {
		dir, dirPath, file = m.top, m.dir, "./"+sub
	}
	for _, h := range matched {
		run := e.runHook(c.ctx, dir, dirPath, h.argv(file), h.timeout)
		run.Path = h.src.Path
		a.runs = append(a.runs, run)
		if w := hookWarning(run, h.timeout, verb); w != "" {
			a.warnings = append(a.warnings, w)
		}
	}
	content, whole, hash, gone := e.readAfterHooks(rel)
	a.hash, a.content, a.whole = hash, content, whole
	if gone != "" {
		a.warnings = append(a.warnings, fmt.Sprintf("Warning: after the post_edit hooks, %s %s; the %s itself had landed.", rel, gone, verb))
	}
	a.changed = hash != wrote
	return a
}

// runList returns the runs of a (nil when no hook matched).
func (a *afterHooks) runList() []schema.PostEditRun {
	if a == nil {
		return nil
	}
	return a.runs
}

// report appends the hooks' lines to a tool's result text and fills its typed fields: a line
// saying the hooks changed the file (so the model knows its view is stale), then the warnings.
func (a *afterHooks) report(text *string, out *schema.PostEditOutcome) {
	if a == nil {
		return
	}
	out.PostEdit, out.Warnings = a.runs, a.warnings
	if a.changed && a.hash != absentHash {
		*text += " The post_edit hooks changed the file after it was saved; read it again before editing it."
	}
	for _, w := range a.warnings {
		*text += "\n" + w
	}
}

// runHook runs argv from the directory dir (at dirPath) with a timeout, confined (see the file's
// comment), in a process group of its own that is killed as a group on timeout or when ctx is
// done, keeping at most hookOutputBytes of its output, host paths scrubbed.
func (e *Engine) runHook(ctx context.Context, dir *os.File, dirPath string, argv []string, timeout time.Duration) schema.PostEditRun {
	run := schema.PostEditRun{Cmd: make([]string, len(argv)), ExitCode: -1}
	for i, a := range argv {
		run.Cmd[i] = e.scrubHostPaths(a)
	}
	exe := hookExecutable(argv[0])
	if exe == "" {
		_, err := exec.LookPath(argv[0])
		run.Error = err.Error()
		return run
	}
	hctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	h := confine.Hook{Path: exe, Args: argv, Dir: dir, DirPath: dirPath, Write: []*os.File{e.top},
		Unconfined: e.hooksUnconfined}
	if strings.HasPrefix(exe, "/") {
		h.Exec = []string{exe}
	}
	for _, m := range e.mounts.all() {
		if m.readOnly {
			h.Read = append(h.Read, m.top)
		} else {
			h.Write = append(h.Write, m.top)
		}
	}
	cmd := confine.Command(hctx, h)
	out := boundedOutput{limit: hookOutputBytes + e.longestHostPath()}
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = hookWaitDelay
	err := confine.Run(cmd)
	kept := e.scrubHostPaths(string(out.kept))
	if len(kept) > hookOutputBytes {
		out.dropped += len(kept) - hookOutputBytes
		kept = kept[:hookOutputBytes]
	}
	run.Output, run.OutputTruncated = strings.ToValidUTF8(kept, "\uFFFD"), out.dropped > 0
	var ee *exec.ExitError
	switch {
	case err == nil:
		run.OK, run.ExitCode = true, 0
	case hctx.Err() != nil && ctx.Err() == nil:
		run.TimedOut = true
		run.Error = fmt.Sprintf("killed after the %s timeout", timeout)
	case ctx.Err() != nil:
		run.Error = "cancelled"
	case errors.As(err, &ee) && ee.Exited():
		run.ExitCode = ee.ExitCode()
	case errors.As(err, &ee):
		run.Error = ee.String() // killed by a signal
	case errors.Is(err, exec.ErrWaitDelay):
		// It exited with status 0, but a child kept its output open past hookWaitDelay.
		run.OK, run.ExitCode = true, 0
	default:
		run.Error = e.scrubHostPaths(err.Error())
	}
	return run
}

// hookWarning returns the warning line of a hook run that did not succeed, "" for one that did.
func hookWarning(run schema.PostEditRun, timeout time.Duration, verb string) string {
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
			w += fmt.Sprintf("\n[output truncated at %d bytes]", hookOutputBytes)
		}
	}
	return w
}

// readAfterHooks re-reads the root-relative rel after the hooks, by descriptor from the root
// with no symlink followed (openDirHandle, lstat, openEntry). It returns the content when it is
// at most maxAnnouncedOldBytes (whole), the hash of all of it, and, when the file is not a
// regular file at rel any more, what became of it (gone) with hash absentHash.
func (e *Engine) readAfterHooks(rel string) (content []byte, whole bool, hash, gone string) {
	dir, name := relpath.Parent(rel)
	h, err := openDirHandle(e, dir, nil)
	if err != nil {
		return nil, false, absentHash, "is no longer reachable (its directory was removed or replaced)"
	}
	defer h.close()
	fi, err := h.lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, absentHash, "was removed by a hook"
	case err != nil:
		return nil, false, absentHash, "could not be re-read"
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, false, absentHash, "was replaced by a symlink (not followed)"
	case !fi.Mode().IsRegular():
		return nil, false, absentHash, "was replaced by something that is not a regular file"
	}
	f, _, ok := h.openEntry(name, true)
	if !ok {
		return nil, false, absentHash, "changed while it was being re-read"
	}
	defer f.Close()
	hh := text.NewHash()
	var buf limitedBuffer
	buf.limit = maxAnnouncedOldBytes
	if _, err := io.Copy(io.MultiWriter(hh, &buf), f); err != nil {
		return nil, false, absentHash, "could not be re-read"
	}
	return buf.b, !buf.over, text.ShortHash(hh), ""
}

// limitedBuffer keeps the first limit bytes written to it and notes whether there were more.
type limitedBuffer struct {
	b     []byte
	limit int
	over  bool
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	room := l.limit - len(l.b)
	if len(p) > room {
		l.over = true
	} else {
		room = len(p)
	}
	if room > 0 {
		l.b = append(l.b, p[:room]...)
	}
	return len(p), nil
}

// boundedOutput keeps the first limit bytes of a hook's output and counts the rest.
type boundedOutput struct {
	kept    []byte
	limit   int
	dropped int
}

func (b *boundedOutput) Write(p []byte) (int, error) {
	room := b.limit - len(b.kept)
	if room > len(p) {
		room = len(p)
	}
	if room > 0 {
		b.kept = append(b.kept, p[:room]...)
	}
	b.dropped += len(p) - max(room, 0)
	return len(p), nil
}
