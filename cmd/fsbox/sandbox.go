package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/fsbox/fsbox/engine"
	"github.com/fsbox/fsbox/schema"
)

// sandboxFlags are the confinement flags of fsbox serve and fsbox mcp (docs/protocol.md §6).
type sandboxFlags struct {
	mode            string
	unconfinedHooks bool
}

func (f *sandboxFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.mode, "sandbox", "auto", "kernel confinement of the server and its hooks: `auto|required|off` "+
		"(auto: Landlock where the kernel offers it; required: refuse to start without it; off: the host confines the process itself)")
	fs.BoolVar(&f.unconfinedHooks, "allow-unconfined-hooks", false, "run post_edit hooks with the server's own rights where no kernel "+
		"confinement is available (without it such hooks are refused there)")
}

// apply records the choice for the engines the command makes, before the first: a mode the
// kernel cannot honour ("required" without Landlock) is an error. Where Landlock is unavailable
// and the mode is auto, it says so on stderr: containment then rests on fsbox's own checks.
func (f *sandboxFlags) apply(cfg schema.Config) error {
	if err := engine.ConfigureSandbox(engine.SandboxOptions{Mode: f.mode, UnconfinedHooks: f.unconfinedHooks}); err != nil {
		return err
	}
	if abi, why := engine.SandboxAvailable(); abi == 0 {
		if f.mode != "off" {
			fmt.Fprintf(os.Stderr, "fsbox: warning: no kernel confinement: %s; containment rests on fsbox's own checks\n", why)
		}
		switch {
		case len(cfg.PostEdit) > 0 && f.unconfinedHooks:
			fmt.Fprintln(os.Stderr, "fsbox: warning: post_edit hooks run unconfined, with the server's rights (--allow-unconfined-hooks)")
		case len(cfg.PostEdit) > 0:
			fmt.Fprintln(os.Stderr, "fsbox: warning: post_edit hooks cannot be confined here and are refused; --allow-unconfined-hooks runs them anyway")
		}
	}
	return nil
}

// sandboxVersionLine is the confinement line of fsbox --version: what the kernel offers here.
func sandboxVersionLine() string {
	if abi, why := engine.SandboxAvailable(); abi > 0 {
		return fmt.Sprintf("sandbox: landlock abi %d\n", abi)
	} else {
		return "sandbox: unavailable (" + why + ")\n"
	}
}
