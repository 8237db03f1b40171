package posthook

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/fsbox/fsbox/engine/internal/confine"
	"github.com/fsbox/fsbox/schema"
)

// Runner runs the hooks of one change: what the confinement lets them write (Write: the session
// root's top directory and the writable mounts) and read (Read: read-only mounts), whether the
// host opted out of confinement (Unconfined, where the kernel cannot confine), and how host
// paths are scrubbed from what they print (Scrub, which may lengthen a line by at most Slack
// bytes).
type Runner struct {
	Write, Read []*os.File
	Unconfined  bool
	Scrub       func(string) string
	Slack       int
}

// Run runs argv from the directory dir (at dirPath) with a timeout, confined (see the package
// comment), in a process group of its own that is killed as a group on timeout or when ctx is
// done, keeping at most OutputBytes of its output, host paths scrubbed.
func (rn *Runner) Run(ctx context.Context, dir *os.File, dirPath string, argv []string, timeout time.Duration) schema.PostEditRun {
	run := schema.PostEditRun{Cmd: make([]string, len(argv)), ExitCode: -1}
	for i, a := range argv {
		run.Cmd[i] = rn.Scrub(a)
	}
	exe := Executable(argv[0])
	if exe == "" {
		_, err := exec.LookPath(argv[0])
		run.Error = err.Error()
		return run
	}
	hctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	h := confine.Hook{Path: exe, Args: argv, Dir: dir, DirPath: dirPath, Write: rn.Write, Read: rn.Read,
		Unconfined: rn.Unconfined}
	if strings.HasPrefix(exe, "/") {
		h.Exec = []string{exe}
	}
	cmd := confine.Command(hctx, h)
	out := boundedOutput{limit: OutputBytes + rn.Slack}
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = WaitDelay
	err := confine.Run(cmd)
	kept := rn.Scrub(string(out.kept))
	if len(kept) > OutputBytes {
		out.dropped += len(kept) - OutputBytes
		kept = kept[:OutputBytes]
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
		// It exited with status 0, but a child kept its output open past WaitDelay.
		run.OK, run.ExitCode = true, 0
	default:
		run.Error = rn.Scrub(err.Error())
	}
	return run
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

// Executable resolves a hook's command the way the hook will be started: a name without a
// slash through PATH (absolute), a path with one as it is (relative to the hook's directory);
// "" when a name is not found in PATH.
func Executable(name string) string {
	if strings.Contains(name, "/") {
		return name
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return ""
	}
	return p
}
