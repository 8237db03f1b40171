package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"
)

// Options configure one run of the suite.
type Options struct {
	Target Target
	// Vectors to run; nil means the embedded suite.
	Vectors []*Vector
	// Filter keeps vectors whose id matches one of these globs (doublestar); empty keeps all.
	Filter []string
	// Tags keeps vectors carrying a tag that matches one of these globs ("CVE-*", "read_file");
	// empty keeps all. Filter and Tags must both keep a vector.
	Tags []string
	// Profile is "strict" (the default: every expectation) or "security" (outcome only: what
	// replies reveal, what changes outside, refusals containment demands; see docs/conformance.md).
	Profile  string
	Baseline *Baseline
	// Parallel is how many vectors run at once (default 4).
	Parallel int
	// StepTimeout bounds one step (default 20s); a hang is a failure, not a stuck run.
	StepTimeout time.Duration
	// VectorTimeout bounds a whole vector, session start and stop included (default 3m).
	VectorTimeout time.Duration
	// TempDir holds the fixtures (default os.TempDir()).
	TempDir string
	// CanaryDir holds each vector's fake $HOME and its canary tree outside the temp directory
	// (default: <user cache dir>/fsbox-conformance). It must not be inside TempDir; the runner
	// removes what it made there.
	CanaryDir string
	// OnResult, when set, is called as each vector ends (from one goroutine at a time), with the
	// number of results so far and the total: progress and an incremental report hang off it.
	OnResult func(done, total int, r Result)
	// OnStart, when set, is called once before the first vector, with what the preflight saw
	// (nil for targets without one) and the number of vectors that will run.
	OnStart func(in *Inspection, total int)
}

// Result is the outcome of one vector.
type Result struct {
	ID       string `json:"id"`
	Category string `json:"category"`
	// Status is pass, fail, skip, xfail (failed and listed in the baseline) or xpass (listed in the
	// baseline but passed: a failure of the run).
	Status string   `json:"status"`
	Tags   []string `json:"tags,omitempty"`
	// Failures are the failure messages; Details the same failures with class and whole value
	// (the report's "failures").
	Failures   []string  `json:"-"`
	Details    []Failure `json:"failures,omitempty"`
	Reason     string    `json:"reason,omitempty"`
	DurationMS int64     `json:"duration_ms"`
	Stderr     string    `json:"stderr,omitempty"`
	// StrayLines counts the target's stdout lines that were not JSON (skipped, not failed).
	StrayLines int `json:"stray_stdout_lines,omitempty"`
	strayFirst string
}

// Summary is a whole run.
type Summary struct {
	Target  string
	Results []Result
	// Stale lists baseline entries that match no vector of the suite.
	Stale []string
	// Inspection is what the preflight saw (tools, not graded, warnings); nil without one.
	Inspection *Inspection
	// StrayLines counts stdout lines that were not JSON over the whole run; StrayExcerpt is the
	// first, bounded.
	StrayLines   int
	StrayExcerpt string
	// Profile is the profile the run graded by.
	Profile string
}

// ByClass counts failed vectors by their most severe failure class, in Severity order.
func (s *Summary) ByClass() []ClassCount {
	n := map[string]int{}
	for _, r := range s.Results {
		if r.Status == "fail" || r.Status == "xfail" {
			n[r.WorstClass()]++
		}
	}
	var out []ClassCount
	for _, c := range append(append([]string{}, Severity...), "") {
		if n[c] > 0 {
			out = append(out, ClassCount{c, n[c]})
		}
	}
	return out
}

// ClassCount is how many failed vectors have Class as their most severe failure.
type ClassCount struct {
	Class   string `json:"class"`
	Vectors int    `json:"vectors"`
}

// Counts returns passed, failed (including xpass and stale baseline entries), skipped and known
// (xfail) counts.
func (s *Summary) Counts() (passed, failed, skipped, known int) {
	for _, r := range s.Results {
		switch r.Status {
		case "pass":
			passed++
		case "fail", "xpass":
			failed++
		case "skip":
			skipped++
		case "xfail":
			known++
		}
	}
	return passed, failed + len(s.Stale), skipped, known
}

// OK reports whether the run matched the baseline exactly.
func (s *Summary) OK() bool { _, f, _, _ := s.Counts(); return f == 0 }

// Run runs the suite against o.Target.
func Run(ctx context.Context, o Options) (*Summary, error) {
	if o.Target == nil {
		return nil, errors.New("no target")
	}
	all := o.Vectors
	if all == nil {
		var err error
		if all, err = Embedded(); err != nil {
			return nil, err
		}
	}
	if c := loadContract(); c.err != nil {
		return nil, fmt.Errorf("schema bundle: %w", c.err)
	}
	tagMap, err := loadTagMap()
	if err != nil {
		return nil, err
	}
	var vs []*Vector
	for _, v := range all {
		if matchesAny(o.Filter, v.ID) && HasTag(o.Tags, v.AllTags(tagMap)) {
			vs = append(vs, v)
		}
	}
	switch o.Profile {
	case "":
		o.Profile = ProfileStrict
	case ProfileStrict, ProfileSecurity:
	default:
		return nil, fmt.Errorf("unknown profile %q: want strict or security", o.Profile)
	}
	canaryRoot, made, err := canaryRoot(o.CanaryDir, o.TempDir)
	if err != nil {
		return nil, err
	}
	o.CanaryDir = canaryRoot
	if made {
		defer os.Remove(canaryRoot) // only if empty: a concurrent run may be using it
	}
	if o.Parallel <= 0 {
		o.Parallel = 4
	}
	if o.StepTimeout <= 0 {
		o.StepTimeout = 20 * time.Second
	}
	if o.VectorTimeout <= 0 {
		o.VectorTimeout = 3 * time.Minute
	}
	caps := platformCaps()
	for k, v := range o.Target.Capabilities() {
		caps[k] = v
	}
	s := &Summary{Target: o.Target.Name(), Profile: o.Profile}
	if pf, ok := o.Target.(preflighter); ok && len(vs) > 0 {
		in, err := preflight(ctx, pf, &o)
		if err != nil {
			return nil, err
		}
		s.Inspection = in
	}
	if o.OnStart != nil {
		o.OnStart(s.Inspection, len(vs))
	}
	if o.Baseline != nil {
		s.Stale = o.Baseline.stale(all)
	}
	results := make([]Result, len(vs))
	var wg sync.WaitGroup
	var doneMu sync.Mutex
	done := 0
	sem := make(chan struct{}, o.Parallel)
	for i, v := range vs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			r := &runner{o: &o, v: v, caps: caps, policy: HasTag([]string{TagPolicy}, v.AllTags(tagMap))}
			res := r.run(ctx)
			res.Tags = v.AllTags(tagMap)
			if o.Baseline != nil {
				o.Baseline.mark(&res)
			}
			results[i] = res
			doneMu.Lock()
			done++
			if o.OnResult != nil {
				o.OnResult(done, len(vs), res)
			}
			doneMu.Unlock()
		}()
	}
	wg.Wait()
	s.Results = results
	if in := s.Inspection; in != nil && in.StrayLines > 0 {
		s.StrayLines, s.StrayExcerpt = in.StrayLines, in.StrayExcerpt
	}
	for _, r := range results {
		if r.StrayLines > 0 && s.StrayExcerpt == "" {
			s.StrayExcerpt = r.strayFirst
		}
		s.StrayLines += r.StrayLines
	}
	return s, nil
}

// preflight checks the target once on a fixture of its own (fake $HOME and far canaries
// included), so a command that cannot start fails the run once.
func preflight(ctx context.Context, pf preflighter, o *Options) (*Inspection, error) {
	base, err := os.MkdirTemp(o.TempDir, "fsconf-")
	if err != nil {
		return nil, err
	}
	cb, err := os.MkdirTemp(o.CanaryDir, "fsconf-")
	if err != nil {
		_ = os.RemoveAll(base)
		return nil, err
	}
	fx, err := newFixtureIn(base, cb, &Vector{ID: "preflight"})
	if fx != nil {
		defer fx.Cleanup()
	} else {
		_ = os.RemoveAll(base)
		_ = os.RemoveAll(cb)
	}
	if err != nil {
		return nil, fmt.Errorf("runner: building the preflight fixture: %w", err)
	}
	pctx, cancel := context.WithTimeout(withSessionEnv(ctx, fx.homeEnv()), o.StepTimeout)
	defer cancel()
	return pf.Preflight(pctx, fx)
}

// canaryRoot returns the directory for fake homes and far canaries: dir, or the user's cache
// directory's fsbox-conformance; made reports whether the runner created it. It refuses a
// directory inside the temp directory, where a server allowing the temp directory would reach it
// unnoticed.
func canaryRoot(dir, tempDir string) (string, bool, error) {
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return "", false, fmt.Errorf("no directory for the canaries outside the temp directory (%v): pass one (--canary-dir)", err)
		}
		dir = filepath.Join(cache, "fsbox-conformance")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", false, err
	}
	made := false
	if _, err := os.Stat(abs); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(abs, 0o755); err != nil {
			return "", false, fmt.Errorf("canary directory: %w", err)
		}
		made = true
	}
	if tempDir == "" {
		tempDir = os.TempDir()
	}
	if within, _ := pathWithin(abs, tempDir); within {
		return "", false, fmt.Errorf("the canary directory %s is inside the temp directory %s: pick one outside it (--canary-dir)", abs, tempDir)
	}
	return abs, made, nil
}

// pathWithin reports whether p is dir or below it, symlinks resolved.
func pathWithin(p, dir string) (bool, error) {
	rp, err := filepath.EvalSymlinks(p)
	if err != nil {
		return false, err
	}
	rd, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return false, err
	}
	return rp == rd || strings.HasPrefix(rp, rd+string(filepath.Separator)), nil
}

// Matches reports whether id matches one of the filter globs (all ids match an empty filter).
func Matches(globs []string, id string) bool { return matchesAny(globs, id) }

func matchesAny(globs []string, id string) bool {
	if len(globs) == 0 {
		return true
	}
	for _, g := range globs {
		if ok, _ := doublestar.Match(g, id); ok || g == id || strings.HasPrefix(id, strings.TrimSuffix(g, "/")+"/") {
			return true
		}
	}
	return false
}

// runner runs one vector.
type runner struct {
	o    *Options
	v    *Vector
	caps map[string]bool
	fx   *Fixture
	m    *matcher
	sess Session
	mu   sync.Mutex
	bad  []Failure
	// canaries are the outside bytes and names no reply may carry.
	canaries canarySet
	// events is the events capability the session was opened with.
	events bool
	// root is the root_dir of the initialize result when the vector chose the root itself
	// (config.root_dir); events must carry it. "" means the fixture root, resolved.
	root string
	// policy: the vector is tagged policy, so the security profile does not fail a target for
	// not refusing its calls (what replies reveal and what changes outside still fail it).
	policy bool
}

// failf records a failure of a class with the whole offending value (nil: none); change-request
// answers call it from the connection's goroutines.
func (r *runner) failf(class string, value any, format string, args ...any) {
	msg := excerpt(fmt.Sprintf(format, args...), maxMessageBytes)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bad = append(r.bad, Failure{Class: class, Message: msg, Value: boundValue(value)})
}

// addFailures records messages of one class.
func (r *runner) addFailures(class string, msgs ...string) {
	for _, m := range msgs {
		r.failf(class, nil, "%s", m)
	}
}

// mismatches records matcher lines, each classified by what it is about; value is the whole
// value that was matched.
func (r *runner) mismatches(lines []string, value any) {
	for _, l := range lines {
		r.failf(mismatchClass(l), value, "%s", l)
	}
}

func (r *runner) security() bool { return r.o.Profile == ProfileSecurity }

func (r *runner) failures() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.bad)
}

func (r *runner) run(ctx context.Context) (res Result) {
	start := time.Now()
	res = Result{ID: r.v.ID, Category: r.v.Category}
	defer func() { res.DurationMS = time.Since(start).Milliseconds() }()
	if missing := r.missingCaps(); len(missing) > 0 {
		res.Status, res.Reason = "skip", "needs "+strings.Join(missing, ", ")
		return res
	}
	if ps, ok := r.o.Target.(preSkipper); ok {
		if reason := ps.preSkip(r.v); reason != "" {
			res.Status, res.Reason = "skip", reason
			return res
		}
	}
	runnerFail := func(msg string) Result {
		res.Status = "fail"
		res.Details = []Failure{{Class: ClassRunner, Message: "runner: " + msg}}
		res.Failures = []string{res.Details[0].Message}
		return res
	}
	base, err := os.MkdirTemp(r.o.TempDir, "fsconf-")
	if err != nil {
		return runnerFail(err.Error())
	}
	cb, err := os.MkdirTemp(r.o.CanaryDir, "fsconf-")
	if err != nil {
		_ = os.RemoveAll(base)
		return runnerFail(err.Error())
	}
	fx, err := newFixtureIn(base, cb, r.v)
	if fx == nil {
		_ = os.RemoveAll(base)
		_ = os.RemoveAll(cb)
		return runnerFail("building the fixture: " + err.Error())
	}
	defer fx.Cleanup()
	if err != nil {
		return runnerFail("building the fixture: " + err.Error())
	}
	r.fx = fx
	r.m = &matcher{vars: map[string]any{}, fx: fx}
	r.canaries = fx.canaries(r.v)
	outsideBefore, err := fx.snapshotOutside()
	if err != nil {
		return runnerFail(err.Error())
	}
	skip := r.body(ctx)
	if r.sess != nil {
		res.Stderr = tail(r.sess.Close(), 4000)
		if sc, ok := r.sess.(strayCounter); ok {
			res.StrayLines, res.strayFirst = sc.strayLines().get()
		}
		if wc, ok := r.sess.(wireCapable); ok {
			for _, v := range wc.Violations() {
				r.failf(ClassCrash, nil, "wire: %s", v)
			}
		}
	}
	if skip != "" && r.failures() == 0 {
		res.Status, res.Reason = "skip", skip
		return res
	}
	if outsideAfter, err := fx.snapshotOutside(); err != nil {
		r.failf(ClassRunner, nil, "runner: %v", err)
	} else {
		for _, d := range diffSnapshots(outsideBefore, outsideAfter) {
			r.failf(ClassOutsideWrite, d.path, "%s", d.msg)
		}
	}
	if len(r.bad) > 0 {
		res.Status, res.Details = "fail", r.bad
		for _, f := range r.bad {
			res.Failures = append(res.Failures, f.Class+": "+f.Message)
		}
	} else {
		res.Status, res.Stderr = "pass", ""
	}
	return res
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// missingCaps lists the vector's requirements the platform or target lacks; steps that need the
// raw protocol imply their requirement.
func (r *runner) missingCaps() []string {
	need := map[string]bool{}
	for _, c := range r.v.Requires {
		need[c] = true
	}
	if r.v.Handshake == "manual" {
		need["raw_wire"] = true
	}
	need["host_config"] = r.v.HostConfig != nil
	if r.v.Init != nil || r.v.RootViaSymlink {
		need["initialize"] = true // the outcome of fsbox's initialize is what the vector checks
	}
	for k := range r.v.Config {
		if k != "tools" { // a tool selection is met by any target that has the tools
			need["config"] = true
		}
	}
	if r.v.ChangeRequests {
		need["change_requests"] = true
	}
	if r.v.ResultShape != nil {
		need["result_shape"] = true
	}
	entry := func(e Entry) {
		need["fifo"] = need["fifo"] || e.FIFO
		need["symlinks"] = need["symlinks"] || e.Symlink != nil
	}
	for _, e := range r.v.Workspace {
		entry(e)
	}
	for _, e := range r.v.Outside {
		entry(e)
	}
	var steps func([]Step)
	steps = func(list []Step) {
		for _, st := range list {
			if st.Events != nil && !r.security() {
				need["events"] = true
			}
			if policyKinds[expectedKind(st.Error)] {
				// The refusal comes from fsbox's policy (its default protected patterns, or the
				// vector's config): only a target that takes fsbox's config can be held to it.
				need["config"] = true
			}
			need["raw_wire"] = need["raw_wire"] || st.Raw != nil
			need["methods"] = need["methods"] || (st.Method != "" && !isResourceMethod(st.Method))
			need["mcp_resources"] = need["mcp_resources"] || isResourceMethod(st.Method)
			need["pipelining"] = need["pipelining"] || st.Parallel != nil
			for _, op := range st.FS {
				entry(op.Entry)
			}
			for _, a := range st.Answers {
				need["change_request_fs"] = need["change_request_fs"] || a.FS != nil
				need["change_request_error"] = need["change_request_error"] || a.Error != nil
				need["change_request_raw"] = need["change_request_raw"] || a.RawResult != nil
				need["cancel"] = need["cancel"] || a.Cancel
				need["pipelining"] = need["pipelining"] || a.Calls != nil
				for _, op := range a.FS {
					entry(op.Entry)
				}
				steps(a.Calls)
			}
			steps(st.Parallel)
		}
	}
	steps(r.v.Steps)
	var missing []string
	for _, c := range sortedKeys(need) {
		if need[c] && !r.caps[c] {
			missing = append(missing, c)
		}
	}
	return missing
}

// body opens the session and runs the steps; it returns a skip reason when the target declined.
func (r *runner) body(ctx context.Context) string {
	vctx, cancel := context.WithTimeout(withSessionEnv(ctx, r.fx.homeEnv()), r.o.VectorTimeout)
	defer cancel()
	var sess Session
	var err error
	if r.v.HostConfig != nil {
		var file string
		if file, err = r.writeHostConfig(); err == nil {
			sess, err = r.o.Target.(hostConfigurable).OpenWithConfig(vctx, file)
		}
	} else {
		sess, err = r.o.Target.Open(vctx)
	}
	var skipErr *skipError
	if errors.As(err, &skipErr) {
		return skipErr.reason
	}
	if err != nil {
		r.failf(errorClass(err), nil, "opening a session: %v", err)
		return ""
	}
	r.sess = sess
	if r.v.Handshake != "manual" {
		ok, skip := r.initialize(vctx)
		if !ok {
			return skip
		}
	}
	for i := range r.v.Steps {
		label := fmt.Sprintf("step %d", i+1)
		if l := r.v.Steps[i].Label; l != "" {
			label += " (" + l + ")"
		}
		before := r.failures()
		if skip := r.step(vctx, &r.v.Steps[i], label); skip != "" {
			return skip
		}
		if r.failures() > before {
			break // later steps build on this one; their failures would only repeat it
		}
	}
	if vctx.Err() != nil && r.failures() == 0 {
		r.failf(ClassTimeout, nil, "the vector did not finish within %s", r.o.VectorTimeout)
	}
	if r.failures() == 0 && !r.security() {
		r.addFailures(ClassWrongOutcome, r.fx.Check(r.v.After)...)
		r.addFailures(ClassWrongOutcome, r.fx.CheckMounted(r.v.AfterMounted)...)
	}
	return ""
}

// writeHostConfig writes the vector's host_config over {root_dir: <fixture root>} as JSON into
// the fixture's base directory (outside both trees) and returns the file's path.
func (r *runner) writeHostConfig() (string, error) {
	cfg := map[string]any{"root_dir": r.fx.RootArg}
	for k, val := range r.v.HostConfig {
		cfg[k] = r.fx.ExpandAll(val)
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		return "", err
	}
	file := filepath.Join(r.fx.Base, "host-config.json")
	return file, os.WriteFile(file, b, 0o644)
}

// initialize opens the session; it reports whether the steps can run, and a skip reason when the
// target declined the configuration.
func (r *runner) initialize(ctx context.Context) (bool, string) {
	cfg := map[string]any{"root_dir": r.fx.RootArg}
	overridesRoot := false
	for k, val := range r.v.Config {
		cfg[k] = r.fx.ExpandAll(val)
		overridesRoot = overridesRoot || k == "root_dir"
	}
	r.events = r.v.Events == nil || *r.v.Events
	sctx, cancel := context.WithTimeout(ctx, r.o.StepTimeout)
	defer cancel()
	res, rpcErr, err := r.sess.Start(sctx, StartParams{RootDir: asString(cfg["root_dir"]), Config: cfg,
		Events: r.events, ChangeRequests: r.v.ChangeRequests, ResultShape: r.v.ResultShape})
	var skip *skipError
	if errors.As(err, &skip) {
		return false, "adapter: " + skip.reason
	}
	if err != nil {
		r.failf(errorClass(err), nil, "initialize: %v", err)
		return false, ""
	}
	if m, ok := res.(map[string]any); ok {
		if r.caps["descriptors"] && rpcErr == nil {
			// Offering descriptors means reporting the whole result (bindings: as the SDK decoded
			// it), so it must fit the bundle.
			if reason := validate(loadContract().init, m); reason != "" {
				r.failf(ClassWrongOutcome, m, "initialize: result does not fit the schema bundle: %s", reason)
			}
		}
		m["tool_names"] = toolNames(m["tools"])
		if overridesRoot && rpcErr == nil {
			r.root = asString(m["root_dir"])
		}
		if !overridesRoot && rpcErr == nil {
			real, _ := filepath.EvalSymlinks(r.fx.Root)
			if got := asString(m["root_dir"]); got != real {
				r.failf(ClassWrongOutcome, got, "initialize: root_dir is %q, want the resolved root %q", got, real)
			}
		}
		withoutRoot := map[string]any{}
		for k, v := range m {
			if k != "root_dir" {
				withoutRoot[k] = v
			}
		}
		r.checkLeaks("initialize result", withoutRoot, nil)
	}
	if r.v.Init != nil {
		if r.v.Init.Error != nil {
			if rpcErr == nil {
				r.failf(ClassWrongOutcome, res, "initialize: succeeded, want error %s", show(r.v.Init.Error))
				return false, ""
			}
			if !r.security() {
				r.mismatches(r.m.match(r.v.Init.Error, rpcErr, "initialize.error"), rpcErr)
			}
			r.checkLeaks("initialize error", rpcErr, any(cfg))
			return false, "" // a session that failed to open has nothing more to run
		}
		if rpcErr == nil && !r.security() {
			r.mismatches(r.m.match(r.v.Init.Result, res, "initialize.result"), res)
		}
	}
	if rpcErr != nil {
		r.failf(ClassWrongOutcome, rpcErr, "initialize failed: %s", show(rpcErr))
		return false, ""
	}
	return true, ""
}

func toolNames(tools any) []any {
	var out []any
	list, _ := tools.([]any)
	for _, t := range list {
		switch x := t.(type) {
		case string:
			out = append(out, x)
		case map[string]any:
			out = append(out, x["name"])
		}
	}
	if out == nil {
		out = []any{}
	}
	return out
}

// step runs one step; failures go to r.bad. It returns a skip reason when the target declined.
// A step whose action could not run (the target failed or declined) skips the step's after
// check.
func (r *runner) step(ctx context.Context, st *Step, label string) string {
	sctx, cancel := context.WithTimeout(ctx, r.o.StepTimeout)
	defer cancel()
	if err := r.fx.Apply(st.FS); err != nil {
		r.failf(ClassRunner, nil, "%s: runner fs change: %v", label, err)
		return ""
	}
	skipped, ran := "", true
	switch {
	case st.Call != "":
		skipped, ran = r.callStep(sctx, st, label)
	case st.Method != "":
		skipped, ran = r.methodStep(sctx, st, label)
	case st.Raw != nil:
		ran = r.rawStep(sctx, st, label)
	case st.Parallel != nil:
		ran = r.parallelStep(sctx, st, label)
	}
	if !ran || skipped != "" {
		return skipped
	}
	if !r.security() {
		r.addFailures(ClassWrongOutcome, prefixAll(label+": ", r.fx.Check(st.After))...)
	}
	return ""
}

// callStep runs a step's tool call and checks its outcome. A call that must be refused for
// containment or policy must change nothing in the root either: the root is snapshotted before
// and after it (scripted disk changes during its change requests are the runner's own, so a
// call with scripted answers is not).
func (r *runner) callStep(ctx context.Context, st *Step, label string) (skipped string, ran bool) {
	args := r.fx.ExpandAll(r.subst(st.Args))
	var rootBefore map[string]string
	if securityKinds[expectedKind(st.Error)] && len(st.Answers) == 0 {
		rootBefore, _ = Snapshot(r.fx.Root)
	}
	out, err := r.sess.Call(ctx, st.Call, args, r.answerFunc(st.Answers, label))
	if skipped, ran := r.checkAnswer(label, st.Call, st, out, err, args); skipped != "" || !ran {
		return skipped, ran
	}
	if rootBefore != nil {
		if after, err := Snapshot(r.fx.Root); err == nil {
			for _, d := range diffSnapshots(rootBefore, after) {
				r.failf(ClassOutsideWrite, d.path, "%s: %s: refused call changed the root: %s", label, st.Call,
					strings.TrimPrefix(d.msg, "outside tree: "))
			}
		}
	}
	return "", true
}

// methodStep sends a step's protocol method (not a tool) and checks its outcome.
func (r *runner) methodStep(ctx context.Context, st *Step, label string) (skipped string, ran bool) {
	rq, _ := r.sess.(requester)
	params := r.fx.ExpandAll(r.subst(st.Params))
	out, err := rq.Request(ctx, st.Method, params)
	return r.checkAnswer(label, st.Method, st, out, err, sentByMethod(st.Method, params))
}

// checkAnswer checks what the target answered to the call or method name: a failure of the
// target fails the step (ran false), a target that declined skips it, else the outcome is
// checked against the step's expectations (sent: what was sent, for the leak check).
func (r *runner) checkAnswer(label, name string, st *Step, out *Outcome, err error, sent any) (skipped string, ran bool) {
	if err != nil {
		r.failf(errorClass(err), nil, "%s: %s: %v", label, name, err)
		return "", false
	}
	if out.Skipped != "" {
		return out.Skipped, true
	}
	r.checkOutcome(label+": "+name, st, out, sent)
	return "", true
}

// rawStep writes a step's raw line to the wire and matches the responses, in any order, and
// checks them for leaks.
func (r *runner) rawStep(ctx context.Context, st *Step, label string) (ran bool) {
	wc, _ := r.sess.(wireCapable)
	line, err := r.rawLine(st.Raw)
	if err != nil {
		r.failf(ClassRunner, nil, "%s: bad raw line in vector: %v", label, err)
		return false
	}
	got, err := wc.Raw(ctx, line, len(st.Responses), st.ExpectEOF)
	if err != nil {
		r.failf(errorClass(err), nil, "%s: %v", label, err)
	}
	if got == nil {
		got = []any{}
	}
	want := st.Responses
	if want == nil {
		want = []any{}
	}
	if !r.security() {
		r.mismatches(r.m.unordered(want, got, label+": responses"), got)
	}
	r.checkLeaks(label+": responses", got, rawStrings(line))
	return true
}

// parallelStep sends a step's calls at once and compares how many ended in each outcome (ok or
// an error kind) with the step's outcomes; which call got which is not fixed.
func (r *runner) parallelStep(ctx context.Context, st *Step, label string) (ran bool) {
	wc, _ := r.sess.(wireCapable)
	args := make([]any, len(st.Parallel))
	for i := range st.Parallel {
		args[i] = r.fx.ExpandAll(r.subst(st.Parallel[i].Args))
	}
	outs, err := wc.Parallel(ctx, st.Parallel, args)
	if err != nil {
		r.failf(errorClass(err), nil, "%s: %v", label, err)
		return false
	}
	counts := map[string]int{}
	for i, o := range outs {
		if o.Error != nil {
			counts[asString(o.Error["kind"])]++
		} else {
			counts["ok"]++
		}
		r.checkLeaks(fmt.Sprintf("%s: call %d", label, i+1), o.Result, []any{args[i], o.Sent})
	}
	want := map[string]int{}
	for k, n := range st.Outcomes {
		if n > 0 {
			want[k] = n
		}
	}
	if show(counts) != show(want) && !r.security() {
		r.failf(ClassWrongOutcome, counts, "%s: outcomes %s, want %s", label, show(counts), show(want))
	}
	return true
}

func prefixAll(p string, ss []string) []string {
	for i := range ss {
		ss[i] = p + ss[i]
	}
	return ss
}

// answerFunc plays the scripted answers in order, approving once they run out.
func (r *runner) answerFunc(answers []Answer, label string) AnswerFunc {
	var mu sync.Mutex
	n := 0
	return func(params any) (any, *RPCError) {
		// Only taking the next answer is serialised: side calls made while this change request is
		// pending may cause change requests of their own.
		mu.Lock()
		i := n
		n++
		mu.Unlock()
		if i >= len(answers) {
			return map[string]any{"approve": true}, nil
		}
		a := answers[i]
		if err := r.fx.Apply(a.FS); err != nil {
			r.failf(ClassRunner, nil, "%s: runner fs change during the change request: %v", label, err)
		}
		r.sideCalls(a.Calls, label+": while the change request is pending")
		if a.Error != nil {
			return nil, a.Error
		}
		if a.Cancel {
			return nil, cancelAnswer
		}
		if a.RawResult != nil {
			return a.RawResult, nil
		}
		res := map[string]any{"approve": a.Approve}
		if a.Reason != "" {
			res["reason"] = a.Reason
		}
		if a.Decision != "" {
			res["decision"] = a.Decision
		}
		if a.Content != nil {
			res["content"] = *a.Content
		}
		if a.Arguments != nil {
			res["arguments"] = r.fx.ExpandAll(r.subst(a.Arguments))
		}
		return res, nil
	}
}

// sideCalls makes calls while another call waits on its change request and checks their results.
func (r *runner) sideCalls(calls []Step, label string) {
	wc, _ := r.sess.(wireCapable)
	for i := range calls {
		st := &calls[i]
		ctx, cancel := context.WithTimeout(context.Background(), r.o.StepTimeout)
		args := r.fx.ExpandAll(r.subst(st.Args))
		out, err := wc.Side(ctx, st.Call, args)
		cancel()
		if err != nil {
			r.failf(errorClass(err), nil, "%s: %s: %v", label, st.Call, err)
			continue
		}
		side := *st
		side.Events, side.ChangeRequests = nil, nil
		r.checkOutcome(fmt.Sprintf("%s: %s", label, st.Call), &side, out, args)
	}
}

// checkOutcome matches an outcome and runs the checks every outcome gets. The security profile
// grades only what the outcome reveals and whether a refusal that containment or policy demands
// happened; the strict profile grades every expectation.
func (r *runner) checkOutcome(label string, st *Step, out *Outcome, sent any) {
	sent = []any{sent, out.Sent}
	if r.security() {
		if securityKinds[expectedKind(st.Error)] && out.Error == nil && !r.policy {
			r.failf(ClassNotRefused, out.Result, "%s: succeeded, but the call must be refused (%s)", label, expectedKind(st.Error))
		}
		r.checkLeaks(label, out.Result, sent)
		r.checkLeaks(label+": error", out.Error, sent)
		return
	}
	m := r.m
	switch {
	case st.Error != nil:
		if out.Error == nil {
			class := ClassWrongOutcome
			if securityKinds[expectedKind(st.Error)] {
				class = ClassNotRefused
			}
			r.failf(class, out.Result, "%s: succeeded with %s, want error %s", label, show(out.Result), show(st.Error))
		} else {
			r.mismatches(m.match(st.Error, out.Error, label+": error"), out.Error)
		}
	case out.Error != nil:
		class := ClassWrongOutcome
		if k := asString(out.Error["kind"]); k == "unknown_tool" || k == "tool_unavailable" {
			class = ClassMissingFeature
		}
		r.failf(class, out.Error, "%s: failed with %s", label, show(out.Error))
	case st.Result != nil:
		r.mismatches(m.match(st.Result, out.Result, label+": result"), out.Result)
	}
	if st.Events != nil {
		r.mismatches(m.match(st.Events, nonNil(out.Events), label+": events"), out.Events)
	}
	if st.ChangeRequests != nil {
		r.mismatches(m.match(st.ChangeRequests, nonNil(out.ChangeRequests), label+": change_requests"), out.ChangeRequests)
	}
	r.checkLeaks(label, out.Result, sent)
	r.checkLeaks(label+": error", out.Error, sent)
	if !r.events && len(out.Events) > 0 {
		r.failf(ClassWrongOutcome, out.Events, "%s: %d events sent although the client did not ask for events", label, len(out.Events))
	}
	if out.Error != nil {
		if len(out.Events) > 0 {
			r.failf(ClassWrongOutcome, out.Events, "%s: failed but emitted events %s (failed calls emit nothing)", label, show(out.Events))
		}
		if st.Call != "" && r.caps["descriptors"] {
			r.checkErrorShape(label, out.Error)
		}
	} else if st.Call != "" && r.caps["descriptors"] && r.bundleShape() {
		if reason := validate(loadContract().results[st.Call], out.Result); reason != "" {
			r.failf(ClassWrongOutcome, out.Result, "%s: result does not fit the schema bundle: %s", label, reason)
		}
	}
	r.checkEvents(label, out.Events)
	r.checkEvents(label+": change request", out.ChangeRequests)
}

// bundleShape reports whether the session's results have the shape the bundle's output schemas
// describe ("both", the default); the other shapes are held to the vector's own matchers only.
func (r *runner) bundleShape() bool {
	return r.v.ResultShape == nil || *r.v.ResultShape == "both"
}

// expectedKind is the error kind an expectation names ("" for none or a matcher).
func expectedKind(want any) string {
	m, _ := want.(map[string]any)
	return asString(m["kind"])
}

func nonNil(v []any) []any {
	if v == nil {
		return []any{}
	}
	return v
}

// checkErrorShape holds every tool error to section 3: a known kind, the code and retry flag that
// go with it, and a root-relative path.
func (r *runner) checkErrorShape(label string, e map[string]any) {
	code := fmt.Sprint(e["code"])
	kind := asString(e["kind"])
	if code == "-32800" {
		return
	}
	retry, known := loadContract().kinds[kind]
	if !known {
		r.failf(ClassWrongKind, e, "%s: error %s has no known kind (data.kind)", label, show(e))
		return
	}
	want := "-32002"
	if retry {
		want = "-32001"
	}
	if kind == "invalid_arguments" || kind == "unknown_tool" {
		want = "-32602"
	}
	if code != want {
		r.failf(ClassWrongKind, e, "%s: kind %s came with code %s, want %s", label, kind, code, want)
	}
	if got, ok := e["retry"].(bool); !ok || got != retry {
		r.failf(ClassWrongKind, e, "%s: kind %s came with retry %v, want %v", label, kind, e["retry"], retry)
	}
	if p := asString(e["path"]); strings.HasPrefix(p, "/") {
		r.failf(ClassHostPath, p, "%s: error path %q is not root-relative", label, p)
	}
}

// checkEvents holds events to section 7: the bundle's shape, the resolved root, root-relative paths.
func (r *runner) checkEvents(label string, evs []any) {
	real, _ := filepath.EvalSymlinks(r.fx.Root)
	if r.root != "" {
		real = r.root
	}
	for i, e := range evs {
		m, _ := e.(map[string]any)
		kind := asString(m["kind"])
		s, ok := loadContract().events[kind]
		if !ok {
			r.failf(ClassWrongOutcome, e, "%s: event %d has unknown kind %q", label, i+1, kind)
			continue
		}
		if reason := validate(s, e); reason != "" {
			r.failf(ClassWrongOutcome, e, "%s: event %d (%s) does not fit the schema bundle: %s", label, i+1, kind, reason)
		}
		if got := asString(m["root_dir"]); got != real {
			r.failf(ClassWrongOutcome, e, "%s: event %d root_dir %q, want the resolved root %q", label, i+1, got, real)
		}
		if p := asString(m["path"]); strings.HasPrefix(p, "/") || p == ".." || strings.HasPrefix(p, "../") {
			r.failf(ClassHostPath, e, "%s: event %d path %q is not root-relative", label, i+1, p)
		}
	}
}

// checkLeaks fails a reply that carries outside bytes or names (both profiles) or a host path.
// The strict profile counts any path below the fixture's base that the client did not send; the
// security profile excuses what the client already knows (see Fixture.securityLeaks).
func (r *runner) checkLeaks(label string, v any, sent any) {
	sentStrs := stringsIn(sent)
	for _, l := range r.canaries.find(v, sentStrs) {
		r.failf(ClassOutsideRead, l.value, "%s: reveals %s", label, l.what)
	}
	var leaks []string
	if r.security() {
		leaks = r.fx.securityLeaks(v, sentStrs, r.v)
	} else {
		leaks = r.fx.leaks(v, sentStrs)
	}
	for _, l := range leaks {
		r.failf(ClassHostPath, l, "%s: reveals a host path: %s", label, shorten(l, r.fx))
	}
}

// leaks returns the strings of v that contain the fixture's absolute location, after removing
// the strings the client sent itself (echoing the model's own spelling is fine).
func (f *Fixture) leaks(v any, sent []string) []string {
	var host []string
	for _, s := range sent {
		for _, v := range sentForms(s) {
			if f.namesHost(v) {
				host = append(host, v)
			}
		}
	}
	sort.Slice(host, func(i, j int) bool { return len(host[i]) > len(host[j]) })
	var out []string
	for _, s := range stringsIn(v) {
		t := s
		for _, h := range host {
			t = strings.ReplaceAll(t, h, "")
		}
		if f.namesHost(t) {
			out = append(out, s)
		}
	}
	return out
}

// sentForms are the spellings a sent string may come back in: as sent, quoted the way Go and JSON
// escape control characters, and cut before the first control character (a reply that shows
// "<path>\x00.png" still only echoes what was sent).
func sentForms(s string) []string {
	out := []string{s}
	if q := strconv.Quote(s); q[1:len(q)-1] != s {
		out = append(out, q[1:len(q)-1])
	}
	if i := strings.IndexFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }); i > 0 {
		out = append(out, s[:i])
	}
	return out
}

func shorten(s string, f *Fixture) string {
	i := -1
	for _, b := range f.hostBases() {
		if i = strings.Index(s, b); b != "" && i >= 0 {
			break
		}
	}
	if i < 0 {
		return fmt.Sprintf("%q", excerpt(s, 200))
	}
	lo, hi := max(0, i-60), min(len(s), i+len(f.Base)+120)
	return fmt.Sprintf("%q", s[lo:hi])
}

func stringsIn(v any) []string {
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			out = append(out, x)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for k, e := range x {
				out = append(out, k)
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

// rawStrings returns the JSON strings of a raw line (each of its lines), which the client sent.
func rawStrings(line []byte) []any {
	var out []any
	for _, l := range strings.Split(string(line), "\n") {
		var v any
		if json.Unmarshal([]byte(l), &v) == nil {
			out = append(out, v)
		}
	}
	return out
}

// subst replaces {"$ref": name}, {"$concat": [...]} and {"$content": <Content>} in arguments.
func (r *runner) subst(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 1 {
			if name, ok := x["$ref"].(string); ok {
				return r.m.vars[name]
			}
			if parts, ok := x["$concat"].([]any); ok {
				var b strings.Builder
				for _, p := range parts {
					fmt.Fprint(&b, r.subst(p))
				}
				return b.String()
			}
			if c, ok := x["$content"]; ok {
				cs, err := contentOf(c)
				if err == nil {
					b, _ := cs.Bytes()
					return string(b)
				}
			}
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = r.subst(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = r.subst(x[i])
		}
		return out
	}
	return v
}

// rawLine builds a raw wire line from a string or a list of strings and Contents.
func (r *runner) rawLine(v any) ([]byte, error) {
	switch x := v.(type) {
	case string:
		return []byte(r.fx.Expand(x)), nil
	case []any:
		var b []byte
		for _, p := range x {
			if s, ok := p.(string); ok {
				b = append(b, r.fx.Expand(s)...)
				continue
			}
			c, err := contentOf(p)
			if err != nil {
				return nil, err
			}
			pb, err := c.Bytes()
			if err != nil {
				return nil, err
			}
			b = append(b, pb...)
		}
		return b, nil
	}
	return nil, fmt.Errorf("raw must be a string or a list of parts, got %s", show(v))
}

// WriteReport writes a finished run as JSON Lines: a header, one record per vector, a summary.
func WriteReport(w io.Writer, s *Summary, caps map[string]bool) error {
	rw := NewReportWriter(w)
	if err := rw.Header(s.Target, s.Profile, caps, len(s.Results), s.Inspection); err != nil {
		return err
	}
	for _, r := range s.Results {
		if err := rw.Result(r); err != nil {
			return err
		}
	}
	return rw.Summary(s)
}

// ReportWriter writes the JSON Lines report as the run goes: the header before the first vector,
// each result as it ends (in the order they end), the summary last. A run that is interrupted
// leaves a report of what it graded. Values in it are bounded (boundValue).
type ReportWriter struct {
	mu  sync.Mutex
	enc *json.Encoder
}

// NewReportWriter writes to w.
func NewReportWriter(w io.Writer) *ReportWriter { return &ReportWriter{enc: json.NewEncoder(w)} }

// Header writes the header record; in is the preflight's inspection (nil: none).
func (rw *ReportWriter) Header(target, profile string, caps map[string]bool, vectors int, in *Inspection) error {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	h := map[string]any{"type": "header", "target": target, "schema_hash": schemaHash(), "capabilities": caps,
		"vectors": vectors, "profile": profile}
	if in != nil {
		h["inspection"] = in
	}
	return rw.enc.Encode(h)
}

// Result writes one vector's record.
func (rw *ReportWriter) Result(r Result) error {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	return rw.enc.Encode(struct {
		Type string `json:"type"`
		Result
	}{"result", r})
}

// Summary writes the closing record.
func (rw *ReportWriter) Summary(s *Summary) error {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	p, f, sk, k := s.Counts()
	rec := map[string]any{"type": "summary", "passed": p, "failed": f, "skipped": sk,
		"expected_failures": k, "stale_baseline": nonNilStrings(s.Stale), "by_class": nonNilClasses(s.ByClass()),
		"stray_stdout_lines": s.StrayLines}
	if s.StrayExcerpt != "" {
		rec["stray_stdout_excerpt"] = s.StrayExcerpt
	}
	return rw.enc.Encode(rec)
}

func nonNilClasses(c []ClassCount) []ClassCount {
	if c == nil {
		return []ClassCount{}
	}
	return c
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// WriteText prints the per-category table, the failures, and the closing count line.
func WriteText(w io.Writer, s *Summary, verbose bool) {
	type row struct{ pass, fail, skip, known int }
	rows := map[string]*row{}
	for _, r := range s.Results {
		if rows[r.Category] == nil {
			rows[r.Category] = &row{}
		}
		switch r.Status {
		case "pass":
			rows[r.Category].pass++
		case "fail", "xpass":
			rows[r.Category].fail++
		case "skip":
			rows[r.Category].skip++
		case "xfail":
			rows[r.Category].known++
		}
	}
	fmt.Fprintf(w, "conformance: %s (profile %s)\n\n", s.Target, s.Profile)
	fmt.Fprintf(w, "%-16s %7s %7s %8s %6s\n", "category", "passed", "failed", "skipped", "known")
	for _, c := range sortedKeys(rows) {
		x := rows[c]
		fmt.Fprintf(w, "%-16s %7d %7d %8d %6d\n", c, x.pass, x.fail, x.skip, x.known)
	}
	fmt.Fprintln(w)
	for _, r := range s.Results {
		switch {
		case r.Status == "fail":
			fmt.Fprintf(w, "FAIL %s (%s)\n", r.ID, r.WorstClass())
			for _, f := range r.Failures {
				fmt.Fprintf(w, "    %s\n", strings.ReplaceAll(excerpt(f, maxMessageBytes), "\n", "\n    "))
			}
			if verbose && r.Stderr != "" {
				fmt.Fprintf(w, "    stderr:\n      %s\n", strings.ReplaceAll(strings.TrimSpace(r.Stderr), "\n", "\n      "))
			}
		case r.Status == "xpass":
			fmt.Fprintf(w, "FAIL %s: listed in the baseline (%s) but passes; remove the entry\n", r.ID, r.Reason)
		case verbose && r.Status == "skip":
			fmt.Fprintf(w, "skip %s: %s\n", r.ID, r.Reason)
		case verbose && r.Status == "xfail":
			fmt.Fprintf(w, "known %s: %s\n", r.ID, r.Reason)
		}
	}
	for _, e := range s.Stale {
		fmt.Fprintf(w, "FAIL baseline entry %q matches no vector; remove it\n", e)
	}
	WriteNotes(w, s)
	p, f, sk, k := s.Counts()
	if k > 0 {
		fmt.Fprintf(w, "%d known failures (listed in the baseline)\n", k)
	}
	fmt.Fprintf(w, "%d passed, %d failed, %d skipped\n", p, f, sk)
}

// WriteNotes prints what the grade cannot show by itself: the failed vectors by their most severe
// class, stray stdout lines, the preflight's warnings and the tools nothing graded.
func WriteNotes(w io.Writer, s *Summary) {
	if bc := s.ByClass(); len(bc) > 0 {
		fmt.Fprintf(w, "\nfailed vectors by their most severe class (most severe first):\n")
		for _, c := range bc {
			fmt.Fprintf(w, "  %-16s %d\n", c.Class, c.Vectors)
		}
	}
	if s.StrayLines > 0 {
		fmt.Fprintf(w, "\nnote: the target wrote %d line(s) on stdout that are not JSON; they were skipped and grading went on. The first: %q\n",
			s.StrayLines, s.StrayExcerpt)
	}
	in := s.Inspection
	if in == nil {
		return
	}
	for _, warn := range in.Warnings {
		fmt.Fprintf(w, "\nwarning: %s\n", warn)
	}
	if len(in.NotGraded) > 0 {
		fmt.Fprintf(w, "\nnot graded: %d tool(s) the target lists that no mapping covers; nothing in this grade says they are contained:\n", len(in.NotGraded))
		for _, t := range in.NotGraded {
			if t.Destructive != "" {
				fmt.Fprintf(w, "  %s  (destructive or runs commands, by %s)\n", t.Name, t.Destructive)
			} else {
				fmt.Fprintf(w, "  %s\n", t.Name)
			}
		}
	}
}

// WriteInspection prints an inspection: the target's tools, the mapping's coverage of the suite's
// tools, what is not graded, and the warnings.
func WriteInspection(w io.Writer, in *Inspection) {
	fmt.Fprintf(w, "target: %s\n\ntools the target lists (%d):\n", in.Target, len(in.Tools))
	for _, t := range in.Tools {
		from := "not graded"
		if len(t.From) > 0 {
			from = "graded as " + strings.Join(t.From, ", ")
		}
		mark := ""
		if t.Destructive != "" {
			mark = "  [destructive or runs commands, by " + t.Destructive + "]"
		}
		fmt.Fprintf(w, "  %-28s %s%s\n", t.Name, from, mark)
	}
	if len(in.Coverage) > 0 {
		fmt.Fprintf(w, "\nsuite tools and what they become (vectors calling a skipped tool skip):\n")
		for _, k := range sortedKeys(in.Coverage) {
			fmt.Fprintf(w, "  %-20s → %s\n", k, in.Coverage[k])
		}
	}
	if len(in.AllowedDirs) > 0 {
		fmt.Fprintf(w, "\nthe target's own allowed-directory listing: %s\n", strings.Join(in.AllowedDirs, ", "))
	}
	s := &Summary{Inspection: in, StrayLines: in.StrayLines, StrayExcerpt: in.StrayExcerpt}
	WriteNotes(w, s)
}
