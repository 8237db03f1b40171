package engine

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fsbox/fsbox/engine/internal/confine"
	"github.com/fsbox/fsbox/engine/internal/fserr"
	"github.com/fsbox/fsbox/engine/internal/ignore"
	"github.com/fsbox/fsbox/engine/internal/posthook"
	"github.com/fsbox/fsbox/schema"
)

// The kernel behind the engine (engine/internal/confine says what each layer protects against
// and what it does not). The process-wide choice is the host's, made once at startup with
// [ConfigureSandbox]: with Mode "auto" or "required", the first engine of the process confines
// the whole process with Landlock right after it opened its root and mounts, before it serves a
// call; later engines (narrower sessions of the same host) lie within it. Without a
// ConfigureSandbox call (tests, libraries) the process is left as it is. Post-edit hooks are
// confined per run whatever the mode, where the kernel can; where it cannot, an engine with
// hooks is refused unless the host opted in with UnconfinedHooks.

// SandboxOptions is the host's choice of confinement.
type SandboxOptions struct {
	// Mode is "auto" (confine when the kernel can), "required" (refuse to serve without it) or
	// "off" (the host confines the process itself); "" is "off".
	Mode string
	// UnconfinedHooks runs post_edit hooks with the server's own rights where no kernel
	// confinement is available; without it an engine with hooks is refused there.
	UnconfinedHooks bool
}

var sandboxCfg struct {
	sync.Mutex
	opts SandboxOptions
	mode confine.Mode
}

// ConfigureSandbox records the host's choice for the engines the process makes next. Mode
// "required" is refused here when the kernel offers no Landlock, so the host learns it at
// startup, not at the first session.
func ConfigureSandbox(o SandboxOptions) error {
	mode := confine.Off
	if o.Mode != "" {
		var err error
		if mode, err = confine.ParseMode(o.Mode); err != nil {
			return err
		}
	}
	if mode == confine.Required {
		if abi, why := confine.ABI(); abi == 0 {
			return fmt.Errorf("--sandbox required: %s, so fsbox cannot confine itself; use --sandbox auto or off to run unconfined", why)
		}
	}
	sandboxCfg.Lock()
	defer sandboxCfg.Unlock()
	sandboxCfg.opts, sandboxCfg.mode = o, mode
	return nil
}

func sandboxSettings() (confine.Mode, bool) {
	sandboxCfg.Lock()
	defer sandboxCfg.Unlock()
	if sandboxCfg.mode == "" {
		return confine.Off, sandboxCfg.opts.UnconfinedHooks
	}
	return sandboxCfg.mode, sandboxCfg.opts.UnconfinedHooks
}

// SandboxAvailable reports the Landlock ABI the kernel offers, or 0 and why there is none.
func SandboxAvailable() (int, string) { return confine.ABI() }

// ProcessSandbox reports the process's confinement: "abi N", "unavailable" or "off".
func ProcessSandbox() string {
	mode, _ := sandboxSettings()
	if abi := confine.Confined(); abi > 0 {
		return "abi " + strconv.Itoa(abi)
	}
	if mode == confine.Off {
		return "off"
	}
	return "unavailable"
}

// Sandbox reports the confinement in force for this engine's session.
func (e *Engine) Sandbox() schema.Sandbox {
	s := schema.Sandbox{Landlock: ProcessSandbox(), Hooks: "none"}
	switch {
	case len(e.postEdit) == 0:
	case e.hooksUnconfined:
		s.Hooks = "unconfined"
	default:
		s.Hooks = "confined"
	}
	return s
}

// checkHookSandbox refuses hooks where they cannot be confined, unless the host opted in.
func (e *Engine) checkHookSandbox() *Error {
	if len(e.postEdit) == 0 || confine.HooksConfinable() {
		return nil
	}
	if _, optIn := sandboxSettings(); optIn {
		e.hooksUnconfined = true
		return nil
	}
	_, why := confine.ABI()
	if why == "" {
		why = "the hook launcher needs /proc/self/exe"
	}
	return fserr.Config("post_edit: hooks run model-named files through host commands and need the kernel's confinement, which is not available here (%s); "+
		"remove post_edit, or let the host run them unconfined (fsbox serve/mcp --allow-unconfined-hooks)", why)
}

// confineProcess confines the process to this engine's root and mounts when the host asked for
// it; a no-op when the process is already confined or the mode is off.
func (e *Engine) confineProcess() error {
	mode, _ := sandboxSettings()
	if mode == confine.Off || confine.Confined() > 0 {
		return nil
	}
	if abi, _ := confine.ABI(); abi == 0 {
		if mode == confine.Required {
			return fmt.Errorf("--sandbox required: %w", confine.ErrUnavailable)
		}
		return nil // auto: reported as "unavailable"; the command said so on stderr at startup
	}
	p := confine.Policy{ReadWrite: []string{fdPath(e.top, e.rootDir)}}
	for _, m := range e.mounts.all() {
		if m.readOnly {
			p.ReadOnly = append(p.ReadOnly, fdPath(m.top, m.dir))
		} else {
			p.ReadWrite = append(p.ReadWrite, fdPath(m.top, m.dir))
		}
	}
	if dir := e.audit.rotateDir(); dir != "" {
		p.Logs = append(p.Logs, dir) // rotating the audit log (audit.go)
	}
	if e.jr != nil {
		// The journal lies outside the root and every mount (checkpoint.go).
		p.ReadWrite = append(p.ReadWrite, fdPath(e.jr.Dir(), e.jr.Path()))
	}
	for i := range e.postEdit {
		if exe := posthook.Executable(e.postEdit[i].Cmd[0]); exe != "" && strings.HasPrefix(exe, "/") {
			p.Exec = append(p.Exec, exe)
		}
	}
	// What the process would otherwise load lazily from outside the root, loaded now.
	time.Now().Zone()
	excludes.Lock()
	defer excludes.Unlock()
	if e.ignore != nil {
		excludes.pats, excludes.kept = e.ignore.global, true
	} else {
		excludes.pats, excludes.kept = ignore.GlobalExcludes(), true
	}
	if _, err := confine.Process(p); err != nil {
		excludes.pats, excludes.kept = nil, false
		return err // in auto mode too: the kernel offers Landlock, so a failure is not "unavailable"
	}
	return nil
}

// excludes keeps the host's global git excludes as read just before the process was confined:
// the file lives outside the root (~/.config/git/ignore), so engines made later in the process
// (fsbox mcp's narrower sessions) could no longer read it.
var excludes struct {
	sync.Mutex
	pats []ignore.Rule
	kept bool
}

// hostExcludes returns the host's global excludes: read now, or as kept at confinement.
func hostExcludes() []ignore.Rule {
	excludes.Lock()
	defer excludes.Unlock()
	if excludes.kept {
		return excludes.pats
	}
	return ignore.GlobalExcludes()
}

// fdPath names the directory f is open on, so the rule is made for that very directory and not
// for whatever its path names later; the path itself where /proc is not mounted.
func fdPath(f *os.File, path string) string {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		return path
	}
	return "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
}

// all returns the mounts, none for a nil table.
func (t *mountTable) all() []*mount {
	if t == nil {
		return nil
	}
	return t.list
}
