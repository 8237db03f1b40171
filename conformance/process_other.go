//go:build !unix

package conformance

import "os/exec"

// ownProcessGroup does nothing here: without process groups only the child itself is killed, and
// Wait's WaitDelay abandons pipes its descendants hold.
func ownProcessGroup(cmd *exec.Cmd) {}

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
