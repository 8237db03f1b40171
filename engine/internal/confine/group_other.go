//go:build !unix

package confine

import "os/exec"

// ownProcessGroup is a no-op where process groups are not available: cancelling kills the
// command itself (exec.CommandContext's default), not its children.
func ownProcessGroup(cmd *exec.Cmd) {}
