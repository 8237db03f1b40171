//go:build unix

package conformance

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup starts the child as the leader of a new process group, so killGroup reaches
// the children it leaves behind.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup sends SIGKILL to the child's whole process group (the group outlives its leader).
func killGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Process.Kill()
}
