package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/fsbox/fsbox/conformance"
	"github.com/fsbox/fsbox/server"
)

func init() {
	register(subcommand{name: "conformance", summary: "run the conformance suite against fsbox, any server, or an SDK", run: runConformance})
}

const conformanceUsage = `Usage: fsbox conformance run --target TARGET [--filter GLOB]... [--report FILE] [flags]
       fsbox conformance list [--filter GLOB]...

Runs the shared conformance vectors against TARGET and prints a per-category table, the
failures, and a closing "N passed, N failed, N skipped" line. Exit status: 0 when the run
matches the baseline exactly, 1 otherwise, 2 on a usage error.

Targets:
  inproc                    the fsbox engine in this process
  server:COMMAND LINE       any server speaking the protocol on stdio, started once per vector
                            (split like a shell would, without one), e.g. "server:bin/fsbox serve"
  binding:go|python|typescript
                            an SDK driven through conformance/adapters/<lang> (run from the checkout)

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
	case "list":
		return conformanceList(args[1:])
	}
	return usageErrorf("conformance: unknown action %q (want run or list)", args[0])
}

type conformanceOpts struct {
	target, report, baseline, binary, repo string
	filters                                []string
	parallel                               int
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
	fs.StringVar(&o.target, "target", "", "what to grade: inproc, server:COMMAND, binding:LANG")
	fs.Var((*multiFlag)(&o.filters), "filter", "run only vectors whose id matches this glob (repeatable), e.g. 'traversal/**'")
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
		if conformance.Matches(confOpts.filters, v.ID) {
			fmt.Printf("%s\t%s\n", v.ID, v.Description)
		}
	}
	return 0
}

func conformanceRun(args []string) int {
	confOpts = conformanceOpts{}
	fs := conformanceFlags(os.Stderr)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	o := confOpts
	if o.target == "" {
		return usageErrorf("conformance run: --target is required (inproc, server:COMMAND, binding:go|python|typescript)")
	}
	if fs.NArg() > 0 {
		return usageErrorf("conformance run: unexpected argument %q", fs.Arg(0))
	}
	if o.target != "inproc" && !strings.HasPrefix(o.target, "server:") && !strings.HasPrefix(o.target, "binding:") {
		return usageErrorf("conformance run: unknown target %q (want inproc, server:COMMAND, binding:go|python|typescript)", o.target)
	}
	topts := conformance.TargetOptions{Inproc: inprocDialer(), InprocConfig: inprocConfigDialer, Binary: o.binary, RepoDir: o.repo}
	if strings.HasPrefix(o.target, "binding:") {
		if topts.Binary == "" {
			exe, err := os.Executable()
			if err != nil {
				return errorf("conformance: cannot find this executable for the adapters: %v (pass --binary)", err)
			}
			topts.Binary = exe
		}
		if topts.RepoDir == "" {
			wd, _ := os.Getwd()
			repo, err := conformance.FindRepo(wd)
			if err != nil {
				return errorf("conformance: %s needs the fsbox checkout: %v (run inside it or pass --repo)", o.target, err)
			}
			topts.RepoDir = repo
		}
	}
	target, err := conformance.ParseTarget(o.target, topts)
	if err != nil {
		return errorf("conformance: %v", err)
	}
	ropts := conformance.Options{Target: target, Filter: o.filters, Parallel: o.parallel}
	name := o.baseline
	if name == "" {
		name = conformance.DefaultBaseline(o.target)
	}
	if name != "" && name != "none" {
		b, err := conformance.LoadBaseline(name)
		if err != nil {
			return errorf("conformance: %v", err)
		}
		ropts.Baseline = b
	}
	s, err := conformance.Run(context.Background(), ropts)
	if err != nil {
		return errorf("conformance: %v", err)
	}
	if o.report != "" {
		f, err := os.Create(o.report)
		if err != nil {
			return errorf("conformance: %v", err)
		}
		werr := conformance.WriteReport(f, s, target.Capabilities())
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return errorf("conformance: writing the report: %v", werr)
		}
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

// inprocDialer runs each vector's session on the server package in this process.
func inprocDialer() conformance.DialFunc {
	return conformance.PipeDialer(func(ctx context.Context, r io.Reader, w io.Writer) error {
		return server.New(server.Options{Version: version}).Serve(ctx, r, w)
	})
}
