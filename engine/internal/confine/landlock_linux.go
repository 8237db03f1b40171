package confine

import (
	"fmt"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// kernelABI returns the Landlock ABI version the kernel offers, or 0 and why there is none.
func kernelABI() (int, string) {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil || v < 1 {
		if err == nil {
			err = fmt.Errorf("ABI version %d", v)
		}
		return 0, fmt.Sprintf("the kernel offers no Landlock (%v)", err)
	}
	if v < 2 {
		// ABI 1 refuses every rename between directories (move_file needs them), and
		// go-landlock's best effort then falls back to enforcing nothing at all: reporting
		// "abi 1" would be a claim without a confinement behind it.
		return 0, "the kernel's Landlock is ABI 1, which cannot allow renames between directories (Linux 5.19 or later is needed)"
	}
	return v, ""
}

// config is every filesystem access right and IPC scope go-landlock knows, negotiated down to
// what the kernel offers (best effort). Network rights are not handled: fsbox mcp --http accepts
// connections, and the engine opens none.
func config() landlock.Config {
	c := landlock.V11
	c.HandledAccessNet = 0
	return c.BestEffort()
}

// systemDirs are read (and executed) beneath by the process and its hooks: where programs and
// their shared libraries live. Missing ones are skipped.
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/nix/store"}

// systemFiles are single files read by the dynamic loader, the C library and the Go runtime.
// Missing ones are skipped. /etc as a whole is not readable (it can hold keys).
var systemFiles = []string{"/etc/ld.so.cache", "/etc/ld.so.preload", "/etc/localtime", "/etc/passwd",
	"/etc/group", "/etc/nsswitch.conf", "/etc/ssl/openssl.cnf", "/etc/pki/tls/openssl.cnf",
	"/dev/zero", "/dev/urandom", "/dev/random"}

// systemCertDirs hold the public CA certificates TLS libraries load at start (node does).
var systemCertDirs = []string{"/etc/ssl/certs", "/etc/pki/tls/certs", "/etc/ca-certificates"}

// baseRules are what every confined fsbox process and hook may reach besides the root and
// mounts: the system's programs and libraries, a few files, /dev/null for writing, the fsbox
// binary (the hook launcher) and the given executables.
func baseRules(exec []string) []landlock.Rule {
	rules := []landlock.Rule{
		landlock.RODirs(systemDirs...).IgnoreIfMissing(),
		landlock.RODirs(systemCertDirs...).IgnoreIfMissing(),
		landlock.ROFiles(systemFiles...).IgnoreIfMissing(),
		landlock.RWFiles("/dev/null"),
		landlock.ROFiles("/proc/self/exe"), // the running binary, however it was reached
	}
	if len(exec) > 0 {
		rules = append(rules, landlock.ROFiles(exec...).IgnoreIfMissing())
		if dirs := installDirs(exec); len(dirs) > 0 {
			rules = append(rules, landlock.RODirs(dirs...).IgnoreIfMissing())
		}
	}
	return rules
}

func policyRules(p Policy) []landlock.Rule {
	rules := baseRules(p.Exec)
	if len(p.ReadWrite) > 0 {
		// Refer: move_file renames between directories of the root (and of a writable mount).
		rules = append(rules, landlock.RWDirs(p.ReadWrite...).WithRefer())
	}
	if len(p.ReadOnly) > 0 {
		rules = append(rules, landlock.RODirs(p.ReadOnly...))
	}
	if len(p.Logs) > 0 {
		// A rotation renames within one directory (no refer) and creates the new file.
		rules = append(rules, landlock.PathAccess(llsys.AccessFSMakeReg|llsys.AccessFSRemoveFile|llsys.AccessFSWriteFile, p.Logs...))
	}
	return rules
}

func restrictProcess(p Policy) error {
	if err := config().Restrict(policyRules(p)...); err != nil {
		return fmt.Errorf("Landlock: %w", err)
	}
	return nil
}
