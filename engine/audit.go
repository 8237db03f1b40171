package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsbox/fsbox/engine/internal/audit"
	"github.com/fsbox/fsbox/engine/internal/fserr"
	"github.com/fsbox/fsbox/engine/internal/text"
	"github.com/fsbox/fsbox/schema"
)

// The audit log (fsbox serve/mcp --audit FILE): one schema.AuditRecord per call, appended before
// Call returns, so before any front end sends the call's reply. engine/internal/audit writes the
// lines (one write(2) each, O_APPEND, rotation); this file decides what a line holds and hooks it
// into Call:
//
//  1. every call is recorded, an unknown tool or invalid arguments included, with the paths it
//     resolved to (root-relative: taken from the events, change requests, commits and errors
//     the engine already makes for the model and host, which never hold host paths), its
//     outcome and error kind, the content hashes before and after each file it wrote, and who
//     decided its change;
//  2. a line never holds file contents or free text (diffs, reasons, patterns, arguments): only
//     names, root-relative paths, hashes, kinds and numbers;
//  3. it fails closed: when a line cannot be written, the call's result is withheld (kind
//     audit_failed; a change it made stays made, and its line is what is missing), and from
//     then on every call is refused before it runs, so nothing runs unaudited;
//  4. the log must lie outside the root and every mount (New refuses otherwise), so the model can
//     neither read nor alter it; a rotating log's directory must not hold them either, since
//     rotation lets the confined process create and remove files beneath it.
//
// It does not record what the model was shown. The front ends record the tools/calls they refuse
// before Call (server/audit.go, mcpserver/audit.go). A host method (checkpoint/restore, say)
// records its own line through [Engine.AuditSession] and [AuditSession.Record], with Method its
// name and the paths and changes it made, before it replies; when Record fails it answers
// audit_failed (the session then refuses every later call, as for a tool call).

// AuditOptions are the host's audit log settings.
type AuditOptions struct {
	// Path is the log file, created 0600 when missing, appended to otherwise. Exactly one of
	// Path and File.
	Path string
	// File is a descriptor the host opened for appending (--audit-fd): a regular file, FIFO or
	// socket. It never rotates.
	File *os.File
	// MaxBytes rotates the log (FILE → FILE.1 … FILE.Keep) before a line would take it past
	// this size; 0 never rotates.
	MaxBytes int64
	// Keep is the number of rotated files kept, at least 1 when MaxBytes is set.
	Keep int
	// Sync fdatasyncs every line before the reply (durable across a power loss, at the cost of
	// a disk flush per call); without it a line is in the page cache when the reply is sent,
	// which outlives the process, not the machine.
	Sync bool
	// Logf hears, once, why the log failed (the host's stderr); nil says nothing.
	Logf func(format string, args ...any)
}

// AuditLog is a process's audit log, shared by its sessions. It is safe for concurrent use.
type AuditLog struct {
	w        *audit.Writer
	logf     func(format string, args ...any)
	sessions atomic.Int64
	failOnce sync.Once
}

// OpenAuditLog opens the log, refusing a name that is a symlink, FIFO or device, or a file with
// a second hard link.
func OpenAuditLog(o AuditOptions) (*AuditLog, error) {
	w, err := audit.Open(audit.Options{Path: o.Path, File: o.File, MaxBytes: o.MaxBytes, Keep: o.Keep, Sync: o.Sync})
	if err != nil {
		return nil, err
	}
	return &AuditLog{w: w, logf: o.Logf}, nil
}

// Close closes the log.
func (l *AuditLog) Close() error { return l.w.Close() }

// Session returns the recorder of a new session: sessions are numbered 1, 2, … in the order
// they ask.
func (l *AuditLog) Session() *AuditSession {
	return &AuditSession{log: l, id: int(l.sessions.Add(1))}
}

// AuditSession records the calls of one session. A nil *AuditSession records nothing.
type AuditSession struct {
	log *AuditLog
	id  int
}

// auditSeqPrefix is how every encoded record begins before the writer numbers it.
var auditSeqPrefix = []byte(`{"seq":0,`)

// Record appends r, its seq and session set here (and time, when empty, to now). It is for
// calls that do not pass through [Engine.Call]: a host method, a tools/call refused before it
// named a tool. An error means the line is not in the log: the caller must withhold the
// call's result (see [ErrAuditFailed]).
func (s *AuditSession) Record(r schema.AuditRecord) error {
	if s == nil {
		return nil
	}
	r.Seq, r.Session = 0, s.id
	if r.Time == "" {
		r.Time = auditTime(time.Now())
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // "<absent>" reads as itself
	err := enc.Encode(r)
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if err != nil || !bytes.HasPrefix(b, auditSeqPrefix) {
		return s.log.failed(fmt.Errorf("encoding an audit record: %v", err))
	}
	if _, err := s.log.w.Append(b[len(auditSeqPrefix):]); err != nil {
		return s.log.failed(err)
	}
	return nil
}

// Err returns why the log can no longer be written, nil while it can.
func (s *AuditSession) Err() error {
	if s == nil {
		return nil
	}
	return s.log.w.Err()
}

func (l *AuditLog) failed(err error) error {
	l.failOnce.Do(func() {
		if l.logf != nil {
			l.logf("audit log: %v; every call is refused from now on", err)
		}
	})
	return err
}

// rotateDir is the directory the confinement must let the process rotate the log in, or "".
func (s *AuditSession) rotateDir() string {
	if s == nil {
		return ""
	}
	return s.log.w.RotateDir()
}

// ErrAuditFailed is wrapped by the audit_failed errors.
var ErrAuditFailed = errors.New("the audit log cannot be written")

// auditRefusal is the error of a call refused unrun because the log failed before it.
func auditRefusal(tool string, cause error) *Error {
	return &Error{Op: tool, Kind: schema.KindAuditFailed, Err: fmt.Errorf("%w: %v", ErrAuditFailed, cause),
		Msg: "The call was not run: the host's audit log cannot be written, so no call is answered any more. The host must repair the audit log and restart fsbox."}
}

// auditWithheld is the error of a call whose line could not be written after it ran.
func auditWithheld(tool string, cause error) *Error {
	return &Error{Op: tool, Kind: schema.KindAuditFailed, Err: fmt.Errorf("%w: %v", ErrAuditFailed, cause),
		Msg: "The call's result is withheld: the host's audit log could not be written. A change this call made may have been applied; no further call will run."}
}

// CheckOutside refuses directories that hold the log (the log's directory or one above it): a
// host checks its root and mounts at startup with it, before any session; [New] checks every
// session's again.
func (l *AuditLog) CheckOutside(dirs ...string) error {
	for _, d := range dirs {
		fi, err := os.Stat(d)
		if err != nil {
			continue // the session's New reports a root that is not there
		}
		if id, ok := audit.IDOf(fi); ok && l.w.Within(id) {
			return fmt.Errorf("the audit log lies inside %s, where the model could read or change it; put it outside the root and every mount", d)
		}
		if f, err := os.Open(d); err == nil {
			above := l.w.RotatesAbove(f)
			f.Close()
			if above {
				return fmt.Errorf("the audit log rotates (--audit-max-bytes) in a directory that holds %s, and rotating lets fsbox create and remove files beneath that directory; give the audit log a directory of its own", d)
			}
		}
	}
	return nil
}

// checkAudit refuses a root or mount that holds the audit log (rule 4): the model could read or
// alter it there.
func (e *Engine) checkAudit() *Error {
	if e.audit == nil {
		return nil
	}
	tops := []*os.File{e.top}
	for _, m := range e.mounts.all() {
		tops = append(tops, m.top)
	}
	for _, f := range tops {
		fi, err := f.Stat()
		if err != nil {
			continue
		}
		if id, ok := audit.IDOf(fi); ok && e.audit.log.w.Within(id) {
			return fserr.Config("root_dir: the host's audit log lies inside this root or one of its mounts, where the model could read or change it; the audit log must lie outside every root and mount")
		}
		if e.audit.log.w.RotatesAbove(f) {
			return fserr.Config("root_dir: the host's audit log rotates (--audit-max-bytes) in a directory that holds this root or one of its mounts, and rotating lets the process create and remove files beneath that directory; give the audit log a directory of its own")
		}
	}
	return nil
}

// answeredByKey keys the *string a ChangeRequest hook may set through [AnsweredBy].
type answeredByKey struct{}

// AnsweredBy tells the audit log who answered the change request whose hook received ctx: a
// front end's hook calls it with schema.AuditByHost when it decided from the host's settings
// instead of asking its client. Without the call the answer is the client's. A no-op for any
// other ctx.
func AnsweredBy(ctx context.Context, by string) {
	if p, ok := ctx.Value(answeredByKey{}).(*string); ok {
		*p = by
	}
}

// ErrChangeDeferred, wrapped in a ChangeRequest hook's error, says the answer comes with a later
// call (MCP's multi-round-trip approval): nothing is changed, and the audit log records the call
// as pending rather than failed.
var ErrChangeDeferred = errors.New("the change awaits an answer that comes with a later call")

// auditTrail gathers one call's record while it runs. Its methods are no-ops on nil (no log).
type auditTrail struct {
	start time.Time
	tool  string

	mu       sync.Mutex
	paths    []string
	seen     map[string]bool
	omitted  int
	changes  []schema.AuditChange
	decision *schema.AuditDecision
}

// maxAuditPaths bounds a line's paths.
const maxAuditPaths = 256

// maxAuditHashBytes bounds the old content a write without a guard reads to hash for the log
// (a variable for tests).
var maxAuditHashBytes int64 = 64 << 20

// auditBegin starts the trail of a call, wrapping h so events and change requests are seen; a
// log that already failed refuses the call unrun.
func (e *Engine) auditBegin(tool string, h *Hooks) (*auditTrail, error) {
	if err := e.audit.Err(); err != nil {
		return nil, auditRefusal(tool, err)
	}
	t := &auditTrail{start: time.Now(), tool: tool}
	ev := h.Event
	h.Event = func(x any) {
		t.event(x)
		if ev != nil {
			ev(x)
		}
	}
	if ask := h.ChangeRequest; ask != nil {
		h.ChangeRequest = func(ctx context.Context, req *schema.FileChangeRequest) (schema.ChangeRequestResult, error) {
			by := schema.AuditByClient
			ans, err := ask(context.WithValue(ctx, answeredByKey{}, &by), req)
			t.path(req.Path)
			t.decide(answerOf(ans, err), by)
			return ans, err
		}
	}
	return t, nil
}

// answerOf classifies a change request's answer as decide will take it.
func answerOf(ans schema.ChangeRequestResult, err error) string {
	if err != nil {
		if errors.Is(err, ErrChangeDeferred) {
			return schema.AuditAwaiting
		}
		return schema.AuditFailed
	}
	replaces := ans.Content != nil || ans.Arguments != nil
	switch ans.Decision {
	case schema.DecisionApprove:
		return schema.AuditApproved
	case schema.DecisionReject:
		return schema.AuditRejected
	case schema.DecisionEdit:
		return schema.AuditEdited
	case "":
	default:
		return schema.AuditFailed
	}
	switch {
	case ans.Approve && replaces:
		return schema.AuditEdited
	case ans.Approve:
		return schema.AuditApproved
	case replaces:
		return schema.AuditFailed
	}
	return schema.AuditRejected
}

// decide records the call's first decision; a reviewer's replacement run decides nothing anew.
func (t *auditTrail) decide(answer, by string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.decision == nil {
		t.decision = &schema.AuditDecision{Answer: answer, By: by}
	}
}

// path records a root-relative path the call reached, once.
func (t *auditTrail) path(rel string) {
	if t == nil || rel == "" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.addPath(rel)
}

func (t *auditTrail) addPath(rel string) {
	if t.seen[rel] {
		return
	}
	if len(t.paths) >= maxAuditPaths {
		t.omitted++
		return
	}
	if t.seen == nil {
		t.seen = map[string]bool{}
	}
	t.seen[rel] = true
	t.paths = append(t.paths, rel)
}

// committed records a file's content replaced or created by commitFile.
func (t *auditTrail) committed(rel, before string, content []byte) {
	if t == nil {
		return
	}
	after := text.ContentHash(content)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.addPath(rel)
	t.changes = append(t.changes, schema.AuditChange{Op: "write", Path: rel, Before: before, After: after})
}

// auditBefore is the content hash a commit replaces, for the log: the guard it checked, absent
// for a create, else read now under the commit's locks. "" without a log.
func (e *Engine) auditBefore(c *call, s commitSpec, dir *os.Root, name string, cur fs.FileInfo, exists bool) string {
	switch {
	case c.audit == nil:
		return ""
	case !exists:
		return absentHash
	case s.guard != "" && s.guard != absentHash:
		return s.guard
	case cur.Size() > maxAuditHashBytes:
		return "<unhashed>" // bounded work: the write itself never reads the old content
	}
	h, err := hashIn(dir, name, cur)
	if err != nil {
		return "<unreadable>"
	}
	return h
}

// event records the paths and changes of an event the call emits.
func (t *auditTrail) event(ev any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch ev := ev.(type) {
	case *schema.FileReadEvent:
		t.addPath(ev.Path)
	case *schema.DirectoryListedEvent:
		t.addPath(ev.Path)
	case *schema.FilesSearchedEvent:
		t.addPath(ev.Path)
	case *schema.FileWrittenEvent:
		t.settle(ev.Path, ev.ContentHash)
	case *schema.FileEditedEvent:
		t.settle(ev.Path, ev.ContentHash)
	case *schema.DirectoryCreatedEvent:
		t.addPath(ev.Path)
		t.changes = append(t.changes, schema.AuditChange{Op: "create_directory", Path: ev.Path})
	case *schema.DirectoryRemovedEvent:
		t.addPath(ev.Path)
		t.changes = append(t.changes, schema.AuditChange{Op: "remove_directory", Path: ev.Path})
	case *schema.FileDeletedEvent:
		t.addPath(ev.Path)
		t.changes = append(t.changes, schema.AuditChange{Op: "delete", Path: ev.Path})
	case *schema.FileMovedEvent:
		t.addPath(ev.Source)
		t.addPath(ev.Path)
		t.changes = append(t.changes, schema.AuditChange{Op: "move", Path: ev.Path, Source: ev.Source})
	}
}

// settle sets the hash after a write to the file's content after the post_edit hooks.
func (t *auditTrail) settle(rel, hash string) {
	t.addPath(rel)
	for i := len(t.changes) - 1; i >= 0; i-- {
		if t.changes[i].Op == "write" && t.changes[i].Path == rel {
			t.changes[i].After = hash
			return
		}
	}
	t.changes = append(t.changes, schema.AuditChange{Op: "write", Path: rel, After: hash})
}

// auditEnd writes the call's line and returns what Call returns: the call's own result and
// error, or audit_failed when the line could not be written.
func (e *Engine) auditEnd(t *auditTrail, res any, err error) (any, error) {
	r := schema.AuditRecord{Time: auditTime(t.start), Method: schema.AuditMethodTool, Tool: AuditToolName(t.tool), Outcome: schema.AuditOK}
	t.mu.Lock()
	var ee *Error
	if errors.As(err, &ee) && ee.Path != "" && !path.IsAbs(ee.Path) && ee.Path != ".." && !strings.HasPrefix(ee.Path, "../") {
		t.addPath(ee.Path)
	}
	r.Paths, r.PathsOmitted, r.Changes, r.Decision = t.paths, t.omitted, t.changes, t.decision
	t.mu.Unlock()
	switch {
	case err != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)):
		r.Outcome = schema.AuditCancelled
	case r.Decision != nil && r.Decision.Answer == schema.AuditAwaiting:
		r.Outcome = schema.AuditPending
	case err != nil:
		r.Outcome, r.ErrorKind = schema.AuditError, schema.KindInternal
		if ee != nil {
			r.ErrorKind = ee.Kind
		}
		if r.ErrorKind == schema.KindChangeRequestFailed && r.Decision != nil {
			r.Decision.Answer = schema.AuditFailed // the answer was one decide refuses
		}
	case r.Decision != nil && r.Decision.Answer == schema.AuditRejected:
		r.Outcome = schema.AuditRefused
	}
	if r.Decision == nil && len(r.Changes) > 0 {
		r.Decision = &schema.AuditDecision{Answer: schema.AuditApproved, By: schema.AuditByPolicy}
	}
	r.DurationMs = float64(time.Since(t.start).Microseconds()) / 1000
	if werr := e.audit.Record(r); werr != nil {
		return nil, auditWithheld(t.tool, werr)
	}
	return res, err
}

// auditTime is the layout of a record's time: RFC 3339 in UTC with nine fractional digits, so
// lines sort and align as text.
func auditTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000000Z07:00") }

// AuditToolName is the tool name as a line may hold it: a name of lowercase letters, digits
// and underscores of at most 64 bytes; "" otherwise (the model's free text stays out of the log).
func AuditToolName(name string) string {
	if name == "" || len(name) > 64 {
		return ""
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return ""
		}
	}
	return name
}

// AuditSession returns the engine's audit recorder, nil without a log: a front end records
// through it the calls it refuses before they reach Call.
func (e *Engine) AuditSession() *AuditSession { return e.audit }

// callCountKey keys the counter of [WithCallCount].
type callCountKey struct{}

// WithCallCount returns ctx carrying a counter that every audited [Engine.Call] (an engine with
// an audit log) made with it, or with a context derived from it, increments: a front end that
// maps one request onto zero or more calls (MCP's compatibility tools) learns whether the audit
// log saw the request.
func WithCallCount(ctx context.Context) (context.Context, *atomic.Int64) {
	n := new(atomic.Int64)
	return context.WithValue(ctx, callCountKey{}, n), n
}

// countCall increments ctx's counter of WithCallCount, if any.
func countCall(ctx context.Context) {
	if n, ok := ctx.Value(callCountKey{}).(*atomic.Int64); ok {
		n.Add(1)
	}
}
