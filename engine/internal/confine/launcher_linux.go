package confine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// The hook launcher: this binary, re-executed through /proc/self/exe with argv[0] launcherArg0
// and launcherEnv=1 (both, so neither a stray environment variable nor a renamed binary turns a
// server into a launcher). It only ever narrows: it changes into the directory descriptor it was
// given, applies the hook's ruleset (nested under the server's own, so the two intersect), and
// runs the hook as its child in the process group the engine created for it. It stays to
// supervise: when the server dies, by SIGKILL too, the parent-death signal (SIGTERM) reaches the
// launcher, which kills its whole process group, the hook and the hook's children with it.
//
// What the group does not catch: a hook's child that starts a session or group of its own
// (a daemon) outlives it; nothing but a cgroup would hold it.
const (
	launcherArg0 = "fsbox-hook-launcher"
	launcherEnv  = "FSBOX_HOOK_LAUNCHER"
)

// launchSpec is the launcher's first argument: what to run and the descriptors to use (numbers
// in the launcher: os/exec places ExtraFiles from 3 on).
type launchSpec struct {
	Path       string   `json:"path"`
	Dir        int      `json:"dir"`
	Write      []int    `json:"write,omitempty"`
	Read       []int    `json:"read,omitempty"`
	Exec       []string `json:"exec,omitempty"`
	Unconfined bool     `json:"unconfined,omitempty"`
}

func init() {
	if len(os.Args) < 3 || os.Args[0] != launcherArg0 || os.Getenv(launcherEnv) != "1" {
		return
	}
	os.Exit(launch(os.Args[1], os.Args[2:]))
}

func launcherAvailable() bool {
	_, err := os.Stat("/proc/self/exe")
	return err == nil
}

// Command returns the command that runs h under the launcher; ctx cancels it (the whole
// process group is killed).
func Command(ctx context.Context, h Hook) *exec.Cmd {
	files := []*os.File{h.Dir}
	spec := launchSpec{Path: h.Path, Dir: 3, Exec: h.Exec, Unconfined: h.Unconfined}
	for _, f := range h.Write {
		spec.Write = append(spec.Write, 3+len(files))
		files = append(files, f)
	}
	for _, f := range h.Read {
		spec.Read = append(spec.Read, 3+len(files))
		files = append(files, f)
	}
	b, _ := json.Marshal(spec)
	cmd := exec.CommandContext(ctx, "/proc/self/exe")
	cmd.Args = append([]string{launcherArg0, string(b)}, h.Args...)
	cmd.Env = append(os.Environ(), launcherEnv+"=1")
	cmd.ExtraFiles = files
	ownProcessGroup(cmd)
	cmd.SysProcAttr.Pdeathsig = syscall.SIGTERM
	return cmd
}

// launch is the launcher's main; it returns the exit status.
func launch(arg string, argv []string) int {
	runtime.LockOSThread() // the hook's parent-death signal follows this thread
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
	var s launchSpec
	if err := json.Unmarshal([]byte(arg), &s); err != nil || s.Path == "" || s.Dir < 3 {
		return launchFail("bad launch arguments")
	}
	if err := unix.Fchdir(s.Dir); err != nil {
		return launchFail("cannot enter the hook's directory: " + err.Error())
	}
	fds := append(append([]int{s.Dir}, s.Write...), s.Read...)
	if !s.Unconfined {
		rules := baseRules(s.Exec)
		if len(s.Write) > 0 {
			rules = append(rules, landlock.RWDirs(fdPaths(s.Write)...).WithRefer())
		}
		if len(s.Read) > 0 {
			rules = append(rules, landlock.RODirs(fdPaths(s.Read)...))
		}
		if err := restrictThread(rules); err != nil {
			return launchFail("cannot confine the hook (Landlock): " + err.Error())
		}
	}
	for _, fd := range fds {
		unix.CloseOnExec(fd)
	}
	env := make([]string, 0, len(os.Environ()))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, launcherEnv+"=") {
			env = append(env, kv)
		}
	}
	cmd := exec.Command(s.Path)
	cmd.Args = argv
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	// Should the launcher itself be killed (SIGKILL, not the SIGTERM it catches), the hook goes too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return launchFail(fmt.Sprintf("cannot run %s: %v", argv[0], err))
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-sigs:
		syscall.Kill(0, syscall.SIGKILL) // the group: the hook, its children and this launcher
		<-done
		return 128 + int(syscall.SIGKILL)
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				// Die of the same signal, so the engine reports what killed the hook.
				signal.Reset(ws.Signal())
				syscall.Kill(os.Getpid(), ws.Signal())
				return 128 + int(ws.Signal())
			}
			return ee.ExitCode()
		}
		if err != nil {
			return launchFail(err.Error())
		}
		return 0
	}
}

// restrictThread confines the calling thread, locked since launch began and never unlocked, from
// which the hook is then started: the child inherits that thread's domain. Only this thread is
// confined (the launcher's others do nothing but wait): an all-threads enforcement through libpsx
// would list /proc/self/task, which the server's own domain does not let the launcher read.
func restrictThread(rules []landlock.Rule) error {
	fd, flags, err := config().NewRulesetFD(rules...)
	if err != nil {
		return err
	}
	if fd < 0 {
		return ErrUnavailable
	}
	defer unix.Close(fd)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	return llsys.LandlockRestrictSelf(fd, flags)
}

func fdPaths(fds []int) []string {
	out := make([]string, len(fds))
	for i, fd := range fds {
		out[i] = "/proc/self/fd/" + strconv.Itoa(fd)
	}
	return out
}

// launchFail reports a launcher failure on the hook's output (it becomes part of the run's
// output) and returns status 126, the shell's "cannot execute".
func launchFail(msg string) int {
	fmt.Fprintln(os.Stderr, "fsbox: post_edit hook: "+msg)
	return 126
}
