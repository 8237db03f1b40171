// Package fsboxclient is the Go client of fsbox: it starts an fsbox server as a child process and
// calls its sandboxed file tools over JSON-RPC 2.0 on the child's stdin and stdout.
//
//	c, err := fsboxclient.Start(ctx, fsboxclient.Options{RootDir: "/srv/workspace"})
//	if err != nil {
//		return err
//	}
//	defer c.Close()
//	r, err := c.ReadFile(ctx, fsboxclient.ReadFileParams{Path: "a.txt", Limit: new(20)})
//	var fe *fsboxclient.Error
//	if errors.As(err, &fe) && fe.Kind == fsboxclient.KindNotFound {
//		…
//	}
//
// The types and the one method per tool (types_gen.go, client_gen.go) are generated from
// schema/fsbox.schema.json by `fsbox gen`; this file and transport.go are written by hand.
//
// Optional fields are pointers (new(20) sets one), so an absent field is never confused with a
// zero one; optional lists are nil when absent.
package fsboxclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
)

// Options configures Start. Every field is optional.
type Options struct {
	// Binary is the fsbox executable. Empty: $FSBOX_BIN, then fsbox on $PATH.
	Binary string
	// RootDir is the directory every tool is confined to; it overrides Config.RootDir. Empty: the
	// server's default (its working directory).
	RootDir string
	// Config is sent in initialize and overrides the server's defaults.
	Config *Config
	// OnEvent receives every event the server sends (capabilities.events is requested only when it
	// is set). It runs on the connection's reader, before the response of the call that caused the
	// event is delivered, so it must return quickly and must not call the client; hand work off to
	// a goroutine if needed.
	OnEvent func(Event)
	// OnChangeRequest is asked before a change touches disk (capabilities.change_requests is
	// requested only when it is set). Return nil to approve, req.ApproveWith(content) to approve a
	// write or edit with content of the reviewer's own, req.EditArguments(params) to approve the
	// call with the reviewer's replacement arguments, req.Cancel(reason) to refuse (the call
	// then returns a normal result with Cancelled set), or any other error to fail: the server
	// then aborts the call with a fatal change_request_failed error. It runs on its own goroutine
	// and may call the client; ctx is cancelled when the client closes.
	OnChangeRequest func(ctx context.Context, req *ChangeRequest) error
	// ResultShape asks the server for tools/call results of one shape (capabilities.result_shape):
	// "" or ResultShapeBoth, the default, for every typed field and text; ResultShapeText for
	// results that carry only their text, for a caller that hands only text to the model and need
	// not pay to encode and decode the typed fields; ResultShapeTyped for results without their
	// text (the typed methods then return results whose Text is empty). With ResultShapeText the
	// typed methods refuse before sending anything, with an error wrapping ErrResultShape: use
	// Client.Text (or Client.Call for the raw {"text": …}). Any other value fails Start.
	ResultShape string
	// Stderr receives the server's stderr. Nil: os.Stderr. Its last lines are also kept for the
	// error returned when the server exits unexpectedly.
	Stderr io.Writer
	// Audit, when set, has the server append one JSON line per call to an audit log (fsbox serve
	// --audit; each line an AuditRecord of the schema bundle), written before the call's reply.
	// The log must lie outside RootDir and every mount.
	Audit *AuditLog
}

// AuditLog is where and how the server keeps its audit log (the --audit flags of fsbox serve).
type AuditLog struct {
	// Path is the log file, created 0600 when missing and appended to otherwise.
	Path string
	// MaxBytes rotates the log (Path.1, Path.2, …) before it would grow past this size; 0 never
	// rotates.
	MaxBytes int64
	// Keep is the number of rotated files kept; 0 means the server's default (5).
	Keep int
	// Sync makes every line durable (fdatasync) before the reply.
	Sync bool
}

// args returns the serve flags of a.
func (a *AuditLog) args() []string {
	if a == nil {
		return nil
	}
	out := []string{"--audit", a.Path}
	if a.MaxBytes > 0 {
		out = append(out, "--audit-max-bytes", strconv.FormatInt(a.MaxBytes, 10))
	}
	if a.Keep > 0 {
		out = append(out, "--audit-keep", strconv.Itoa(a.Keep))
	}
	if a.Sync {
		out = append(out, "--audit-sync")
	}
	return out
}

// ChangeRequest is a change the server asks OnChangeRequest to approve.
type ChangeRequest struct {
	FileChangeRequest
}

// Cancel returns the error that refuses the change with reason, shown to the model: return
// req.Cancel("…") from OnChangeRequest.
func (r *ChangeRequest) Cancel(reason string) error { return &RefusedError{Reason: reason} }

// ApproveWith returns the answer that approves a write or an edit with content as the file's
// whole new content instead of what the model proposed: return req.ApproveWith("…") from
// OnChangeRequest. The server writes it to the same path under the same checks; the result and
// event say modified_by_reviewer. Other operations fail the call (change_request_failed).
func (r *ChangeRequest) ApproveWith(content string) error {
	return &EditedError{Content: &content}
}

// EditArguments returns the answer that approves the change with replacement arguments for the
// tool call (a typed params value such as WriteFileParams, or a map), which replace the model's
// entirely: return req.EditArguments(…) from OnChangeRequest. The server checks them exactly as
// if the model had sent them; a delete or remove_directory cannot be edited.
func (r *ChangeRequest) EditArguments(args any) error {
	raw, err := json.Marshal(args)
	if err != nil {
		return fmt.Errorf("fsboxclient: the reviewer's arguments cannot be encoded: %w", err)
	}
	return &EditedError{Arguments: raw}
}

// RefusedError is the refusal of a change request; OnChangeRequest returns it through
// ChangeRequest.Cancel (possibly wrapped).
type RefusedError struct {
	Reason string
}

func (e *RefusedError) Error() string { return "fsboxclient: change refused: " + e.Reason }

// EditedError is an approval with the reviewer's edit (decision "edit"); OnChangeRequest returns it
// through ChangeRequest.ApproveWith or EditArguments (possibly wrapped). The result then has
// ModifiedByReviewer set.
type EditedError struct {
	Content   *string
	Arguments json.RawMessage
}

func (e *EditedError) Error() string { return "fsboxclient: change edited by the reviewer" }

// Error is a failure the server reported: a tool error (Kind set, from the error's data) or a
// protocol error (Kind empty). Compare kinds, never messages:
//
//	var fe *fsboxclient.Error
//	if errors.As(err, &fe) && fe.Kind == fsboxclient.KindStaleHash { … }
type Error struct {
	Code  int       // JSON-RPC error code: CodeRetry, CodeFatal, CodeInvalidParams, CodeCancelled, …
	Kind  ErrorKind // what failed; empty for errors without fsbox data
	Retry bool      // the model can fix the call and try again
	// CountsAsRetry says whether the failure should spend one of the model's retries: false for a
	// lookup that found nothing (not_found), which is an answer rather than a mistake.
	CountsAsRetry bool
	Path          string          // root-relative path the failure is about, if any
	Message       string          // written for the model
	Data          json.RawMessage // the error's data member as sent
}

func (e *Error) Error() string {
	if e.Kind == "" {
		return fmt.Sprintf("fsbox: %s (code %d)", e.Message, e.Code)
	}
	return fmt.Sprintf("fsbox: %s: %s", e.Kind, e.Message)
}

// IsRetry reports whether the model can fix the call and try again; false means the run should
// stop.
func (e *Error) IsRetry() bool { return e.Retry }

// ErrConnectionLost is wrapped by the error of every call made or in flight after the server
// process died or closed its stdout; the error also says how it exited and its last stderr lines.
// ErrClosed matches it too (errors.Is), so one check covers "the server is gone", as
// ConnectionLostError does in the Python and TypeScript SDKs (docs/errors.md).
var ErrConnectionLost = errors.New("fsboxclient: connection lost: fsbox server exited")

// ErrServerExited is the name ErrConnectionLost had before the SDKs shared one error scheme.
//
// Deprecated: use ErrConnectionLost, the same value.
var ErrServerExited = ErrConnectionLost

// ErrClosed is returned by calls on a closed Client, and by calls still in flight when it closes.
// It matches ErrConnectionLost with errors.Is: the connection is gone because you closed it.
var ErrClosed error = closedError{}

// closedError is ErrClosed: its own message, and errors.Is(ErrClosed, ErrConnectionLost) holds.
type closedError struct{}

func (closedError) Error() string        { return "fsboxclient: client closed" }
func (closedError) Is(target error) bool { return target == ErrConnectionLost }

// Start locates the fsbox binary, spawns `fsbox serve` and initializes the session. ctx bounds the
// start only; the server lives until Close.
func Start(ctx context.Context, opts Options) (*Client, error) {
	bin, err := findBinary(opts.Binary)
	if err != nil {
		return nil, err
	}
	c, err := spawn(bin, opts)
	if err != nil {
		return nil, err
	}
	params := InitializeParams{
		ProtocolVersion: ProtocolVersion,
		ClientInfo:      &Implementation{Name: "fsboxclient-go", Version: moduleVersion()},
		Capabilities: &ClientCapabilities{
			Events:         new(opts.OnEvent != nil),
			ChangeRequests: new(opts.OnChangeRequest != nil),
		},
	}
	if opts.ResultShape != "" {
		params.Capabilities.ResultShape = new(opts.ResultShape)
	}
	if opts.Config != nil || opts.RootDir != "" {
		cfg := Config{}
		if opts.Config != nil {
			cfg = *opts.Config
		}
		if opts.RootDir != "" {
			cfg.RootDir = new(opts.RootDir)
		}
		params.Config = &cfg
	}
	var session InitializeResult
	if err := c.call(ctx, methodInitialize, params, &session); err != nil {
		c.Close()
		return nil, err
	}
	if err := checkSchemaHash(bin, session.SchemaHash); err != nil {
		c.Close()
		return nil, err
	}
	c.session = &session
	return c, nil
}

// Version is the release of this SDK; the fsbox binary and the Python and TypeScript packages of
// the same release carry the same one.
const Version = "0.1.0"

// ErrSchemaMismatch is wrapped by Start's error when the server's schema_hash is not the one the
// generated types were made from: the binary and this SDK come from different releases, and
// results could decode wrongly, so the session is refused rather than half-working.
var ErrSchemaMismatch = errors.New("fsboxclient: schema mismatch")

// checkSchemaHash compares the schema_hash a server answered initialize with against SchemaHash.
func checkSchemaHash(bin, got string) error {
	if got == SchemaHash {
		return nil
	}
	return fmt.Errorf("%w: %s answers with schema_hash %q, but this SDK (fsboxclient %s) was generated from %s; "+
		"use the fsbox binary of the same release, or regenerate the SDK from the binary with `fsbox gen --lang go`",
		ErrSchemaMismatch, bin, got, Version, SchemaHash)
}

// moduleVersion is the version of the fsbox module this package was built from, for client_info.
func moduleVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	const module = "github.com/fsbox/fsbox"
	if info.Main.Path == module && info.Main.Version != "(devel)" && info.Main.Version != "" {
		return info.Main.Version
	}
	for _, dep := range info.Deps {
		if dep.Path == module && dep.Version != "(devel)" {
			return dep.Version
		}
	}
	return Version
}

// howToGet says what gives a user an fsbox binary today, for BinaryNotFound-style errors.
const howToGet = "get one with `pip install fsbox` or `npm install @fsbox/sdk` (both bundle the binary), " +
	"or build it from a checkout of the fsbox repository with `go build -o bin/fsbox ./cmd/fsbox`"

// ErrBinaryNotFound is wrapped by Start's error when no fsbox executable is given and none is
// found; the error says how to get one.
var ErrBinaryNotFound = errors.New("fsboxclient: fsbox binary not found")

// findBinary picks the fsbox executable. Precedence:
//
//  1. Options.Binary;
//  2. $FSBOX_BIN;
//  3. fsbox on $PATH.
//
// The Go SDK bundles no binary: a Go program depends on the module, not on a platform package.
func findBinary(explicit string) (string, error) {
	if explicit != "" {
		return explicit, nil
	}
	if env := os.Getenv("FSBOX_BIN"); env != "" {
		return env, nil
	}
	if p, err := exec.LookPath("fsbox"); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("%w: set Options.Binary or FSBOX_BIN, or put fsbox on PATH; %s", ErrBinaryNotFound, howToGet)
}

// Session returns what the server answered to initialize: the resolved root, cwd, enabled tools
// and schema hash.
func (c *Client) Session() *InitializeResult { return c.session }

// Tools returns the enabled tools as listed at initialize.
func (c *Client) Tools() []ToolDescriptor { return c.session.Tools }

// ListTools asks the server for the enabled tools.
func (c *Client) ListTools(ctx context.Context) ([]ToolDescriptor, error) {
	var r ToolsListResult
	if err := c.call(ctx, methodToolsList, nil, &r); err != nil {
		return nil, err
	}
	return r.Tools, nil
}

// Schema returns the server's JSON Schema bundle, as sent.
func (c *Client) Schema(ctx context.Context) (json.RawMessage, error) {
	var r json.RawMessage
	err := c.call(ctx, methodSchema, nil, &r)
	return r, err
}

// Call calls the tool name with args (anything that marshals to a JSON object, or a
// json.RawMessage; nil sends no arguments) and returns the result as sent. It serves tools this
// package has no typed method for; tool failures are *Error as with the typed methods.
func (c *Client) Call(ctx context.Context, name string, args any) (json.RawMessage, error) {
	var r json.RawMessage
	if err := c.callTool(ctx, name, args, &r); err != nil {
		return nil, err
	}
	return r, nil
}

// Result shapes for Options.ResultShape.
const (
	ResultShapeBoth  = "both"
	ResultShapeText  = "text"
	ResultShapeTyped = "typed"
)

// ErrResultShape is wrapped by the error of every typed method of a client started with
// ResultShape "text": its results carry no typed fields to decode, and a typed result with only
// Text set would read as an empty listing or a zero size. The call is not sent.
var ErrResultShape = errors.New(`fsboxclient: the session's result shape is "text"`)

// ErrTextShape is the name ErrResultShape had before the SDKs shared one error scheme.
//
// Deprecated: use ErrResultShape, the same value.
var ErrTextShape = ErrResultShape

// Text calls the tool name with args (as Call takes them) and returns the text of its result,
// the part meant for the model, in any result shape but "typed" (whose results carry no text:
// that is an error). It is the typed way to call a tool with ResultShape "text".
func (c *Client) Text(ctx context.Context, name string, args any) (string, error) {
	var r textOnly
	if err := c.callTool(ctx, name, args, &r); err != nil {
		return "", err
	}
	if r.Text == nil {
		return "", fmt.Errorf("fsboxclient: %s: the result has no text (the session's result shape is %q)", name, c.session.ResultShape)
	}
	return *r.Text, nil
}

// textOnly decodes the text of a result and nothing else.
type textOnly struct {
	Text *string `json:"text"`
}

// callTool sends tools/call and decodes the result into result. The typed methods of
// client_gen.go call it; in the "text" shape only Call and Text may (see ErrResultShape).
func (c *Client) callTool(ctx context.Context, name string, args, result any) error {
	if c.session != nil && c.session.ResultShape == ResultShapeText {
		switch result.(type) {
		case *json.RawMessage, *textOnly:
		default:
			return fmt.Errorf("%w: %s: its results carry only text, so there is nothing to decode into %T; use Client.Text or Client.Call, or start without ResultShape %q",
				ErrResultShape, name, result, ResultShapeText)
		}
	}
	p := ToolsCallParams{Name: name}
	if args != nil {
		raw, ok := args.(json.RawMessage)
		if !ok {
			var err error
			if raw, err = json.Marshal(args); err != nil {
				return fmt.Errorf("fsboxclient: %s: encoding arguments: %w", name, err)
			}
		}
		p.Arguments = raw
	}
	return c.call(ctx, methodToolsCall, p, result)
}
