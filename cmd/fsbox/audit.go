package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/fsbox/fsbox/engine"
	"github.com/fsbox/fsbox/schema"
)

// auditFlags are the audit log flags of fsbox serve and fsbox mcp (docs/protocol.md §8).
type auditFlags struct {
	path     string
	fd       int
	maxBytes int64
	keep     int
	sync     bool
}

func (f *auditFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.path, "audit", "", "append one JSON line per call to `FILE` (schema AuditRecord in the bundle); "+
		"it must lie outside the root and every mount")
	fs.IntVar(&f.fd, "audit-fd", -1, "append the audit log to descriptor `N`, which the host opened for appending (e.g. 3>>FILE, or a pipe)")
	fs.Int64Var(&f.maxBytes, "audit-max-bytes", 0, "with --audit: rotate the log (FILE → FILE.1 …) before it grows past `BYTES`; 0 never rotates")
	fs.IntVar(&f.keep, "audit-keep", 5, "with --audit-max-bytes: rotated files kept (`N`, FILE.1 is the newest)")
	fs.BoolVar(&f.sync, "audit-sync", false, "fdatasync every audit line before the reply (durable across a power loss; a disk flush per call)")
}

// openFor opens the log the flags name for a server of cfg, nil when they name none: a path inside
// cfg's root or a mount is refused before anything is created (precheck), misuse is a usage
// error, and the log is checked against the root and mounts again once open (checkAuditOutside,
// which also covers --audit-fd). A non-zero code is the exit status, its message already written.
func (f *auditFlags) openFor(cfg schema.Config, logf func(string, ...any)) (*engine.AuditLog, int) {
	if err := f.precheck(cfg); err != nil {
		return nil, usageErrorf("%v", err)
	}
	l, usage, err := f.open(func(format string, args ...any) { logf("error: "+format, args...) })
	if err != nil {
		if usage {
			return nil, usageErrorf("%v", err)
		}
		return nil, errorf("%v", err)
	}
	if err := checkAuditOutside(l, cfg); err != nil {
		if l != nil {
			l.Close()
		}
		return nil, usageErrorf("%v", err)
	}
	return l, 0
}

// open opens the log the flags name, nil when they name none. Misuse is a usage error (the
// bool): both --audit and --audit-fd, a standard descriptor, rotation without a file name.
func (f *auditFlags) open(logf func(string, ...any)) (*engine.AuditLog, bool, error) {
	switch {
	case f.path != "" && f.fd >= 0:
		return nil, true, fmt.Errorf("--audit and --audit-fd name two logs; give one")
	case f.fd >= 0 && f.fd <= 2:
		return nil, true, fmt.Errorf("--audit-fd %d is a standard stream (the protocol or its logs); open the log on descriptor 3 or above", f.fd)
	case f.fd < -1:
		return nil, true, fmt.Errorf("--audit-fd must be a descriptor number, got %d", f.fd)
	case f.maxBytes < 0:
		return nil, true, fmt.Errorf("--audit-max-bytes must be 0 or positive, got %d", f.maxBytes)
	case f.maxBytes > 0 && f.path == "":
		return nil, true, fmt.Errorf("--audit-max-bytes rotates a log named by --audit; a descriptor (--audit-fd) cannot be renamed")
	case f.maxBytes > 0 && f.keep < 1:
		return nil, true, fmt.Errorf("--audit-keep must be at least 1 with --audit-max-bytes, got %d", f.keep)
	case f.path == "" && f.fd < 0:
		if f.sync {
			return nil, true, fmt.Errorf("--audit-sync needs --audit or --audit-fd")
		}
		return nil, false, nil
	}
	o := engine.AuditOptions{Path: f.path, MaxBytes: f.maxBytes, Keep: f.keep, Sync: f.sync, Logf: logf}
	if f.fd >= 0 {
		o.File = os.NewFile(uintptr(f.fd), "audit-fd")
		if o.File == nil {
			return nil, true, fmt.Errorf("--audit-fd %d is not an open descriptor", f.fd)
		}
	}
	l, err := engine.OpenAuditLog(o)
	if err != nil {
		name := f.path
		if name == "" {
			name = fmt.Sprintf("descriptor %d", f.fd)
		}
		return nil, false, fmt.Errorf("audit log %s: %v", name, err)
	}
	return l, false, nil
}

// checkOutside refuses, at startup, a log inside the host's root (when the host named one) or a
// mount: the sessions would refuse it at initialize anyway, once per session.
func checkAuditOutside(l *engine.AuditLog, cfg schema.Config) error {
	if l == nil {
		return nil
	}
	var dirs []string
	if cfg.RootDir != "" {
		dirs = append(dirs, cfg.RootDir)
	}
	for _, m := range cfg.Mounts {
		dirs = append(dirs, m.Dir)
	}
	return l.CheckOutside(dirs...)
}

// precheck refuses, before anything is created, a log path whose directory lies inside the
// host's root or a mount (compared by device and inode along the directory's ancestors, so a
// symlink or a second spelling does not get around it). Without it the log file would be created
// there, empty, before checkAuditOutside refused it: a stray file in the model's root.
func (f *auditFlags) precheck(cfg schema.Config) error {
	if f.path == "" {
		return nil
	}
	var roots []os.FileInfo
	var names []string
	for _, d := range append([]string{cfg.RootDir}, mountDirs(cfg)...) {
		if d == "" {
			continue
		}
		if fi, err := os.Stat(d); err == nil {
			roots, names = append(roots, fi), append(names, d)
		}
	}
	dir, err := filepath.Abs(filepath.Dir(f.path))
	if err != nil {
		return nil // OpenAuditLog reports it
	}
	for {
		if fi, err := os.Stat(dir); err == nil {
			for i, r := range roots {
				if os.SameFile(fi, r) {
					return fmt.Errorf("the audit log lies inside %s, where the model could read or change it; put it outside the root and every mount", names[i])
				}
			}
		}
		up := filepath.Dir(dir)
		if up == dir {
			return nil
		}
		dir = up
	}
}

// mountDirs are the host directories of cfg's mounts.
func mountDirs(cfg schema.Config) []string {
	var dirs []string
	for _, m := range cfg.Mounts {
		dirs = append(dirs, m.Dir)
	}
	return dirs
}
