//go:build !linux

package confine

import (
	"context"
	"os/exec"
)

func launcherAvailable() bool { return false }

// Command returns the command that runs h without a launcher: this platform has no kernel
// confinement fsbox uses, so it runs only when the host opted in (Hook.Unconfined), by path from
// h.DirPath. Cancelling kills its process group where there is one.
func Command(ctx context.Context, h Hook) *exec.Cmd {
	cmd := exec.CommandContext(ctx, h.Path, h.Args[1:]...)
	cmd.Args = h.Args
	cmd.Dir = h.DirPath
	ownProcessGroup(cmd)
	return cmd
}
