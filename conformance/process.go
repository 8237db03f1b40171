package conformance

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// process is a child speaking on its stdio: a server, an adapter or an MCP server under test.
//
// The runner must end every vector whatever the child does: exit at once, write garbage, stall,
// or leave children of its own holding its pipes. So the child runs in its own process group
// (unix), Close kills that whole group when EOF on stdin has not ended it within the grace
// period, and Wait gives up on pipes still held open after killDelay. What this does not protect
// against: a grandchild that moves itself into another process group or session (a daemon) is
// outside the group and survives; its pipes are abandoned, not drained.
type process struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	stderr *capBuffer
	once   sync.Once
	err    error
	// grace is how long Close waits for the child to exit after stdin EOF before killing its group.
	grace time.Duration
	// exited closes when the child has been reaped; exitErr is what Wait returned.
	exited  chan struct{}
	exitErr error
}

// killDelay bounds how long Wait waits for the stdio copying after the child exited or was
// killed: a grandchild outside the group may hold the pipes forever.
const killDelay = 2 * time.Second

func startProcess(argv []string, dir string) (*process, error) {
	return startProcessGrace(argv, dir, 5*time.Second, nil)
}

// startProcessGrace starts argv in dir; env holds NAME=value pairs that override the runner's
// own environment (a fake HOME).
func startProcessGrace(argv []string, dir string, grace time.Duration, env []string) (*process, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.WaitDelay = killDelay
	ownProcessGroup(cmd)
	p := &process{cmd: cmd, stderr: &capBuffer{max: 64 << 10}, grace: grace, exited: make(chan struct{})}
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if p.stdout, err = cmd.StdoutPipe(); err != nil {
		return nil, err
	}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", strings.Join(argv, " "), err)
	}
	go func() {
		p.exitErr = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// close closes stdin (EOF ends a well-behaved server), waits up to the grace period, then kills
// the child's process group. Whatever the child's descendants do, close returns within
// grace + killDelay + a moment.
func (p *process) close() error {
	p.once.Do(func() {
		_ = p.stdin.Close()
		select {
		case <-p.exited:
			// The child is gone; descendants left in its group are killed too, so none holds
			// on to files of the fixture being removed.
			killGroup(p.cmd)
		case <-time.After(p.grace):
			killGroup(p.cmd)
			<-p.exited
			p.stderr.Write([]byte(fmt.Sprintf("\n[conformance: killed with its process group: stdin EOF did not end it within %s]\n", p.grace)))
		}
		p.err = p.exitErr
	})
	return p.err
}

// kill ends the child and its group at once (a call that timed out: the session is dead).
func (p *process) kill() {
	killGroup(p.cmd)
}

// gone reports whether the child has exited, with its exit error.
func (p *process) gone() (bool, error) {
	select {
	case <-p.exited:
		return true, p.exitErr
	default:
		return false, nil
	}
}

// envKey carries the environment overrides a session's process gets (sessionEnv).
type envKey struct{}

// withSessionEnv returns ctx carrying NAME=value pairs for the processes a target starts for
// one session: the runner gives every server it starts a fake $HOME of canaries this way.
func withSessionEnv(ctx context.Context, env []string) context.Context {
	return context.WithValue(ctx, envKey{}, env)
}

// sessionEnv returns the environment overrides ctx carries.
func sessionEnv(ctx context.Context) []string {
	env, _ := ctx.Value(envKey{}).([]string)
	return env
}
