//go:build !linux

package confine

import "runtime"

// ABI returns 0: Landlock is Linux's; nothing here is enforced by the kernel.
func ABI() (int, string) {
	return 0, "Landlock is a Linux facility; " + runtime.GOOS + " has none that fsbox uses"
}

func restrictProcess(p Policy) error { return ErrUnavailable }
