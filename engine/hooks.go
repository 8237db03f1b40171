package engine

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/fsbox/fsbox/engine/internal/posthook"
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
//     parent-death signal kills the group; at most posthook.OutputBytes of output are kept;
//   - a hook that moves the file out from under the engine: the content after the hooks is
//     re-read by descriptor from the root with O_NOFOLLOW (readAfterHooks), so a file the hook
//     removed or replaced with a symlink is reported as such, never followed.
//
// It does not protect against what a hook does inside the root: the engine's access rules
// (denied files, protected paths) are fsbox's, not the kernel's, and a hook, like any host
// command, is not held to them; nor against a hook's child that leaves its process group. A
// hook's failure is a warning in the result, never a rollback: the change has landed.

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
	var matched []*posthook.Hook
	for i := range e.postEdit {
		if e.postEdit[i].Matches(e.hookPrefix + rel) {
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
	runner := e.hookRunner()
	for _, h := range matched {
		run := runner.Run(c.ctx, dir, dirPath, h.Argv(file), h.Timeout)
		run.Path = h.Src.Path
		a.runs = append(a.runs, run)
		if w := posthook.Warning(run, h.Timeout, verb); w != "" {
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

// hookRunner is how this Engine's hooks run (posthook.Runner): writing in the root and the
// writable mounts, reading the read-only ones, host paths scrubbed from their output.
func (e *Engine) hookRunner() *posthook.Runner {
	rn := &posthook.Runner{Write: []*os.File{e.top}, Unconfined: e.hooksUnconfined, Scrub: e.scrubHostPaths, Slack: e.longestHostPath()}
	for _, m := range e.mounts.all() {
		if m.readOnly {
			rn.Read = append(rn.Read, m.top)
		} else {
			rn.Write = append(rn.Write, m.top)
		}
	}
	return rn
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
