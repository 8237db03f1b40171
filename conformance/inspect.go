package conformance

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
)

// Inspection is what the runner learns about a target once, before any vector runs: the tools it
// lists and what it says it may reach. It is also what `fsbox conformance inspect` prints.
type Inspection struct {
	Target string `json:"target"`
	// Tools the target lists, with the suite tools the mapping sends to each.
	Tools []ToolInfo `json:"tools"`
	// Coverage: per suite tool, the target tool it becomes or why it cannot (its vectors skip).
	Coverage map[string]string `json:"coverage,omitempty"`
	// NotGraded are the listed tools no suite tool maps to: nothing the suite does exercises them.
	// Destructive and command-running tools come first.
	NotGraded []ToolInfo `json:"not_graded,omitempty"`
	// AllowedDirs is what the target's own allowed-directory listing (MCP list_allowed_directories)
	// said, with the fixture's paths written as placeholders.
	AllowedDirs []string `json:"allowed_dirs,omitempty"`
	// Warnings are things the suite cannot grade but a reader must know.
	Warnings []string `json:"warnings,omitempty"`
	// StrayLines counts stdout lines that were not JSON during the inspection.
	StrayLines   int    `json:"stray_stdout_lines,omitempty"`
	StrayExcerpt string `json:"stray_stdout_excerpt,omitempty"`
}

// ToolInfo is one tool a target lists.
type ToolInfo struct {
	Name string `json:"name"`
	// Description is the first line of the tool's description, bounded.
	Description string `json:"description,omitempty"`
	// Destructive says why the tool may change or run things ("" when nothing says so): its MCP
	// annotations (destructiveHint, or not readOnlyHint with openWorldHint) or its name.
	Destructive string `json:"destructive,omitempty"`
	// From lists the suite tools the mapping sends to this tool.
	From []string `json:"from,omitempty"`
}

// preflighter is a target that can be checked once before the vectors run: a command that does
// not exist, or a server that does not start, fails the run once instead of every vector.
type preflighter interface {
	Preflight(ctx context.Context, fx *Fixture) (*Inspection, error)
}

// preSkipper is a target that knows, from its preflight, that a vector would skip: such a
// vector never starts a server.
type preSkipper interface {
	preSkip(v *Vector) string
}

// errPreflight marks a target that failed its preflight: nothing was graded.
var errPreflight = errors.New("the target did not pass the runner's start-up check; no vector ran")

// lookCommand checks that argv[0] can be started: a name on $PATH, or an existing executable.
func lookCommand(argv []string) error {
	if len(argv) == 0 {
		return fmt.Errorf("%w: empty command", errPreflight)
	}
	if _, err := exec.LookPath(argv[0]); err != nil {
		return fmt.Errorf("%w: %s: %v", errPreflight, argv[0], err)
	}
	return nil
}

// destructiveName matches tool names that run commands or change, move or remove files in bulk.
// It compiles on first use, not when the fsbox binary (fsbox serve included) starts.
var destructiveName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(^|_|-|\b)(run|exec|execute|command|shell|bash|sh|terminal|process|kill|delete|remove|rm|unlink|rmdir|move|rename|mv|copy|cp|compress|extract|zip|unzip|tar|archive|sync|rsync|chmod|chown|upload|download|install|eval|write|append|truncate|overwrite|patch|replace|put|save)(s)?($|_|-|\b)`)
})

// destructiveReason says why a tool may be destructive: annotations first, then its name.
func destructiveReason(name string, destructiveHint, readOnlyHint *bool) string {
	switch {
	case destructiveHint != nil && *destructiveHint:
		return "annotation destructiveHint"
	case readOnlyHint != nil && *readOnlyHint:
		if destructiveName().MatchString(name) {
			return "name (though annotated readOnlyHint)"
		}
		return ""
	case destructiveName().MatchString(name):
		return "name"
	}
	return ""
}

// sortNotGraded puts destructive tools first, each group by name.
func sortNotGraded(ts []ToolInfo) {
	sort.SliceStable(ts, func(i, j int) bool {
		di, dj := ts[i].Destructive != "", ts[j].Destructive != ""
		if di != dj {
			return di
		}
		return ts[i].Name < ts[j].Name
	})
}

// allowedWarnings compares the directories a target says it allows with the fixture's root: any
// that is not the root or inside it is wider than the root the runner gave, and nothing the suite
// aims at may be there to see it. Paths are written with the fixture's placeholders.
func (f *Fixture) allowedWarnings(dirs []string) (shown []string, warnings []string) {
	realRoot, _ := filepath.EvalSymlinks(f.Root)
	for _, d := range dirs {
		shown = append(shown, f.placeholders(d))
		c := filepath.Clean(d)
		if r, err := filepath.EvalSymlinks(c); err == nil {
			c = r
		}
		inside := false
		for _, root := range []string{f.Root, realRoot} {
			if root != "" && (c == root || strings.HasPrefix(c, root+string(filepath.Separator))) {
				inside = true
			}
		}
		if !inside {
			warnings = append(warnings, fmt.Sprintf("the server's own allowed-directory listing names %s, which is wider than the root it was given (%s): files there may be reachable although no vector aims at them",
				f.placeholders(d), "<root>"))
		}
	}
	return shown, warnings
}

// placeholders writes the fixture's absolute paths in s as <root>, <home>, <far>, <tmp> (the
// fixture's base) and <user-home> (the real $HOME), so messages compare across vectors.
func (f *Fixture) placeholders(s string) string {
	type pair struct{ path, name string }
	var ps []pair
	add := func(p, name string) {
		if p != "" {
			ps = append(ps, pair{p, name})
			if r, err := filepath.EvalSymlinks(p); err == nil && r != p {
				ps = append(ps, pair{r, name})
			}
		}
	}
	add(f.Root, "<root>")
	add(f.Home, "<home>")
	add(f.Far, "<far>")
	add(f.Base, "<tmp>")
	add(f.CanaryBase, "<canaries>")
	if h, err := os.UserHomeDir(); err == nil && h != "/" {
		add(h, "<user-home>")
	}
	sort.SliceStable(ps, func(i, j int) bool { return len(ps[i].path) > len(ps[j].path) })
	for _, p := range ps {
		s = strings.ReplaceAll(s, p.path, p.name)
	}
	return s
}

// absPaths picks the absolute paths out of a text, one per line or separated by commas.
func absPaths(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		for _, part := range strings.Split(line, ",") {
			part = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(part), "-"))
			if i := strings.Index(part, "/"); i >= 0 && (i == 0 || part[i-1] == ' ' || part[i-1] == ':') {
				p := strings.TrimSpace(part[i:])
				if filepath.IsAbs(p) {
					out = append(out, p)
				}
			}
		}
	}
	return out
}

// Inspect starts the target once on a fresh fixture and reports its tools, the mapping's coverage
// and warnings (`fsbox conformance inspect`). A target without a preflight of its own (server:,
// inproc, bindings) is initialized once and its tools are read from the initialize result.
func Inspect(ctx context.Context, o Options) (*Inspection, error) {
	if o.Target == nil {
		return nil, errors.New("no target")
	}
	if o.StepTimeout <= 0 {
		o.StepTimeout = 20 * time.Second
	}
	root, made, err := canaryRoot(o.CanaryDir, o.TempDir)
	if err != nil {
		return nil, err
	}
	o.CanaryDir = root
	if made {
		defer os.Remove(root)
	}
	if pf, ok := o.Target.(preflighter); ok {
		in, err := preflight(ctx, pf, &o)
		if err != nil || in != nil {
			return in, err
		}
	}
	return inspectByInitialize(ctx, &o)
}

// inspectByInitialize opens one session and lists the tools of the initialize result.
func inspectByInitialize(ctx context.Context, o *Options) (*Inspection, error) {
	base, err := os.MkdirTemp(o.TempDir, "fsconf-")
	if err != nil {
		return nil, err
	}
	cb, err := os.MkdirTemp(o.CanaryDir, "fsconf-")
	if err != nil {
		_ = os.RemoveAll(base)
		return nil, err
	}
	fx, err := newFixtureIn(base, cb, &Vector{ID: "inspect"})
	if fx == nil {
		_ = os.RemoveAll(base)
		_ = os.RemoveAll(cb)
		return nil, err
	}
	defer fx.Cleanup()
	if err != nil {
		return nil, err
	}
	sctx, cancel := context.WithTimeout(withSessionEnv(ctx, fx.homeEnv()), o.StepTimeout)
	defer cancel()
	sess, err := o.Target.Open(sctx)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errPreflight, err)
	}
	res, rpcErr, err := sess.Start(sctx, StartParams{RootDir: fx.Root, Config: map[string]any{"root_dir": fx.Root}})
	stderr := sess.Close()
	if err != nil {
		return nil, fmt.Errorf("%w: %v%s", errPreflight, err, stderrNote(stderr))
	}
	if rpcErr != nil {
		return nil, fmt.Errorf("%w: initialize failed: %s", errPreflight, show(rpcErr))
	}
	in := &Inspection{Target: o.Target.Name(), Coverage: map[string]string{}}
	suite := map[string]bool{}
	for _, t := range suiteTools() {
		suite[t] = true
	}
	m, _ := res.(map[string]any)
	listed := map[string]bool{}
	for _, n := range toolNames(m["tools"]) {
		name := asString(n)
		listed[name] = true
		info := ToolInfo{Name: name, Destructive: destructiveReason(name, nil, nil)}
		if suite[name] {
			info.From = []string{name}
		} else {
			in.NotGraded = append(in.NotGraded, info)
		}
		in.Tools = append(in.Tools, info)
	}
	for t := range suite {
		if listed[t] {
			in.Coverage[t] = t
		} else {
			in.Coverage[t] = "skipped: the target lists no tool " + t
		}
	}
	sortNotGraded(in.NotGraded)
	if sc, ok := sess.(strayCounter); ok {
		in.StrayLines, in.StrayExcerpt = sc.strayLines().get()
	}
	return in, nil
}
