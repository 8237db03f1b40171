package schema

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/invopop/jsonschema"
)

// Bundle is the committed JSON Schema bundle, fsbox.schema.json, as served by the schema method.
//
//go:embed fsbox.schema.json
var Bundle []byte

// Hash returns "sha256:<hex>" of [Bundle], computed once per process.
func Hash() string { return bundleHash() }

var bundleHash = sync.OnceValue(func() string {
	sum := sha256.Sum256(Bundle)
	return "sha256:" + hex.EncodeToString(sum[:])
})

// JSONSchema makes ErrorKind a named, closed enum in the bundle.
func (ErrorKind) JSONSchema() *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "string", Description: "Classifies a tool failure. Clients compare kinds, never messages."}
	for _, k := range ErrorKinds {
		s.Enum = append(s.Enum, string(k.Kind))
	}
	return s
}

const bundleID = "https://fsbox.dev/schema/v1/fsbox.schema.json"

// Generate builds the bundle from the Go types of this package. commentDir is the directory holding
// this package's source (doc comments become descriptions); the bundle is only reproducible from the
// source tree, so Generate runs in a test, not in the server.
//
// The document holds $defs for every type and an "x-fsbox" manifest naming the methods, tools,
// events and error kinds by $defs reference, since JSON Schema has no notion of a method:
//
//  1. argument and params types, the results of server-to-client calls (what the client answers),
//     and everything they reach, are closed (additionalProperties: false): a wrong field name is
//     an error, never ignored (see [Decode], which enforces it);
//  2. result and event types are open, so a newer server may add fields without breaking clients;
//  3. every event type pins its kind with const.
func Generate(commentDir string) ([]byte, error) {
	r, err := newReflector(commentDir)
	if err != nil {
		return nil, err
	}
	b := &bundleBuilder{r: r, defs: map[string]*jsonschema.Schema{}}
	tools, err := b.toolEntries()
	if err != nil {
		return nil, err
	}
	events, eventRefs, err := b.eventEntries()
	if err != nil {
		return nil, err
	}
	methods, err := b.methodEntries(eventRefs)
	if err != nil {
		return nil, err
	}
	if _, err := b.add(reflect.TypeFor[ErrorData]()); err != nil {
		return nil, err
	}
	// The audit log's line (fsbox serve --audit): no method carries it, so it is added by name.
	if _, err := b.add(reflect.TypeFor[AuditRecord]()); err != nil {
		return nil, err
	}
	var kinds []kindEntry
	for _, k := range ErrorKinds {
		kinds = append(kinds, kindEntry{Kind: k.Kind, Retry: k.Retry, CountsAsRetry: CountsAsRetry(k.Kind), Description: k.Description})
	}
	for _, e := range Events {
		if p, ok := b.defs[e.Type.Name()].Properties.Get("kind"); ok {
			p.Const = e.Kind
		}
	}
	openAllExcept(b.defs, reachable(b.defs, b.closed))

	return encodeBundle(map[string]any{
		"$schema":     "https://json-schema.org/draft/2020-12/schema",
		"$id":         bundleID,
		"title":       "fsbox protocol " + ProtocolVersion,
		"description": "Every method, tool argument and result, event, configuration and error kind of the fsbox wire protocol. The x-fsbox manifest names them by $defs reference.",
		"$defs":       b.defs,
		"x-fsbox": map[string]any{
			"protocol_version": ProtocolVersion,
			"methods":          methods,
			"tools":            tools,
			"reserved_tools":   ReservedToolNames,
			"events":           events,
			"error_kinds":      kinds,
			"error_codes": map[string]int{
				"retry": CodeRetry, "fatal": CodeFatal, "invalid_params": CodeInvalidParams, "cancelled": CodeCancelled,
				"parse_error": CodeParseError, "invalid_request": CodeInvalidRequest, "method_not_found": CodeMethodNotFound,
			},
		},
	})
}

// The entries of the x-fsbox manifest, one type per list.
type (
	methodEntry struct {
		Name         string `json:"name"`
		Direction    string `json:"direction"`
		Notification bool   `json:"notification"`
		Params       any    `json:"params"`
		Result       any    `json:"result"`
		Description  string `json:"description"`
	}
	toolEntry struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Arguments   string `json:"arguments"`
		Result      string `json:"result"`
		Default     bool   `json:"default"`
		ReadOnly    bool   `json:"read_only"`
	}
	eventEntry struct {
		Kind string `json:"kind"`
		Type string `json:"type"`
	}
	kindEntry struct {
		Kind          ErrorKind `json:"kind"`
		Retry         bool      `json:"retry"`
		CountsAsRetry bool      `json:"counts_as_retry"`
		Description   string    `json:"description"`
	}
)

// newReflector returns the reflector of the bundle's types, with this package's doc comments
// (read from commentDir, when given) as descriptions, reflowed.
func newReflector(commentDir string) (*jsonschema.Reflector, error) {
	r := &jsonschema.Reflector{Anonymous: true, DoNotReference: false, Namer: func(t reflect.Type) string { return t.Name() }}
	if commentDir != "" {
		if err := r.AddGoComments("github.com/fsbox/fsbox/schema", commentDir, jsonschema.WithFullComment()); err != nil {
			return nil, fmt.Errorf("reading doc comments: %w", err)
		}
		for k, v := range r.CommentMap {
			r.CommentMap[k] = reflow(v)
		}
	}
	return r, nil
}

// bundleBuilder collects the $defs of the bundle and the names of the closed types (rule 1 of
// [Generate]) as the manifest's entries are built.
type bundleBuilder struct {
	r      *jsonschema.Reflector
	defs   map[string]*jsonschema.Schema
	closed []string
}

// add reflects t and every type it reaches into defs, refusing two different types of one name,
// and returns t's reference.
func (b *bundleBuilder) add(t reflect.Type) (string, error) {
	s := b.r.ReflectFromType(t)
	for name, d := range s.Definitions {
		if prev, ok := b.defs[name]; ok {
			x, _ := json.Marshal(prev)
			y, _ := json.Marshal(d)
			if !bytes.Equal(x, y) {
				return "", fmt.Errorf("two types are named %s in the bundle", name)
			}
		}
		b.defs[name] = d
	}
	return "#/$defs/" + t.Name(), nil
}

// toolEntries adds every tool's arguments (closed) and result.
func (b *bundleBuilder) toolEntries() ([]toolEntry, error) {
	var tools []toolEntry
	for _, t := range Tools {
		a, err := b.add(t.Args)
		if err != nil {
			return nil, err
		}
		res, err := b.add(t.Result)
		if err != nil {
			return nil, err
		}
		b.closed = append(b.closed, t.Args.Name())
		tools = append(tools, toolEntry{t.Name, t.Description, a, res, t.Default, t.ReadOnly})
	}
	return tools, nil
}

// eventEntries adds every event type, and returns with the entries the references of the events
// an event notification may carry (all but the change request, which is a call of its own).
func (b *bundleBuilder) eventEntries() ([]eventEntry, []any, error) {
	var events []eventEntry
	eventRefs := []any{}
	for _, e := range Events {
		ref, err := b.add(e.Type)
		if err != nil {
			return nil, nil, err
		}
		events = append(events, eventEntry{e.Kind, ref})
		if e.Kind != KindFileChangeRequest {
			eventRefs = append(eventRefs, map[string]string{"$ref": ref})
		}
	}
	return events, eventRefs, nil
}

// methodEntries adds every method's params and result. What the other side sends us is closed:
// the params of a client-to-server method, the result of a server-to-client one (the client's
// answer to our call).
func (b *bundleBuilder) methodEntries(eventRefs []any) ([]methodEntry, error) {
	var methods []methodEntry
	for _, m := range Methods {
		e := methodEntry{Name: m.Name, Direction: m.Direction, Notification: m.Notification, Description: m.Description}
		if m.Params != nil {
			ref, err := b.add(m.Params)
			if err != nil {
				return nil, err
			}
			e.Params = ref
			if m.Direction == "client_to_server" {
				b.closed = append(b.closed, m.Params.Name())
			}
		}
		if m.ParamsEvent {
			e.Params = map[string]any{"oneOf": eventRefs}
		}
		switch {
		case m.ResultTool:
			e.Result = "tool"
		case m.Result != nil:
			ref, err := b.add(m.Result)
			if err != nil {
				return nil, err
			}
			e.Result = ref
			if m.Direction == "server_to_client" {
				b.closed = append(b.closed, m.Result.Name())
			}
		}
		methods = append(methods, e)
	}
	return methods, nil
}

// encodeBundle writes the document as indented JSON, "<" and ">" left as they are.
func encodeBundle(doc map[string]any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// reflow joins the hard-wrapped lines of a doc comment into one line per paragraph, so a
// description reads the same in an LLM prompt, a docstring or a tooltip.
func reflow(comment string) string {
	paras := strings.Split(comment, "\n\n")
	for i, p := range paras {
		paras[i] = strings.Join(strings.Fields(p), " ")
	}
	return strings.Join(paras, "\n\n")
}

// reachable returns the names of the definitions reachable from roots through $ref.
func reachable(defs map[string]*jsonschema.Schema, roots []string) map[string]bool {
	seen := map[string]bool{}
	var visit func(name string)
	visit = func(name string) {
		if seen[name] || defs[name] == nil {
			return
		}
		seen[name] = true
		b, _ := json.Marshal(defs[name])
		for _, part := range strings.Split(string(b), `"$ref":"#/$defs/`)[1:] {
			visit(part[:strings.IndexByte(part, '"')])
		}
	}
	for _, r := range roots {
		visit(r)
	}
	return seen
}

// openAllExcept lets every definition not in closed carry additional properties.
func openAllExcept(defs map[string]*jsonschema.Schema, closed map[string]bool) {
	names := make([]string, 0, len(defs))
	for n := range defs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if !closed[n] && defs[n].AdditionalProperties != nil {
			defs[n].AdditionalProperties = nil
		}
	}
}
