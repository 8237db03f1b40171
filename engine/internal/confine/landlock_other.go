//go:build !linux

package confine

import "runtime"

// kernelABI returns 0: Landlock is Linux's; nothing here is enforced by the kernel.
func kernelABI() (int, string) {
	return 0, "Landlock is a Linux facility; " + runtime.GOOS + " has none that fsbox uses"
}

func restrictProcess(p Policy) error { return ErrUnavailable }
