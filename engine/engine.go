package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/fsbox/fsbox/engine/internal/commit"
	"github.com/fsbox/fsbox/engine/internal/fserr"
	"github.com/fsbox/fsbox/engine/internal/journal"
	"github.com/fsbox/fsbox/engine/internal/posthook"
	"github.com/fsbox/fsbox/engine/internal/relpath"
	"github.com/fsbox/fsbox/schema"
)

// Engine serves the file tools inside one root directory. It is safe for concurrent use; calls
// that change one file are serialised (see [Engine.Call]).
type Engine struct {
	cfg          schema.Config
	root         *os.Root   // opened once in New; every I/O goes through it
	top          *os.File   // the root directory itself, opened once through root: descriptor walks start from it
	rootDir      string     // resolved absolute root
	rootPrefixes [][]string // components of rootDir and of the root as configured, for absolute paths
	cwd          string     // root-relative, "." by default
	tools        []string   // enabled tools in schema.Tools order
	enabled      map[string]bool
	hashes       bool
	mounts       *mountTable     // nil without Config.Mounts (mount.go)
	ignore       *ignorer        // nil when Config.IgnoreVCS is false
	showDots     bool            // Config.ShowDotEntries: walkers show dot entries (walk rule 2 off)
	policies     []*accessPolicy // the host's layer first when it fixed the policy, then the session's (see accessPolicy)
	// allowGitDirs switches the git rule (execprotect.go) off: true only when the session's
	// config and, under a fixed policy, the host's both set allow_git_dirs.
	allowGitDirs bool
	// rootInGit is the .git entry the root itself lies in ("" when none): every write is then
	// inside it (execprotect.go).
	rootInGit string
	// gitMu gives creations of git directory member names their turn within this process
	// (gitCreateTurn); the directory's flock gives it across processes where there is one.
	gitMu sync.Mutex

	maxReadLines     int
	maxReadChars     int
	maxListResults   int
	maxSearchResults int
	maxFindResults   int
	maxOutputChars   int

	postEdit []posthook.Hook // the host's post_edit hooks (hooks.go)
	// hooksUnconfined: no kernel confinement here, and the host opted in (sandbox.go)
	hooksUnconfined bool
	hookPrefix      string // the session root relative to the hooks' root, "" or ending in "/"

	locks pathLocks      // per resolved path, for writes and edits
	temps commit.Sweeper // directories whose stale temporary files were swept

	audit *AuditSession    // the host's audit log, nil when off (audit.go)
	jr    *journal.Journal // the journal of before-images (checkpoint.go); nil when off
}

// Options are the host's settings that are not part of the wire Config.
type Options struct {
	// DefaultRoot is the root used when Config.RootDir is empty; "." when both are empty.
	DefaultRoot string
	// Host is the configuration of a host that fixed the policy (server.Options.FixedPolicy):
	// the session's configuration then only narrows it. The session root (Config.RootDir, taken
	// from the host's root when relative; the host's root when empty) must lie inside the host's
	// root (Host.RootDir, else DefaultRoot, else ".") and is opened through it one component at a
	// time, so no symlink can place it outside. The host's patterns and permission rules stay in
	// force as a layer of their own, matched against paths relative to the host's root; the
	// session's patterns and rules form a second layer, in which an omitted list adds nothing.
	// Every layer must allow an access. Host's limits, tools and flags are not read here: the
	// server narrows them into Config before calling New.
	Host *schema.Config
	// Audit records every call of the engine to the host's audit log (audit.go); nil records
	// nothing. New refuses a root or mount that holds the log.
	Audit *AuditSession
	// Journal are the host's settings of the journal (checkpoint.go).
	Journal JournalOptions
}

// New resolves the root (cfg.RootDir, else opts.DefaultRoot, else "."), opens it, and validates
// the configuration: positive limits, known tool names, known permission modes and operations,
// valid patterns, cwd an existing directory inside the root. A bad configuration returns an
// *Error of kind invalid_arguments whose message names the field.
func New(cfg schema.Config, opts Options) (*Engine, error) {
	given := cfg.RootDir
	if given == "" {
		given = opts.DefaultRoot
	}
	if given == "" {
		given = "."
	}
	var hostReal, hostRel string
	if opts.Host != nil {
		var herr *Error
		if hostReal, given, hostRel, herr = hostRoot(&cfg, opts); herr != nil {
			return nil, herr
		}
	}
	abs, err := filepath.Abs(given)
	if err != nil {
		return nil, &Error{Op: "new", Kind: schema.KindInvalidArguments, Msg: fmt.Sprintf("root_dir: cannot make %s absolute", fserr.PyRepr(given)), Err: err}
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fserr.Config("root_dir: %s does not exist or cannot be resolved", fserr.PyRepr(given))
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return nil, fserr.Config("root_dir: %s is not a directory", fserr.PyRepr(given))
	}
	e := &Engine{cfg: cfg, rootDir: real, audit: opts.Audit}
	e.rootPrefixes = [][]string{relpath.Split(real)}
	if abs != real {
		e.rootPrefixes = append(e.rootPrefixes, relpath.Split(abs))
	}
	if err := e.configure(&cfg, opts, hostRel); err != nil {
		return nil, err
	}
	if err := e.openRoot(opts, hostReal, hostRel, real, given); err != nil {
		return nil, err
	}
	if err := e.confine(cfg, opts, hostRel); err != nil {
		return nil, err
	}
	if err := e.setCwd(cfg.Cwd); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// configure validates and stores the settings of cfg that open nothing: limits, tools, flags,
// the session's access policy and the host's post_edit hooks (the host's layer when opts.Host
// is set; hostRel is the session root relative to the host's root).
func (e *Engine) configure(cfg *schema.Config, opts Options, hostRel string) *Error {
	if err := e.setLimits(cfg); err != nil {
		return err
	}
	if err := e.setTools(cfg); err != nil {
		return err
	}
	e.hashes = cfg.ContentHashes == nil || *cfg.ContentHashes
	e.allowGitDirs = isTrue(cfg.AllowGitDirs) && (opts.Host == nil || isTrue(opts.Host.AllowGitDirs))
	e.rootInGit, _ = gitPathIn(strings.Trim(filepath.ToSlash(e.rootDir), "/"))
	if cfg.IgnoreVCS == nil || *cfg.IgnoreVCS {
		e.ignore = newIgnorer()
	}
	e.showDots = cfg.ShowDotEntries != nil && *cfg.ShowDotEntries
	session, perr := newAccessPolicy(cfg, opts.Host == nil, "")
	if perr != nil {
		return perr
	}
	e.policies = []*accessPolicy{session}
	// Hooks run host commands: they come from the host's layer only (the server refuses them
	// in a client's initialize); without a host layer, cfg is the host's.
	hookSrc := cfg
	if opts.Host != nil {
		hookSrc = opts.Host
		if hostRel != "." && hostRel != "" {
			e.hookPrefix = filepath.ToSlash(hostRel) + "/"
		}
	}
	if e.postEdit, perr = posthook.Compile(hookSrc); perr != nil {
		return perr
	}
	return nil
}

// openRoot opens the session root: through the host's root one component at a time when the
// host fixed the policy (whose own access layer then goes first), else os.OpenRoot of the
// resolved root real; and the root's top directory for descriptor walks. given is the root as
// configured, for messages.
func (e *Engine) openRoot(opts Options, hostReal, hostRel, real, given string) *Error {
	var err error
	if opts.Host != nil {
		prefix := filepath.ToSlash(hostRel)
		if prefix == "." {
			prefix = ""
		}
		host, perr := newAccessPolicy(opts.Host, true, prefix)
		if perr != nil {
			return perr
		}
		e.policies = []*accessPolicy{host, e.policies[0]}
		e.root, err = openWithin(hostReal, hostRel)
	} else {
		e.root, err = os.OpenRoot(real)
	}
	if err == nil {
		if e.top, err = openTop(e.root); err != nil {
			e.root.Close()
		}
	}
	if err != nil {
		return &Error{Op: "new", Kind: schema.KindInvalidArguments, Msg: fmt.Sprintf("root_dir: cannot open %s", fserr.PyRepr(given)), Err: err}
	}
	return nil
}

// confine opens the host's mounts (the session's own list without a host layer), checks the
// hooks can be confined, and hands the process to the kernel's confinement (sandbox.go). On
// failure everything opened is closed.
func (e *Engine) confine(cfg schema.Config, opts Options, hostRel string) *Error {
	// Mounts are the host's, like hooks: the session's own list when there is no host layer.
	mountSrc, mountPrefix := cfg.Mounts, ""
	if opts.Host != nil {
		mountSrc = opts.Host.Mounts
		if hostRel != "." && hostRel != "" {
			mountPrefix = filepath.ToSlash(hostRel)
		}
	}
	if merr := e.openMounts(mountSrc, mountPrefix); merr != nil {
		e.root.Close()
		return merr
	}
	if aerr := e.checkAudit(); aerr != nil {
		e.Close()
		return aerr
	}
	if jerr := e.openJournal(&cfg, opts); jerr != nil { // checkpoint.go
		e.Close()
		return jerr
	}
	if herr := e.checkHookSandbox(); herr != nil {
		e.Close()
		return herr
	}
	// The root and mounts are open: the kernel takes over from here (sandbox.go).
	if err := e.confineProcess(); err != nil {
		e.Close()
		return &Error{Op: "new", Kind: schema.KindInternal, Msg: "cannot confine the server: " + err.Error(), Err: err}
	}
	return nil
}

// setCwd sets the working directory for relative paths: "." unless cwd names an existing
// directory inside the root.
func (e *Engine) setCwd(cwd string) *Error {
	e.cwd = "."
	if cwd != "" && cwd != "." {
		r, rerr := e.resolve("new", cwd)
		if rerr != nil || !r.exists || !r.info.IsDir() {
			reason := "is not an existing directory inside root_dir"
			if rerr != nil && rerr.Kind == schema.KindOutsideRoot {
				reason = "is outside root_dir"
			}
			return fserr.Config("cwd %s %s.", fserr.PyRepr(cwd), reason)
		}
		e.cwd = r.rel
	}
	return nil
}

// setLimits validates and stores the limits of cfg.
func (e *Engine) setLimits(cfg *schema.Config) *Error {
	limits := []struct {
		field string
		v     *int
		def   int
		dst   *int
	}{
		{"max_read_lines", cfg.MaxReadLines, schema.DefaultMaxReadLines, &e.maxReadLines},
		{"max_read_chars", cfg.MaxReadChars, schema.DefaultMaxReadChars, &e.maxReadChars},
		{"max_list_results", cfg.MaxListResults, schema.DefaultMaxListResults, &e.maxListResults},
		{"max_search_results", cfg.MaxSearchResults, schema.DefaultMaxSearchResults, &e.maxSearchResults},
		{"max_find_results", cfg.MaxFindResults, schema.DefaultMaxFindResults, &e.maxFindResults},
		{"max_output_chars", cfg.MaxOutputChars, schema.DefaultMaxOutputChars, &e.maxOutputChars},
	}
	for _, l := range limits {
		*l.dst = l.def
		if l.v == nil {
			continue
		}
		if *l.v <= 0 {
			return fserr.Config("%s must be a positive integer, got %d", l.field, *l.v)
		}
		*l.dst = *l.v
	}
	return nil
}

// setTools computes the enabled tool list from cfg.tools and cfg.read_only.
func (e *Engine) setTools(cfg *schema.Config) *Error {
	known := map[string]bool{}
	var all []string
	for _, t := range schema.Tools {
		known[t.Name] = true
		all = append(all, t.Name)
	}
	want := map[string]bool{}
	if cfg.Tools == nil {
		for _, t := range schema.Tools {
			want[t.Name] = t.Default
		}
	} else {
		var unknown []string
		for _, n := range cfg.Tools {
			if !known[n] {
				unknown = append(unknown, n)
			}
			want[n] = true
		}
		if len(unknown) > 0 {
			slices.Sort(unknown)
			unknown = slices.Compact(unknown)
			return fserr.Config("tools: Unknown filesystem tools: %s. Available: %s.", strings.Join(unknown, ", "), strings.Join(all, ", "))
		}
	}
	e.enabled = map[string]bool{}
	for _, t := range schema.Tools {
		if want[t.Name] && (!cfg.ReadOnly || t.ReadOnly) {
			e.tools = append(e.tools, t.Name)
			e.enabled[t.Name] = true
		}
	}
	return nil
}

// RootDir returns the resolved absolute root. It is for the host; the model never sees it.
func (e *Engine) RootDir() string { return e.rootDir }

// Cwd returns the working directory for relative paths, root-relative ("." by default).
func (e *Engine) Cwd() string { return e.cwd }

// ToolNames returns the enabled tools in schema.Tools order, config.tools and read_only applied.
func (e *Engine) ToolNames() []string { return slices.Clone(e.tools) }

// ContentHashes reports whether hashes are shown to the model and expected_hash is accepted.
func (e *Engine) ContentHashes() bool { return e.hashes }

// Close releases the root. Calls in flight may fail afterwards.
func (e *Engine) Close() error {
	if e.jr != nil {
		e.jr.Close()
	}
	e.mounts.close()
	e.top.Close()
	return e.root.Close()
}

// Hooks connect one call to its client.
type Hooks struct {
	// Event receives *schema.FileReadEvent, *schema.FileWrittenEvent and the other event types,
	// synchronously, before Call returns. Nil drops events.
	Event func(ev any)
	// ChangeRequest asks the client to approve a change before it touches disk; the answer
	// approves, rejects or edits it (see [schema.ChangeRequestResult]). Nil means the client
	// offered no change requests: changes then go ahead unasked, except those an interrupt
	// permission rule covers, which fail with permission_denied. An error aborts the call with
	// change_request_failed and nothing applied.
	ChangeRequest func(ctx context.Context, req *schema.FileChangeRequest) (schema.ChangeRequestResult, error)
	// TextOnly says the caller keeps only the result's text (the "text" result shape): the tools
	// whose typed fields cost work of their own (read_file's content, the listings' entries)
	// leave them empty instead of building them. The text is the same either way.
	TextOnly bool
}

// Approve and Reject are the two plain answers to a change request.
func Approve() schema.ChangeRequestResult { return schema.ChangeRequestResult{Approve: true} }

// Reject refuses a change with reason (shown to the model).
func Reject(reason string) schema.ChangeRequestResult {
	return schema.ChangeRequestResult{Reason: reason}
}

// call is the state of one tool call, passed to every tool handler.
type call struct {
	ctx   context.Context
	tool  string
	hooks Hooks
	// fn is the tool's handler (toolTable), which a reviewer's replacement arguments run again.
	fn toolFunc
	// redo is the reviewer's replacement arguments, which the approval returned (see [Engine.ask]):
	// Call runs the tool on them once the handler has returned and released its locks.
	redo *reviewerEdit
	// review is set on the run applying a reviewer's replacement arguments (see [reviewerEdit]).
	review *reviewerEdit
	// audit gathers the call's audit record; nil without an audit log (audit.go).
	audit *auditTrail
	// jgroup is the call's group in the journal (journal_record.go), 0 until it records;
	// undoes is the group undo_last_change reverts.
	jgroup, undoes uint64
}

// typed reports whether the caller wants the result's typed fields (see [Hooks.TextOnly]).
func (c *call) typed() bool { return !c.hooks.TextOnly }

// emit sends an event (one of the schema event types) to the host, if it listens.
func (c *call) emit(ev any) {
	if c.hooks.Event != nil {
		c.hooks.Event(ev)
	}
}

// base returns the EventBase of an event of kind about the root-relative path rel.
func (e *Engine) base(c *call, kind, rel string) schema.EventBase {
	return schema.EventBase{Kind: kind, Path: rel, RootDir: e.rootDir, Tool: c.tool}
}

// Call runs the named tool. The result is the tool's *schema.XxxResult; every error is an
// *Error: unknown_tool for a name that is not enabled, invalid_arguments for arguments that do
// not fit the tool's schema (unknown fields are named), and the error kinds of docs/protocol.md §5 otherwise.
//
// Events are delivered through h.Event before Call returns, and only for calls that succeed.
// Writes, edits and directory creations are announced through h.ChangeRequest first when it is
// set (reason "listener") or when an interrupt rule matches (reason "permission_rule"); a refusal
// is a normal result with Cancelled set. Calls changing one resolved path are serialised.
func (e *Engine) Call(ctx context.Context, toolName string, args json.RawMessage, h Hooks) (res any, err error) {
	var trail *auditTrail
	if e.audit != nil {
		countCall(ctx)
		if trail, err = e.auditBegin(toolName, &h); err != nil {
			return nil, err
		}
		defer func() { res, err = e.auditEnd(trail, res, err) }()
	}
	fn, ok := toolTable[toolName]
	if !ok || !e.enabled[toolName] {
		return nil, e.unknownTool(toolName)
	}
	defer func() {
		if p := recover(); p != nil {
			res = nil
			err = &Error{Op: toolName, Kind: schema.KindInternal, Msg: schema.InternalErrorMessage,
				Err: fmt.Errorf("panic: %v\n%s", p, debug.Stack())}
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, cancelled(toolName, err)
	}
	c := &call{ctx: ctx, tool: toolName, hooks: h, fn: fn, audit: trail}
	res, err = fn(e, c, args)
	if err == nil && c.redo != nil {
		res, err = e.applyReview(c)
	}
	if err != nil {
		if _, ok := err.(*Error); !ok {
			err = &Error{Op: toolName, Kind: schema.KindInternal, Msg: schema.InternalErrorMessage, Err: err}
		}
		return nil, err
	}
	return res, nil
}

// applyReview runs the tool again on the reviewer's replacement arguments (see [reviewerEdit]).
// Any failure of that run is the tool's own error, kind unchanged, its message saying it was the
// reviewer's replacement that failed; nothing was changed.
//
// Texts echo paths as spelled, which is harmless for the model's own spelling but not for the
// reviewer's: an absolute host path the reviewer typed is rewritten in the result text and the
// error message (root-relative inside the root, a placeholder outside), so the model sees no
// host path it did not write itself.
func (e *Engine) applyReview(c *call) (any, error) {
	ed := c.redo
	c.redo, c.review = nil, ed
	res, err := c.fn(e, c, ed.args)
	scrub := e.reviewerPaths(ed.args)
	if err == nil {
		if text, ok := schema.ResultText(res); ok {
			schema.SetResultText(res, scrub.Replace(text))
		}
		return res, nil
	}
	if te, ok := err.(*Error); ok {
		wrapped := *te
		wrapped.Msg = "The reviewer's edit of this change was not applied, and nothing was changed: " + scrub.Replace(te.Msg)
		wrapped.Path = scrub.Replace(te.Path)
		return nil, &wrapped
	}
	return nil, err
}

// reviewerPaths returns the replacer of the absolute paths among the reviewer's top-level string
// arguments by what the model may see of them (see [Engine.hostToModel]), longest first.
func (e *Engine) reviewerPaths(raw json.RawMessage) *strings.Replacer {
	var args map[string]any
	_ = json.Unmarshal(raw, &args)
	var abs []string
	for _, v := range args {
		if s, ok := v.(string); ok && strings.HasPrefix(s, "/") {
			abs = append(abs, s)
		}
	}
	slices.SortFunc(abs, func(a, b string) int { return len(b) - len(a) })
	var pairs []string
	for _, s := range abs {
		pairs = append(pairs, s, e.hostToModel(s))
	}
	return strings.NewReplacer(pairs...)
}

// cancelled is the error of a call whose context ended; errors.Is(err, context.Canceled) holds.
func cancelled(op string, cause error) *Error {
	return &Error{Op: op, Kind: schema.KindInternal, Msg: "The call was cancelled.", Err: cause}
}

// pathLocks serialises changes per resolved root-relative path.
type pathLocks struct {
	mu sync.Mutex
	m  map[string]*pathLock // guarded by mu
}

type pathLock struct {
	mu   sync.Mutex
	refs int // guarded by pathLocks.mu
}

// lock locks rel and returns the unlock function.
func (l *pathLocks) lock(rel string) (unlock func()) {
	l.mu.Lock()
	if l.m == nil {
		l.m = map[string]*pathLock{}
	}
	pl := l.m[rel]
	if pl == nil {
		pl = &pathLock{}
		l.m[rel] = pl
	}
	pl.refs++
	l.mu.Unlock()
	pl.mu.Lock()
	return func() {
		pl.mu.Unlock()
		l.mu.Lock()
		pl.refs--
		if pl.refs == 0 {
			delete(l.m, rel)
		}
		l.mu.Unlock()
	}
}

// isTrue reports whether an optional flag is set and true.
func isTrue(b *bool) bool { return b != nil && *b }
