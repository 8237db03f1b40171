package conformance

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

// Vector is one conformance case: a fixture, a configuration, a script of steps and the checks
// that follow. Vectors are data (conformance/vectors/**.json, validated by vector.schema.json); the
// runner owns every filesystem access and every comparison.
type Vector struct {
	// ID is the file's path below vectors/ without ".json", e.g. "traversal/read_file-dotdot".
	ID string `json:"-"`
	// Category is the first component of ID: the row of the report's table.
	Category    string `json:"-"`
	Description string `json:"description"`
	// Spec names the docs/protocol.md sections the vector checks, e.g. "§5 containment".
	Spec []string `json:"spec,omitempty"`
	// Requires names capabilities of the platform or target; a vector whose requirement is not
	// met is skipped, never failed.
	Requires []string `json:"requires,omitempty"`
	// Tags are the vector's own tags (CVE ids, advisories); AllTags adds the derived ones.
	Tags []string `json:"tags,omitempty"`
	// Generated names the template a generated vector came from.
	Generated string `json:"generated,omitempty"`

	Workspace []Entry `json:"workspace,omitempty"`
	// Outside is added to both outside trees (the prefix sibling ws-outside and the unrelated
	// elsewhere), which always hold secret.txt and sub/deep.txt.
	Outside []Entry `json:"outside,omitempty"`
	// Mounted is a third tree, <base>/mounted ({{mounted}} in strings), for the host's mounts to
	// show inside the root (host_config.mounts); it shares no prefix with the root.
	Mounted []Entry `json:"mounted,omitempty"`
	// Config is merged over {root_dir: <fixture root>} in initialize.
	Config map[string]any `json:"config,omitempty"`
	// HostConfig, when set, is the host's configuration: the runner writes it, over
	// {root_dir: <fixture root>}, to a JSON file and starts the server as `serve --config FILE`
	// would be, so the host fixed the policy and Config may only narrow it. It needs the target
	// capability host_config.
	HostConfig map[string]any `json:"host_config,omitempty"`
	// Events asks for event notifications (default true).
	Events *bool `json:"events,omitempty"`
	// ChangeRequests offers the change_requests capability.
	ChangeRequests bool `json:"change_requests,omitempty"`
	// ResultShape is sent as capabilities.result_shape ("both", "text", "typed", or anything, to
	// be refused); omitted: not sent, so results have the default shape. Results are validated
	// against the bundle's output schemas only in the "both" shape, which is the one they describe.
	// It needs the target capability result_shape.
	ResultShape *string `json:"result_shape,omitempty"`
	// RootViaSymlink passes the root as a symlink to it; root_dir in the result must be resolved.
	RootViaSymlink bool `json:"root_via_symlink,omitempty"`
	// Handshake "manual": the runner sends no initialize; the steps do (raw wire only).
	Handshake string `json:"handshake,omitempty"`
	// Init matches the initialize outcome: {"result": …} or {"error": …}. Omitted: success.
	Init *Expect `json:"init,omitempty"`

	Steps []Step `json:"steps"`
	// After is checked against the workspace when the steps are done.
	After []Entry `json:"after,omitempty"`
	// AfterMounted is checked against the mounted tree when the steps are done.
	AfterMounted []Entry `json:"after_mounted,omitempty"`
}

// Expect matches an outcome: a result (subset match with matchers) or an error.
type Expect struct {
	Result any `json:"result,omitempty"`
	Error  any `json:"error,omitempty"`
}

// Content is a tagged file content: exactly one of the fields.
type Content struct {
	Text   *string   `json:"text,omitempty"`
	Base64 *string   `json:"base64,omitempty"`
	Repeat *Repeat   `json:"repeat,omitempty"`
	Lines  *Lines    `json:"lines,omitempty"`
	Concat []Content `json:"concat,omitempty"`
}

// Repeat is Text repeated Count times.
type Repeat struct {
	Text  string `json:"text"`
	Count int    `json:"count"`
}

// Lines is Count lines made from Format, where %d is the 1-based line number (default "line %d\n").
type Lines struct {
	Count  int    `json:"count"`
	Format string `json:"format,omitempty"`
}

// Entry is one fixture entry, or one expectation about the tree in After.
type Entry struct {
	Path string `json:"path"`
	Content
	Dir     bool    `json:"dir,omitempty"`
	Symlink *string `json:"symlink,omitempty"`
	FIFO    bool    `json:"fifo,omitempty"`
	// Mode is an octal string ("0640"); applied after all entries exist.
	Mode string `json:"mode,omitempty"`
	// Absent (After only): nothing exists at Path.
	Absent bool `json:"absent,omitempty"`
}

// FSOp is a change the runner makes to the disk itself, between steps or while a change request
// is pending. Op is "create" (an Entry, replacing what is there), "delete", "rename" (to To) or
// "chmod" (Mode). In "outside" addresses the prefix sibling tree, "elsewhere" the unrelated one,
// "mounted" the mounted tree (Vector.Mounted).
type FSOp struct {
	Op string `json:"op"`
	Entry
	To string `json:"to,omitempty"`
	In string `json:"in,omitempty"`
}

// Step is one action of a vector: a tool call, a raw wire line, a plain method call, a batch of
// concurrent calls, or only filesystem changes.
type Step struct {
	Label string `json:"label,omitempty"`
	// FS is performed before the step's request (or alone, for an fs-only step).
	FS []FSOp `json:"fs,omitempty"`

	Call string `json:"call,omitempty"`
	Args any    `json:"args,omitempty"`
	Expect
	// Events, when present, must equal the events the call caused (in order, each subset-matched).
	// A failed call must cause none, whether or not this is present.
	Events []any `json:"events,omitempty"`
	// ChangeRequests, when present, must equal the change requests the call caused.
	ChangeRequests []any `json:"change_requests,omitempty"`
	// Answers are given to the call's change requests in order; when they run out, approve.
	Answers []Answer `json:"answers,omitempty"`

	// Method sends a plain request (tools/list, schema, shutdown) with Params.
	Method string `json:"method,omitempty"`
	Params any    `json:"params,omitempty"`

	// Raw sends one line as is: a string, or parts (strings and Contents) joined.
	Raw any `json:"raw,omitempty"`
	// Responses are the responses the raw line must cause, in any order; none when empty.
	Responses []any `json:"responses,omitempty"`
	// ExpectEOF: after this step the server closes its output.
	ExpectEOF bool `json:"expect_eof,omitempty"`

	// Parallel calls are sent at once; Outcomes counts how many ended "ok" or with each error kind.
	Parallel []Step         `json:"parallel,omitempty"`
	Outcomes map[string]int `json:"outcomes,omitempty"`

	// After is checked against the workspace once the step is done.
	After []Entry `json:"after,omitempty"`
}

// Answer is the client's scripted answer to one change request.
type Answer struct {
	Approve bool   `json:"approve"`
	Reason  string `json:"reason,omitempty"`
	// Decision "edit" with Content (a write's or an edit's whole new content) or Arguments (the
	// call's replacement arguments, expanded like a step's args) approves the reviewer's
	// replacement instead; so does approve: true with either and no decision.
	Decision  string         `json:"decision,omitempty"`
	Content   *string        `json:"content,omitempty"`
	Arguments map[string]any `json:"arguments,omitempty"`
	// Error answers with a JSON-RPC error instead of a result.
	Error *RPCError `json:"error,omitempty"`
	// RawResult answers with exactly this result, whatever the other fields say: an answer a
	// well-behaved SDK cannot send (a misspelled or mistyped member), which the server must
	// refuse rather than misread. Needs the capability change_request_raw.
	RawResult json.RawMessage `json:"raw_result,omitempty"`
	// FS is performed before answering (a change racing the approval).
	FS []FSOp `json:"fs,omitempty"`
	// Cancel sends $/cancel_request for the call instead of answering; the change request is
	// answered (refused) only once the call has answered.
	Cancel bool `json:"cancel,omitempty"`
	// Calls are made, and must meet their expectations, while the change request is pending: a
	// call waiting on the client must not hold up other calls.
	Calls []Step `json:"calls,omitempty"`
}

// RPCError is a JSON-RPC error object.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Bytes returns the content's bytes.
func (c *Content) Bytes() ([]byte, error) {
	switch {
	case c.Text != nil:
		return []byte(*c.Text), nil
	case c.Base64 != nil:
		return base64.StdEncoding.DecodeString(*c.Base64)
	case c.Repeat != nil:
		return bytes.Repeat([]byte(c.Repeat.Text), c.Repeat.Count), nil
	case c.Lines != nil:
		f := c.Lines.Format
		if f == "" {
			f = "line %d\n"
		}
		var b bytes.Buffer
		for i := 1; i <= c.Lines.Count; i++ {
			b.WriteString(strings.ReplaceAll(f, "%d", fmt.Sprint(i)))
		}
		return b.Bytes(), nil
	case c.Concat != nil:
		var b bytes.Buffer
		for i := range c.Concat {
			p, err := c.Concat[i].Bytes()
			if err != nil {
				return nil, err
			}
			b.Write(p)
		}
		return b.Bytes(), nil
	}
	return nil, nil
}

// HasContent reports whether any content field is set.
func (c *Content) HasContent() bool {
	return c.Text != nil || c.Base64 != nil || c.Repeat != nil || c.Lines != nil || c.Concat != nil
}

// LoadVectors reads every vector below dir of fsys, sorted by id.
func LoadVectors(fsys fs.FS, dir string) ([]*Vector, error) {
	var out []*Vector
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		v, err := DecodeVector(data)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		v.ID = strings.TrimSuffix(strings.TrimPrefix(p, dir+"/"), ".json")
		v.Category, _, _ = strings.Cut(v.ID, "/")
		out = append(out, v)
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, err
}

// DecodeVector decodes one vector strictly (unknown fields are errors), numbers kept exact.
func DecodeVector(data []byte) (*Vector, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	var v Vector
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return &v, nil
}
