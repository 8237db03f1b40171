// Package confine puts the kernel behind fsbox's containment. On Linux it uses Landlock (through
// github.com/landlock-lsm/go-landlock, the reference Go binding, rather than raw system calls) in
// two places:
//
//   - the process: once the engine has opened its root and mounts, [Process] limits the whole
//     fsbox process to reading and writing beneath the root and writable mounts, reading beneath
//     read-only mounts, and reading and executing what it and its hooks need to run (the system's
//     program and library directories, the fsbox binary, the hooks' executables, a few files of
//     /etc and /dev). So an engine bug cannot reach ~/.ssh or write outside the root, whatever
//     path it was tricked into opening;
//   - each post_edit hook: [Command] starts the hook through this binary re-executed as a launcher
//     that applies a ruleset of its own (writes beneath the root and writable mounts only, reads
//     beneath the mounts and what it needs to run) and then runs the hook from a directory
//     descriptor the engine already checked. Nested domains intersect, so a hook is never wider
//     than the process. The launcher also ties the hook's process group to the server's life.
//
// What it does not protect against: anything inside the root (the engine's access rules, such as
// denied credential files, are fsbox's own, not the kernel's: Landlock can only allow beneath a
// directory, not carve out of it); network access (not restricted, so fsbox mcp --http still
// works); reading the system's directories (/usr and the like); a kernel without Landlock, where
// [ABI] is 0 and the caller decides (fsbox serve --sandbox required refuses to start). macOS and
// Windows have no equivalent here: the state is "unavailable" and nothing is enforced by the
// kernel there.
package confine

import (
	"errors"
	"fmt"
	"os"
	"sync"
)

// Mode is the host's choice of process confinement (--sandbox).
type Mode string

const (
	// Auto confines when the kernel can, and says so on stderr when it cannot.
	Auto Mode = "auto"
	// Required refuses to serve without confinement.
	Required Mode = "required"
	// Off leaves the process unconfined, for hosts that confine it themselves. Hooks are still
	// confined when the kernel can.
	Off Mode = "off"
)

// ParseMode checks a --sandbox value.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case Auto, Required, Off:
		return m, nil
	}
	return "", fmt.Errorf("--sandbox %q: want auto, required or off", s)
}

// abiOverride, when set, stands in for the kernel's answer (SetABIForTesting).
var abiOverride struct {
	sync.Mutex
	f func() (int, string)
}

// SetABIForTesting makes [ABI] answer f, or the kernel again when f is nil: tests use it to see
// what fsbox does where Landlock is missing. It can only narrow what runs (an ABI of 0 refuses
// hooks and leaves "unavailable"); nothing outside the module's Go API reaches it.
func SetABIForTesting(f func() (int, string)) {
	abiOverride.Lock()
	defer abiOverride.Unlock()
	abiOverride.f = f
}

// ABI returns the Landlock ABI version the kernel offers, or 0 and why there is none.
func ABI() (int, string) {
	abiOverride.Lock()
	f := abiOverride.f
	abiOverride.Unlock()
	if f != nil {
		return f()
	}
	return kernelABI()
}

// ErrUnavailable is returned where the kernel offers no confinement.
var ErrUnavailable = errors.New("Landlock is not available")

// Policy is what the process may reach once confined.
type Policy struct {
	// ReadWrite are directories the process may read and change beneath (the root, writable
	// mounts). Paths are opened when the rules are made; "/proc/self/fd/N" names a descriptor.
	ReadWrite []string
	// ReadOnly are directories it may read beneath (read-only mounts).
	ReadOnly []string
	// Exec are files it may read and execute besides the system's (the hooks' executables).
	Exec []string
	// Logs are directories where it may create, write, rename and remove files, but not read
	// them, list them or make anything else: the directory of an audit log it rotates.
	Logs []string
}

var process struct {
	sync.Mutex
	abi     int // the ABI the process was confined with, 0 if not
	applied bool
}

// Confined returns the Landlock ABI the process confined itself with, 0 when it did not.
func Confined() int {
	process.Lock()
	defer process.Unlock()
	return process.abi
}

// Process confines the whole process to p, once: a later call is a no-op that returns the
// ABI of the first (a confinement cannot be widened, and the engines made later in the process,
// for narrower sessions, lie within the first one's root). It returns the ABI applied, or an
// error, [ErrUnavailable] wrapped where the kernel has no Landlock.
func Process(p Policy) (int, error) {
	process.Lock()
	defer process.Unlock()
	if process.applied {
		return process.abi, nil
	}
	abi, reason := ABI()
	if abi == 0 {
		return 0, fmt.Errorf("%w: %s", ErrUnavailable, reason)
	}
	if err := restrictProcess(p); err != nil {
		return 0, err
	}
	if err := verifyConfined(p); err != nil {
		return 0, err
	}
	process.applied, process.abi = true, abi
	return abi, nil
}

// verifyConfined checks that the kernel now refuses what the rules leave out: listing "/" (unless
// a rule covers "/" itself). A binding that fell back to enforcing nothing (best effort on a
// kernel it cannot serve) would otherwise have the server claim a confinement it does not have.
func verifyConfined(p Policy) error {
	top, err := os.Stat("/")
	if err != nil {
		return nil
	}
	for _, d := range append(append([]string{}, p.ReadWrite...), p.ReadOnly...) {
		if fi, err := os.Stat(d); err == nil && os.SameFile(fi, top) {
			return nil // the root is "/": nothing is left out to check against
		}
	}
	f, err := os.Open("/")
	if err == nil {
		f.Close()
		return errors.New("Landlock: the ruleset was accepted but / is still readable; the process is not confined")
	}
	return nil
}
