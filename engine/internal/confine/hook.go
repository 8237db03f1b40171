package confine

import (
	"os"
	"os/exec"
	"runtime"
)

// Hook is one run of a host command on a file the model changed.
type Hook struct {
	// Path is the executable: absolute (already looked up in PATH), or relative with a slash,
	// resolved from Dir.
	Path string
	// Args is the argument vector, Args[0] included.
	Args []string
	// Dir is the directory the hook starts in, a descriptor the engine opened and checked;
	// DirPath is its path, used only where there is no launcher.
	Dir     *os.File
	DirPath string
	// Write are the directories the hook may change beneath (the root, writable mounts); Read
	// those it may only read beneath (read-only mounts).
	Write, Read []*os.File
	// Exec are files it may execute besides the system's (its own executable).
	Exec []string
	// Unconfined runs it without a ruleset of its own: the host opted in where the kernel
	// offers none. The launcher still ties it to the server's life where it exists.
	Unconfined bool
}

// HooksConfinable reports whether a hook can run under a Landlock ruleset of its own here.
func HooksConfinable() bool {
	abi, _ := ABI()
	return abi > 0 && launcherAvailable()
}

// Run runs cmd, a command from [Command], to its end. Where the parent-death signal is used, it
// is tied to the thread that started the child, not the process (golang/go#27505): the thread is
// locked for the whole run, so the runtime cannot retire it while the hook runs.
func Run(cmd *exec.Cmd) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return cmd.Run()
}
