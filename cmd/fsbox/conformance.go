package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/fsbox/fsbox/conformance"
	"github.com/fsbox/fsbox/server"
)

func init() {
	register(subcommand{name: "conformance", summary: "run the conformance suite against fsbox, any server, or an SDK", run: runConformance})
}

const conformanceUsage = `Usage: fsbox conformance run --target TARGET [--filter GLOB]... [--tags GLOB]... [--report FILE] [flags]
       fsbox conformance inspect --target TARGET [--mapping M]
       fsbox conformance matrix --target TARGET... [--markdown FILE] [--json FILE] [--doc FILE --section NAME] [flags]
       fsbox conformance list [--filter GLOB]... [--tags GLOB]...

Runs the shared conformance vectors against TARGET and prints a per-category table, the
failures, and a closing "N passed, N failed, N skipped" line. Exit status: 0 when the run
matches the baseline exactly, 1 otherwise, 2 on a usage error.

Targets:
  inproc                    the fsbox engine in this process
  server:COMMAND LINE       any server speaking the protocol on stdio, started once per vector
                            (split like a shell would, without one), e.g. "server:bin/fsbox serve"
  binding:go|python|typescript|rust
                            an SDK driven through conformance/adapters/<lang> (run from the checkout)
  adapter:COMMAND LINE      any SDK's own adapter program speaking the adapter protocol
                            (docs/conformance-vectors.md); it starts --binary as its server
  mcp:COMMAND LINE          an MCP server on stdio; {root} is replaced by the vector's root (else
                            offered as the client's MCP root), {config} by a file holding the
                            vector's config in fsbox's format (without it, vectors needing a config
                            skip). Tools map by --mapping (default: the reference server's names).
                            The client probes with server/discover (MCP 2026-07-28) and falls back
                            to initialize; --mcp-protocol VERSION speaks one version only.

Profiles: strict grades every expectation; security grades outcomes only (outside bytes, names or
host paths in replies; changes outside the root; refusals containment demands). The default is
security for mcp: targets (the strict profile grades fsbox's own wording, which says nothing
about a third-party server) and strict for the others.

inspect starts the target once and prints its tools, which suite tool each is graded as, the
tools nothing grades (destructive or command-running ones first) and warnings, such as an
allowed-directory listing wider than the root. run does the same check first: a command that
does not start fails once, before any vector. run prints progress on stderr and writes --report
as results arrive.

The matrix runs every --target (no baselines: known failures count as failed) and writes a
table target x category; --doc splices it into FILE between <!-- matrix:NAME:begin/end -->.

Flags:
`

func runConformance(args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(os.Stdout, conformanceUsage)
		conformanceFlags(os.Stdout).PrintDefaults()
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	switch args[0] {
	case "run":
		return conformanceRun(args[1:])
	case "matrix":
		return conformanceMatrix(args[1:])
	case "list":
		return conformanceList(args[1:])
	case "inspect":
		return conformanceInspect(args[1:])
	}
	return usageErrorf("conformance: unknown action %q (want run, inspect, matrix or list)", args[0])
}

type conformanceOpts struct {
	target, report, baseline, binary, repo string
	profile, mapping, mcpProtocol          string
	filters, tags, targets, labels         []string
	markdown, jsonOut, doc, section        string
	canaryDir                              string
	quiet                                  bool
	parallel                               int
	timeout, vectorTimeout                 time.Duration
	verbose                                bool
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

var confOpts conformanceOpts

func conformanceFlags(out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("fsbox conformance run", flag.ContinueOnError)
	fs.SetOutput(out)
	o := &confOpts
	fs.Var((*multiFlag)(&o.targets), "target", "what to grade: inproc, server:COMMAND, binding:LANG, adapter:COMMAND, mcp:COMMAND (matrix: repeatable)")
	fs.Var((*multiFlag)(&o.filters), "filter", "run only vectors whose id matches this glob (repeatable), e.g. 'traversal/**'")
	fs.Var((*multiFlag)(&o.tags), "tags", "run only vectors with a tag matching this glob (repeatable, or comma-separated), e.g. 'CVE-*', read_file")
	fs.StringVar(&o.profile, "profile", "", "grading: strict (every expectation) or security (outcomes only); default: security for mcp: targets, strict otherwise")
	fs.StringVar(&o.canaryDir, "canary-dir", "", "where each vector's fake $HOME and the canaries outside the temp directory go (default: <user cache dir>/fsbox-conformance); not inside the temp directory")
	fs.BoolVar(&o.quiet, "q", false, "no progress on stderr")
	fs.StringVar(&o.mapping, "mapping", "reference", "mcp targets: tool mapping, 'reference', 'none' (suite names) or a mapping file")
	fs.StringVar(&o.mcpProtocol, "mcp-protocol", conformance.MCPProtocolAuto, "mcp targets: the MCP protocol version to speak, 'auto' (server/discover, else initialize) or one of "+strings.Join(conformance.MCPProtocols[1:], ", "))
	fs.DurationVar(&o.timeout, "timeout", 20*time.Second, "bound on one call or step; a hang fails with class timeout")
	fs.DurationVar(&o.vectorTimeout, "vector-timeout", 3*time.Minute, "bound on one whole vector")
	fs.StringVar(&o.markdown, "markdown", "", "matrix: write the Markdown table to this file")
	fs.StringVar(&o.jsonOut, "json", "", "matrix: write the JSON matrix to this file")
	fs.StringVar(&o.doc, "doc", "", "matrix: splice the table into this Markdown file (needs --section)")
	fs.Var((*multiFlag)(&o.labels), "label", "matrix: the row name of the target at the same position (repeatable; default: the target spec)")
	fs.StringVar(&o.section, "section", "", "matrix: the NAME of the <!-- matrix:NAME:begin --> markers in --doc")
	fs.StringVar(&o.report, "report", "", "write a JSON Lines report to this file")
	fs.StringVar(&o.baseline, "baseline", "", "expected failures: an embedded name (inproc, server-fsbox, binding-go, …), a file, or 'none'; default: the target's own")
	fs.StringVar(&o.binary, "binary", "", "the fsbox executable binding adapters start (default: this executable)")
	fs.StringVar(&o.repo, "repo", "", "the fsbox checkout holding the adapters (default: found from the working directory)")
	fs.IntVar(&o.parallel, "parallel", 4, "vectors run at once")
	fs.BoolVar(&o.verbose, "v", false, "also list skipped vectors and known failures, and show stderr of failures")
	return fs
}

func conformanceList(args []string) int {
	confOpts = conformanceOpts{}
	fs := conformanceFlags(os.Stderr)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	vs, err := conformance.Embedded()
	if err != nil {
		return errorf("%v", err)
	}
	for _, v := range vs {
		tags, err := conformance.VectorTags(v)
		if err != nil {
			return errorf("%v", err)
		}
		if conformance.Matches(confOpts.filters, v.ID) && conformance.HasTag(splitTags(confOpts.tags), tags) {
			fmt.Printf("%s\t%s\t%s\n", v.ID, strings.Join(tags, ","), v.Description)
		}
	}
	return 0
}

func splitTags(list []string) []string {
	var out []string
	for _, t := range list {
		for _, x := range strings.Split(t, ",") {
			if x = strings.TrimSpace(x); x != "" {
				out = append(out, x)
			}
		}
	}
	return out
}

var targetPrefixes = []string{"server:", "binding:", "adapter:", "mcp:"}

func validTarget(t string) bool {
	if t == "inproc" {
		return true
	}
	for _, p := range targetPrefixes {
		if strings.HasPrefix(t, p) && len(t) > len(p) {
			return true
		}
	}
	return false
}

// buildTarget resolves a target spec, finding this executable and the checkout where needed.
func buildTarget(spec string, o conformanceOpts) (conformance.Target, int) {
	topts := conformance.TargetOptions{Inproc: inprocDialer(), InprocConfig: inprocConfigDialer, Binary: o.binary, RepoDir: o.repo, Mapping: o.mapping, MCPProtocol: o.mcpProtocol}
	if strings.HasPrefix(spec, "binding:") || strings.HasPrefix(spec, "adapter:") {
		if topts.Binary == "" {
			exe, err := os.Executable()
			if err != nil {
				return nil, errorf("conformance: cannot find this executable for the adapters: %v (pass --binary)", err)
			}
			topts.Binary = exe
		}
	}
	if strings.HasPrefix(spec, "binding:") && topts.RepoDir == "" {
		wd, _ := os.Getwd()
		repo, err := conformance.FindRepo(wd)
		if err != nil {
			return nil, errorf("conformance: %s needs the fsbox checkout: %v (run inside it or pass --repo; adapter:COMMAND needs none)", spec, err)
		}
		topts.RepoDir = repo
	}
	target, err := conformance.ParseTarget(spec, topts)
	if err != nil {
		return nil, errorf("conformance: %v", err)
	}
	return target, 0
}

// profileFor is the profile a target is graded by: --profile, else security for mcp: targets
// and strict for the others.
func profileFor(spec string, o conformanceOpts) string {
	switch {
	case o.profile != "":
		return o.profile
	case strings.HasPrefix(spec, "mcp:"):
		return conformance.ProfileSecurity
	}
	return conformance.ProfileStrict
}

func runOptions(spec string, target conformance.Target, o conformanceOpts) conformance.Options {
	return conformance.Options{Target: target, Filter: o.filters, Tags: splitTags(o.tags), Parallel: o.parallel,
		Profile: profileFor(spec, o), StepTimeout: o.timeout, VectorTimeout: o.vectorTimeout, CanaryDir: o.canaryDir}
}

// progress prints one line on stderr per failed vector as it ends and a count line every few
// seconds, so a long run shows it is alive.
type progress struct {
	w      io.Writer
	last   time.Time
	failed int
}

func (p *progress) result(done, total int, r conformance.Result) {
	if r.Status == "fail" || r.Status == "xpass" {
		p.failed++
		fmt.Fprintf(p.w, "conformance: FAIL %s (%s)\n", r.ID, r.WorstClass())
	}
	if done == total || time.Since(p.last) > 3*time.Second {
		p.last = time.Now()
		fmt.Fprintf(p.w, "conformance: %d/%d vectors done, %d failed\n", done, total, p.failed)
	}
}

// conformanceInspect prints what the runner learns about a target before a run.
func conformanceInspect(args []string) int {
	o, code := parseConformance(args)
	if code != 0 {
		return code
	}
	if len(o.targets) != 1 {
		return usageErrorf("conformance inspect: give exactly one --target (%s)", conformance.TargetForms)
	}
	target, code := buildTarget(o.targets[0], o)
	if code != 0 {
		return code
	}
	in, err := conformance.Inspect(context.Background(), runOptions(o.targets[0], target, o))
	if err != nil {
		return errorf("conformance: %v", err)
	}
	conformance.WriteInspection(os.Stdout, in)
	return 0
}

func parseConformance(args []string) (conformanceOpts, int) {
	confOpts = conformanceOpts{}
	fs := conformanceFlags(os.Stderr)
	if err := fs.Parse(args); err != nil {
		return confOpts, 2
	}
	o := confOpts
	if fs.NArg() > 0 {
		return o, usageErrorf("conformance: unexpected argument %q", fs.Arg(0))
	}
	if o.profile != "" && o.profile != conformance.ProfileStrict && o.profile != conformance.ProfileSecurity {
		return o, usageErrorf("conformance: unknown --profile %q (want strict or security)", o.profile)
	}
	for _, t := range o.targets {
		if !validTarget(t) {
			return o, usageErrorf("conformance: unknown target %q (want %s)", t, conformance.TargetForms)
		}
	}
	return o, 0
}

func conformanceRun(args []string) int {
	o, code := parseConformance(args)
	if code != 0 {
		return code
	}
	if len(o.targets) != 1 {
		return usageErrorf("conformance run: give exactly one --target (%s); several go to 'conformance matrix'", conformance.TargetForms)
	}
	o.target = o.targets[0]
	target, code := buildTarget(o.target, o)
	if code != 0 {
		return code
	}
	ropts := runOptions(o.target, target, o)
	name := o.baseline
	if name == "" && ropts.Profile == conformance.ProfileStrict && len(o.tags) == 0 {
		name = conformance.DefaultBaseline(o.target)
	}
	if name != "" && name != "none" {
		b, err := conformance.LoadBaseline(name)
		if err != nil {
			return errorf("conformance: %v", err)
		}
		ropts.Baseline = b
	}
	var rw *conformance.ReportWriter
	var werr error
	if o.report != "" {
		f, err := os.Create(o.report)
		if err != nil {
			return errorf("conformance: %v", err)
		}
		defer f.Close()
		rw = conformance.NewReportWriter(f)
	}
	p := &progress{w: os.Stderr, last: time.Now()}
	ropts.OnStart = func(in *conformance.Inspection, total int) {
		if rw != nil && werr == nil {
			werr = rw.Header(target.Name(), ropts.Profile, target.Capabilities(), total, in)
		}
		if !o.quiet {
			fmt.Fprintf(os.Stderr, "conformance: %s, profile %s: %d vectors\n", target.Name(), ropts.Profile, total)
		}
	}
	ropts.OnResult = func(done, total int, r conformance.Result) {
		if rw != nil && werr == nil {
			werr = rw.Result(r)
		}
		if !o.quiet {
			p.result(done, total, r)
		}
	}
	s, err := conformance.Run(context.Background(), ropts)
	if err != nil {
		return errorf("conformance: %v", err)
	}
	if rw != nil && werr == nil {
		werr = rw.Summary(s)
	}
	if werr != nil {
		return errorf("conformance: writing the report: %v", werr)
	}
	conformance.WriteText(os.Stdout, s, o.verbose)
	if !s.OK() {
		return 1
	}
	return 0
}

// inprocConfigDialer runs a session in this process the way `fsbox serve --config file` would:
// the file is loaded like the flag's, and the host's policy is fixed.
func inprocConfigDialer(ctx context.Context, file string) (io.ReadWriteCloser, error) {
	cf := configFlags{file: file}
	cfg, err := cf.load()
	if err != nil {
		return nil, err
	}
	return conformance.PipeDialer(func(ctx context.Context, r io.Reader, w io.Writer) error {
		return server.New(server.Options{Config: cfg, FixedPolicy: cf.fixed(), Version: version}).Serve(ctx, r, w)
	})(ctx)
}

// conformanceMatrix runs every target and writes the table. Its exit status says whether it
// could run them, not how they fared.
func conformanceMatrix(args []string) int {
	o, code := parseConformance(args)
	if code != 0 {
		return code
	}
	if len(o.targets) == 0 {
		return usageErrorf("conformance matrix: give one --target per row (%s)", conformance.TargetForms)
	}
	if len(o.labels) > len(o.targets) {
		return usageErrorf("conformance matrix: %d --label for %d --target", len(o.labels), len(o.targets))
	}
	if (o.doc == "") != (o.section == "") {
		return usageErrorf("conformance matrix: --doc and --section go together")
	}
	if o.profile == "" {
		o.profile = conformance.ProfileStrict // one profile for the whole table
	}
	m := &conformance.Matrix{Profile: o.profile}
	for _, spec := range o.targets {
		target, code := buildTarget(spec, o)
		if code != 0 {
			return code
		}
		fmt.Fprintf(os.Stderr, "conformance matrix: %s\n", spec)
		ropts := runOptions(spec, target, o)
		if !o.quiet {
			p := &progress{w: os.Stderr, last: time.Now()}
			ropts.OnResult = p.result
		}
		s, err := conformance.Run(context.Background(), ropts)
		if err != nil {
			return errorf("conformance: %s: %v", spec, err)
		}
		if i := len(m.Rows); i < len(o.labels) {
			s.Target = o.labels[i]
		}
		m.Rows = append(m.Rows, s)
	}
	var md bytes.Buffer
	m.WriteMarkdown(&md)
	if o.markdown != "" {
		if err := os.WriteFile(o.markdown, md.Bytes(), 0o644); err != nil {
			return errorf("conformance: %v", err)
		}
	}
	if o.jsonOut != "" {
		var b bytes.Buffer
		if err := m.WriteJSON(&b); err != nil {
			return errorf("conformance: %v", err)
		}
		if err := os.WriteFile(o.jsonOut, b.Bytes(), 0o644); err != nil {
			return errorf("conformance: %v", err)
		}
	}
	if o.doc != "" {
		doc, err := os.ReadFile(o.doc)
		if err != nil {
			return errorf("conformance: %v", err)
		}
		out, err := conformance.SpliceMarkdown(doc, o.section, md.Bytes())
		if err != nil {
			return errorf("conformance: %s: %v", o.doc, err)
		}
		if err := os.WriteFile(o.doc, out, 0o644); err != nil {
			return errorf("conformance: %v", err)
		}
	}
	if o.markdown == "" && o.doc == "" {
		os.Stdout.Write(md.Bytes())
	}
	return 0
}

// inprocDialer runs each vector's session on the server package in this process.
func inprocDialer() conformance.DialFunc {
	return conformance.PipeDialer(func(ctx context.Context, r io.Reader, w io.Writer) error {
		return server.New(server.Options{Version: version}).Serve(ctx, r, w)
	})
}
