package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fsbox/fsbox/engine/internal/fserr"
	"github.com/fsbox/fsbox/schema"
)

// hostRoot resolves the host's root for a session layered over the host's policy
// (Options.Host): it returns the resolved host root, the session root the configuration asks for
// (cfg.RootDir taken from the host root when relative, the host root when empty), and the
// session root relative to the host root ("." for the host root itself).
//
// It refuses, naming root_dir and without naming the host's root, a session root that resolves
// outside the host's root; the check is on fully resolved paths, and openWithin repeats it on
// descriptors, so neither a symlink in the configuration nor one swapped in meanwhile can widen it.
func hostRoot(cfg *schema.Config, opts Options) (hostReal, given, rel string, err *Error) {
	hostGiven := opts.Host.RootDir
	if hostGiven == "" {
		hostGiven = opts.DefaultRoot
	}
	if hostGiven == "" {
		hostGiven = "."
	}
	abs, aerr := filepath.Abs(hostGiven)
	if aerr == nil {
		hostReal, aerr = filepath.EvalSymlinks(abs)
	}
	if aerr != nil {
		return "", "", "", &Error{Op: "new", Kind: schema.KindInvalidArguments, Msg: "The host's root_dir cannot be resolved.", Err: aerr}
	}
	given = cfg.RootDir
	switch {
	case given == "":
		return hostReal, hostReal, ".", nil
	case !filepath.IsAbs(given):
		given = filepath.Join(hostReal, given)
	}
	outside := fserr.Config("root_dir: %s is outside the host's root. The host fixed the policy: "+
		"root_dir may only name a directory inside the host's root (a relative root_dir is taken from it).", fserr.PyRepr(cfg.RootDir))
	// Refuse what is lexically outside before looking at the disk, so the answer tells a client
	// nothing about what exists outside the host's root.
	given = filepath.Clean(given)
	if _, ok := within(hostReal, given); !ok {
		if _, ok := within(abs, given); !ok {
			return "", "", "", outside
		}
	}
	real, rerr := filepath.EvalSymlinks(given)
	if rerr != nil {
		return "", "", "", fserr.Config("root_dir: %s does not exist or cannot be resolved", fserr.PyRepr(cfg.RootDir))
	}
	rel, ok := within(hostReal, real)
	if !ok {
		return "", "", "", outside
	}
	return hostReal, given, rel, nil
}

// within returns p relative to dir and whether p is dir or below it (both absolute and clean).
func within(dir, p string) (string, bool) {
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// openWithin opens the directory rel (host-root-relative, resolved, "." for the root itself)
// below hostReal one component at a time: each component is Lstat'ed, must be a directory and no
// symlink, and the directory opened must be the one Lstat saw. A component swapped for a symlink
// or another directory while this runs fails the open instead of redirecting it.
func openWithin(hostReal, rel string) (*os.Root, error) {
	cur, err := os.OpenRoot(hostReal)
	if err != nil {
		return nil, err
	}
	if rel == "." {
		return cur, nil
	}
	for _, comp := range strings.Split(filepath.ToSlash(rel), "/") {
		fi, err := cur.Lstat(comp)
		if err == nil && !fi.IsDir() {
			err = fmt.Errorf("%s is not a directory", comp)
		}
		var next *os.Root
		if err == nil {
			next, err = cur.OpenRoot(comp)
		}
		if err == nil {
			var got os.FileInfo
			if got, err = next.Stat("."); err == nil && !os.SameFile(fi, got) {
				err = fmt.Errorf("%s changed while it was opened", comp)
			}
			if err != nil {
				next.Close()
			}
		}
		cur.Close()
		if err != nil {
			return nil, err
		}
		cur = next
	}
	return cur, nil
}
