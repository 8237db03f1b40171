package conformance

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
)

// bindingTarget drives an SDK through its adapter: a small program in conformance/adapters/<lang>
// that reads one NDJSON op at a time on stdin and answers on stdout (see docs/conformance-vectors.md).
type bindingTarget struct {
	lang, repo, binary string
	name               string   // set for adapter: targets
	argv               []string // the adapter command, resolved once
	prepare            func() error
	once               sync.Once
	prepErr            error
}

// BindingTarget grades the SDK for lang ("go", "python", "typescript", "rust") in the checkout at repo,
// whose adapters start the fsbox executable binary. It fails with the exact missing piece when the
// SDK's toolchain or install is absent.
func BindingTarget(lang, repo, binary string) (Target, error) {
	if repo == "" {
		return nil, errors.New("binding targets need the fsbox checkout: run from inside it")
	}
	if binary == "" {
		return nil, errors.New("binding targets need the fsbox executable the adapters start (--binary)")
	}
	t := &bindingTarget{lang: lang, repo: repo, binary: binary}
	adapters := filepath.Join(repo, "conformance", "adapters", lang)
	rel := func(p string) string { r, _ := filepath.Rel(repo, p); return r }
	if _, err := os.Stat(adapters); err != nil {
		return nil, fmt.Errorf("binding:%s: the adapter %s is missing from this checkout", lang, rel(adapters))
	}
	switch lang {
	case "go":
		goTool, err := exec.LookPath("go")
		if err != nil {
			return nil, errors.New("binding:go: the go toolchain is not on PATH; install Go 1.26")
		}
		out := filepath.Join(os.TempDir(), fmt.Sprintf("fsbox-adapter-go-%d", os.Getpid()))
		t.argv = []string{out}
		t.prepare = func() error {
			cmd := exec.Command(goTool, "build", "-o", out, "./conformance/adapters/go")
			cmd.Dir = repo
			if b, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("binding:go: building the adapter (go build ./conformance/adapters/go) failed:\n%s", b)
			}
			return nil
		}
	case "python":
		py := filepath.Join(repo, "sdks", "python", ".venv", "bin", "python")
		if _, err := os.Stat(py); err != nil {
			return nil, fmt.Errorf("binding:python: %s is missing: the Python SDK is not installed in this clone; run scripts/test-python.sh (or scripts/test) first", rel(py))
		}
		script, err := pickFile(adapters, []string{"adapter.py", "main.py", "__main__.py"}, ".py")
		if err != nil {
			return nil, fmt.Errorf("binding:python: %v", err)
		}
		t.argv = []string{py, script}
	case "typescript":
		node, err := exec.LookPath("node")
		if err != nil {
			return nil, errors.New("binding:typescript: node is not on PATH; install Node 20")
		}
		dist := filepath.Join(repo, "sdks", "typescript", "dist", "index.js")
		if _, err := os.Stat(dist); err != nil {
			return nil, fmt.Errorf("binding:typescript: %s is missing: the TypeScript SDK is not built in this clone; run scripts/test-typescript.sh (or scripts/test) first", rel(dist))
		}
		script, err := pickFile(filepath.Join(adapters, "dist"), []string{"adapter.js", "main.js", "index.js"}, ".js")
		if err != nil {
			return nil, fmt.Errorf("binding:typescript: the adapter is not compiled (%v); run scripts/test-typescript.sh (or scripts/test) first", err)
		}
		t.argv = []string{node, script}
	case "rust":
		argv, prepare, err := rustAdapter(repo, adapters)
		if err != nil {
			return nil, err
		}
		t.argv, t.prepare = argv, prepare
	default:
		return nil, fmt.Errorf("unknown binding %q: want go, python, typescript or rust", lang)
	}
	return t, nil
}

// pickFile returns the first of names present in dir, else the only file with ext.
func pickFile(dir string, names []string, ext string) (string, error) {
	for _, n := range names {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			return filepath.Join(dir, n), nil
		}
	}
	ents, _ := os.ReadDir(dir)
	var cands []string
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ext) && !strings.HasPrefix(e.Name(), "_") && !strings.Contains(e.Name(), ".gen.") && !strings.Contains(e.Name(), "_gen") {
			cands = append(cands, e.Name())
		}
	}
	sort.Strings(cands)
	if len(cands) == 1 {
		return filepath.Join(dir, cands[0]), nil
	}
	return "", fmt.Errorf("no adapter entry point (%s) in %s", strings.Join(names, ", "), dir)
}

func (t *bindingTarget) Name() string {
	if t.name != "" {
		return t.name
	}
	return "binding:" + t.lang
}

// Capabilities: an adapter executes typed calls and hands each change request to the runner as
// it arrives, so the runner can change the disk before answering, or answer with an error. It
// reports the initialize result and tool descriptors as its SDK got them, and sends the plain
// methods its SDK has a method for (tools/list, schema; the others skip). It sends no raw lines,
// pipelines nothing and cannot cancel a call.
//
// The SDKs start `<binary> serve` with no flags, so a host configuration (host_config) reaches
// the server through a wrapper script standing in for the binary, which adds --config FILE; that
// needs a POSIX shell, so Windows skips those vectors.
func (t *bindingTarget) Capabilities() map[string]bool {
	return map[string]bool{"change_request_fs": true, "change_request_error": true,
		"descriptors": true, "methods": true, "initialize": true, "config": true, "events": true,
		"change_requests": true, "host_config": runtime.GOOS != "windows", "result_shape": true}
}

// AdapterTarget grades a third party's SDK through its own adapter program, which speaks the
// adapter protocol (docs/conformance-vectors.md) on stdio and starts the fsbox executable binary as its
// server. Nothing of the checkout is needed.
func AdapterTarget(cmdline, binary string) (Target, error) {
	argv, err := splitCommand(cmdline)
	if err != nil {
		return nil, err
	}
	if binary == "" {
		return nil, errors.New("adapter targets need the fsbox executable the adapter starts (--binary)")
	}
	return &bindingTarget{lang: cmdline, binary: binary, argv: argv, name: "adapter:" + cmdline}, nil
}

func (t *bindingTarget) Open(ctx context.Context) (Session, error) { return t.open(t.binary) }

// OpenWithConfig starts the adapter with a wrapper, next to configFile, as its binary: the
// wrapper runs the real binary with the SDK's arguments and --config configFile.
func (t *bindingTarget) OpenWithConfig(ctx context.Context, configFile string) (Session, error) {
	quote := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	wrapper := filepath.Join(filepath.Dir(configFile), "fsbox-with-host-config")
	script := "#!/bin/sh\nexec " + quote(t.binary) + ` "$@" --config ` + quote(configFile) + "\n"
	// Held against fork: a process forked while the file is open for writing would keep it
	// open until its exec, and the wrapper's own exec would fail with "text file busy".
	syscall.ForkLock.RLock()
	err := os.WriteFile(wrapper, []byte(script), 0o755)
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, err
	}
	return t.open(wrapper)
}

func (t *bindingTarget) open(binary string) (Session, error) {
	t.once.Do(func() {
		if t.prepare != nil {
			t.prepErr = t.prepare()
		}
	})
	if t.prepErr != nil {
		return nil, t.prepErr
	}
	p, err := startProcess(t.argv, t.repo)
	if err != nil {
		return nil, err
	}
	s := &adapterSession{p: p, binary: binary, lines: make(chan []byte, 1), done: make(chan struct{})}
	go s.readLoop()
	return s, nil
}

// adapterSession speaks the adapter protocol: one op, one answer line.
type adapterSession struct {
	p      *process
	binary string
	lines  chan []byte
	done   chan struct{}
}

func (s *adapterSession) readLoop() {
	defer close(s.done)
	br := bufio.NewReaderSize(s.p.stdout, 1<<16)
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			s.lines <- line
		}
		if err != nil {
			return
		}
	}
}

func (s *adapterSession) send(msg map[string]any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	if _, err := s.p.stdin.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("adapter: writing %s: %w", msg["op"], err)
	}
	return nil
}

// read waits for the adapter's next line; what names the op it is for, in errors.
func (s *adapterSession) read(ctx context.Context, what any) (map[string]any, error) {
	select {
	case line := <-s.lines:
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber()
		var out map[string]any
		if err := dec.Decode(&out); err != nil {
			return nil, fmt.Errorf("adapter answered %s with a line that is not JSON: %s", what, quoteShort(line))
		}
		return out, nil
	case <-s.done:
		return nil, fmt.Errorf("adapter exited while answering %s", what)
	case <-ctx.Done():
		return nil, fmt.Errorf("adapter did not answer %s: %w", what, ctx.Err())
	}
}

// op sends one op and reads its answer.
func (s *adapterSession) op(ctx context.Context, msg map[string]any) (map[string]any, error) {
	if err := s.send(msg); err != nil {
		return nil, err
	}
	return s.read(ctx, msg["op"])
}

func (s *adapterSession) Start(ctx context.Context, p StartParams) (any, map[string]any, error) {
	start := map[string]any{"op": "start", "binary": s.binary, "root_dir": p.RootDir,
		"config": p.Config, "events": p.Events, "change_requests": p.ChangeRequests}
	if p.ResultShape != nil {
		start["result_shape"] = *p.ResultShape
	}
	out, err := s.op(ctx, start)
	if err != nil {
		return nil, nil, err
	}
	if r, ok := out["skipped"].(string); ok {
		return nil, nil, &skipError{r}
	}
	if ok, _ := out["ok"].(bool); !ok {
		e, _ := out["error"].(map[string]any)
		if e == nil {
			e = map[string]any{}
		}
		return nil, e, nil
	}
	return out["initialize"], nil, nil
}

// Call sends the call op; until its answer comes, each {"change_request": …} line the adapter
// writes is the SDK's callback waiting: answer decides it (performing the vector's disk changes
// first) and the runner sends {"op":"answer"} back.
func (s *adapterSession) Call(ctx context.Context, tool string, args any, answer AnswerFunc) (*Outcome, error) {
	if args == nil {
		args = map[string]any{}
	}
	if err := s.send(map[string]any{"op": "call", "tool": tool, "arguments": args}); err != nil {
		return nil, err
	}
	var crs []any
	for {
		out, err := s.read(ctx, "call")
		if err != nil {
			return nil, err
		}
		cr, ok := out["change_request"]
		if !ok {
			o := adapterOutcome(out)
			o.ChangeRequests = crs
			return o, nil
		}
		crs = append(crs, cr)
		reply := map[string]any{"op": "answer", "approve": true}
		if answer != nil {
			res, rpcErr := answer(cr)
			switch {
			case rpcErr == cancelAnswer:
				return nil, errors.New("the adapter protocol cannot cancel a call")
			case rpcErr != nil:
				msg := rpcErr.Message
				if msg == "" {
					msg = fmt.Sprintf("error %d", rpcErr.Code)
				}
				reply = map[string]any{"op": "answer", "approve": false, "error": msg}
			default:
				m, _ := res.(map[string]any)
				reply["approve"], _ = m["approve"].(bool)
				for _, k := range []string{"reason", "decision", "content", "arguments"} {
					if v, ok := m[k]; ok {
						reply[k] = v
					}
				}
			}
		}
		if err := s.send(reply); err != nil {
			return nil, err
		}
	}
}

// methodOps are the plain methods an adapter performs through its SDK, and their ops.
var methodOps = map[string]string{"tools/list": "tools", "schema": "schema"}

// Request sends a plain method as the adapter op for it; a method without one (or with params,
// which those methods take none of) is skipped: SDKs expose no raw requests.
func (s *adapterSession) Request(ctx context.Context, method string, params any) (*Outcome, error) {
	name, ok := methodOps[method]
	noParams := params == nil
	if m, isMap := params.(map[string]any); isMap && len(m) == 0 {
		noParams = true
	}
	if !ok || !noParams {
		return &Outcome{Skipped: fmt.Sprintf("the SDKs have no method for a raw %s request", method)}, nil
	}
	out, err := s.op(ctx, map[string]any{"op": name})
	if err != nil {
		return nil, err
	}
	return adapterOutcome(out), nil
}

func (s *adapterSession) Close() string {
	ctx, cancel := context.WithTimeout(context.Background(), 5e9)
	defer cancel()
	_, _ = s.op(ctx, map[string]any{"op": "stop"})
	_ = s.p.close()
	return s.p.stderr.String()
}

// adapterOutcome reads an op's answer: skipped, or ok with result and events, or an error.
func adapterOutcome(out map[string]any) *Outcome {
	o := &Outcome{}
	if r, ok := out["skipped"].(string); ok {
		o.Skipped = r
		return o
	}
	o.Events, _ = out["events"].([]any)
	if ok, _ := out["ok"].(bool); ok {
		o.Result = out["result"]
		return o
	}
	e, _ := out["error"].(map[string]any)
	if e == nil {
		e = map[string]any{"message": "adapter answered ok: false without an error"}
	}
	o.Error = flattenError(e)
	return o
}

type skipError struct{ reason string }

func (e *skipError) Error() string { return "skipped: " + e.reason }

// Preflight checks once, before any vector, that an adapter: command exists (a binding's missing
// pieces are named by its own preparation).
func (t *bindingTarget) Preflight(ctx context.Context, fx *Fixture) (*Inspection, error) {
	if t.name != "" {
		return nil, lookCommand(t.argv)
	}
	return nil, nil
}
