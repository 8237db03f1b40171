// Package codegen turns the fsbox JSON Schema bundle (schema/fsbox.schema.json) into typed clients.
//
// It reads the bundle as a JSON document and nothing else of fsbox, so a third party holding only
// the bundle gets the same clients. Parse decodes the document into a small Model of exactly the
// JSON Schema subset fsbox emits and refuses everything else by JSON pointer: a schema change the
// emitters do not understand fails generation instead of silently producing wrong code. Emitters,
// one per language, register themselves with Register; Generate runs one of them.
//
// The accepted subset, everything else being an error:
//
//   - the root: $schema (draft 2020-12 only), $id, title, description, $defs and x-fsbox;
//   - a $defs entry: an object (type, description, properties, required, additionalProperties:
//     false) or a named string enum (type, description, enum);
//   - a property, array element or map value: $ref to #/$defs/<Name> (plus a description on a
//     property); string with optional enum; const string (a required property); integer or
//     number with optional minimum; boolean; array with items and optional minItems; object
//     without properties, optionally with additionalProperties true or a schema (a map); or no
//     type at all (any value);
//   - x-fsbox: protocol_version, tools, reserved_tools, methods (params null, a reference or a
//     oneOf of event references; result null, a reference or "tool"), events (each type's kind
//     const must equal the event's kind), error_kinds (equal to the ErrorKind enum when there is
//     one) and error_codes.
package codegen

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Model is the parsed schema bundle: every named type plus the x-fsbox manifest of methods, tools,
// events and error kinds.
type Model struct {
	ProtocolVersion string
	SchemaHash      string           // "sha256:<hex>" of the input bytes
	Title           string           // the bundle's title
	Description     string           // the bundle's description
	Types           []*Type          // every $defs entry, sorted by name
	Tools           []*Tool          // x-fsbox.tools, in order
	ReservedTools   []string         // x-fsbox.reserved_tools: names a client must not reuse
	Methods         []*Method        // x-fsbox.methods, in order
	Events          []*Event         // x-fsbox.events, in order
	ErrorKinds      []ErrorKind      // x-fsbox.error_kinds, in order
	ErrorCodes      map[string]int   // x-fsbox.error_codes, by name (iterate with SortedErrorCodes)
	byName          map[string]*Type // Types by name
}

// Type is one $defs entry: an object type or a named string enum.
type Type struct {
	Name, Description string
	Fields            []*Field // object properties in schema order (nil for an enum, non-nil for an object)
	Enum              []string // non-nil for a named string enum (e.g. ErrorKind)
	Closed            bool     // additionalProperties: false (arguments/params)
}

// Field is one property of an object type.
type Field struct {
	Name        string // wire name, snake_case
	Description string
	Type        *TypeRef
	Required    bool
	Const       string // non-empty for a const string (the kind field of events)
}

// RefKind says what a TypeRef refers to.
type RefKind int

// The kinds of TypeRef.
const (
	RefString  RefKind = iota // "type": "string"
	RefInteger                // "type": "integer"
	RefNumber                 // "type": "number"
	RefBoolean                // "type": "boolean"
	RefArray                  // "type": "array" with "items" (Elem)
	RefMap                    // "type": "object" without properties: string keys, Elem values (RefAny when unconstrained)
	RefNamed                  // "$ref": "#/$defs/<Name>" (Named)
	RefAny                    // no type at all: any JSON value
	RefBytes                  // "type": "string", "contentEncoding": "base64": bytes, base64 on the wire
)

var refKindNames = [...]string{"string", "integer", "number", "boolean", "array", "map", "named", "any", "bytes"}

func (k RefKind) String() string {
	if int(k) < len(refKindNames) {
		return refKindNames[k]
	}
	return fmt.Sprintf("RefKind(%d)", int(k))
}

// TypeRef is the type of a field, an array element or a map value.
type TypeRef struct {
	Kind     RefKind
	Elem     *TypeRef // for RefArray and RefMap (map values)
	Named    *Type    // for RefNamed
	Enum     []string // inline string enum, e.g. DirEntry.type
	Minimum  *float64 // "minimum" of an integer or number
	MinItems *int     // "minItems" of an array
}

// Tool is one entry of x-fsbox.tools.
type Tool struct {
	Name, Description string
	Args, Result      *Type
	Default, ReadOnly bool
}

// Method is one entry of x-fsbox.methods.
type Method struct {
	Name, Direction, Description string // Direction is "client_to_server" or "server_to_client"
	Notification                 bool
	Params, Result               *Type   // nil when the manifest says null (or for the special cases below)
	ResultIsTool                 bool    // the result is the called tool's result type ("result": "tool")
	ParamsIsEvent                bool    // the params are one of the events ("params": {"oneOf": [...]})
	ParamsOneOf                  []*Type // with ParamsIsEvent: the event types the oneOf lists, in order
}

// Event is one entry of x-fsbox.events: a kind and the object type carrying it.
type Event struct {
	Kind string
	Type *Type
}

// ErrorKind is one entry of x-fsbox.error_kinds.
type ErrorKind struct {
	Kind          string
	Retry         bool
	CountsAsRetry bool // x-fsbox counts_as_retry; Retry when the bundle omits it
	Description   string
}

// Type returns the $defs entry called name, or nil.
func (m *Model) Type(name string) *Type { return m.byName[name] }

// SortedErrorCodes returns the names of ErrorCodes, sorted.
func (m *Model) SortedErrorCodes() []string {
	names := make([]string, 0, len(m.ErrorCodes))
	for n := range m.ErrorCodes {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Field returns the field with wire name name, or nil.
func (t *Type) Field(name string) *Field {
	for _, f := range t.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// IsEnum reports whether t is a named string enum.
func (t *Type) IsEnum() bool { return t.Enum != nil }

// The JSON Schema dialect fsbox emits; anything else is refused.
const draft202012 = "https://json-schema.org/draft/2020-12/schema"

// The name patterns compile on first use, not at package initialization: this package is linked
// into the fsbox binary, and every process of it (fsbox serve included) would pay for them at
// start.
var (
	typeNameRE  = lazyRegexp(`^[A-Z][A-Za-z0-9]*$`)
	snakeNameRE = lazyRegexp(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
	kindRE      = lazyRegexp(`^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$`)
	methodRE    = lazyRegexp(`^(\$/)?[a-z][a-z0-9_]*(/[a-z][a-z0-9_]*)*$`)
)

func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// Parse decodes a schema bundle into a Model. It refuses any keyword, shape or reference outside
// the subset fsbox emits with an error naming the JSON pointer of the offending value.
func Parse(schemaJSON []byte) (*Model, error) {
	p := &parseState{byName: map[string]*Type{}}
	m, err := p.model(schemaJSON)
	if err != nil {
		return nil, fmt.Errorf("codegen: schema: %w", err)
	}
	sum := sha256.Sum256(schemaJSON)
	m.SchemaHash = "sha256:" + hex.EncodeToString(sum[:])
	return m, nil
}

// parseState holds the state of one Parse: the named types and the references waiting for them.
type parseState struct {
	byName  map[string]*Type
	pending []pendingRef
}

// pendingRef is a "$ref" seen before all $defs were known.
type pendingRef struct {
	ptr, name string
	ref       *TypeRef
}

func (p *parseState) model(data []byte) (*Model, error) {
	root, err := decodeObject("", data)
	if err != nil {
		return nil, err
	}
	if err := root.only("$defs", "$id", "$schema", "description", "title", "x-fsbox"); err != nil {
		return nil, err
	}
	dialect, err := root.reqString("$schema")
	if err != nil {
		return nil, err
	}
	if dialect != draft202012 {
		return nil, fmt.Errorf("%s: dialect %q is not %q", root.at("$schema"), dialect, draft202012)
	}
	m := &Model{byName: p.byName}
	if m.Title, _, err = root.optString("title"); err != nil {
		return nil, err
	}
	if m.Description, _, err = root.optString("description"); err != nil {
		return nil, err
	}
	if _, _, err = root.optString("$id"); err != nil {
		return nil, err
	}
	if err := p.defs(root, m); err != nil {
		return nil, err
	}
	if err := p.manifest(root, m); err != nil {
		return nil, err
	}
	return m, nil
}

// defs parses every $defs entry, then resolves the references between them.
func (p *parseState) defs(root *object, m *Model) error {
	defs, err := root.reqObject("$defs")
	if err != nil {
		return err
	}
	// Create every type first so references can point at types defined later.
	for _, name := range defs.keys {
		if !typeNameRE().MatchString(name) {
			return fmt.Errorf("%s: type name %q is not PascalCase ASCII", defs.at(name), name)
		}
		t := &Type{Name: name}
		p.byName[name] = t
		m.Types = append(m.Types, t)
	}
	for _, name := range defs.keys {
		def, err := defs.reqObject(name)
		if err != nil {
			return err
		}
		if err := p.def(def, p.byName[name]); err != nil {
			return err
		}
	}
	for _, pr := range p.pending {
		t := p.byName[pr.name]
		if t == nil {
			return fmt.Errorf("%s: $ref to undefined type %q", pr.ptr, pr.name)
		}
		pr.ref.Named = t
	}
	sort.Slice(m.Types, func(i, j int) bool { return m.Types[i].Name < m.Types[j].Name })
	return nil
}

// def parses one $defs entry into t.
func (p *parseState) def(o *object, t *Type) error {
	if err := o.only("type", "description", "properties", "required", "additionalProperties", "enum"); err != nil {
		return err
	}
	var err error
	if t.Description, _, err = o.optString("description"); err != nil {
		return err
	}
	typ, err := o.reqString("type")
	if err != nil {
		return err
	}
	switch typ {
	case "string":
		if err := o.only("type", "description", "enum"); err != nil {
			return fmt.Errorf("%w (a named string type is an enum and takes only type, description and enum)", err)
		}
		if t.Enum, err = o.enum("enum"); err != nil {
			return err
		}
		if t.Enum == nil {
			return fmt.Errorf("%s: a named string type needs an enum", o.ptr)
		}
		return nil
	case "object":
		if err := o.only("type", "description", "properties", "required", "additionalProperties"); err != nil {
			return err
		}
		return p.object(o, t)
	default:
		return fmt.Errorf("%s: a $defs entry must be an object or a string enum, not %q", o.at("type"), typ)
	}
}

// object parses the properties, required list and additionalProperties of an object type.
func (p *parseState) object(o *object, t *Type) error {
	if raw, ok := o.vals["additionalProperties"]; ok {
		if !bytes.Equal(bytes.TrimSpace(raw), []byte("false")) {
			return fmt.Errorf("%s: a $defs object allows only additionalProperties: false", o.at("additionalProperties"))
		}
		t.Closed = true
	}
	t.Fields = []*Field{}
	if _, ok := o.vals["properties"]; ok {
		props, err := o.reqObject("properties")
		if err != nil {
			return err
		}
		for _, name := range props.keys {
			if !snakeNameRE().MatchString(name) {
				return fmt.Errorf("%s: property name %q is not snake_case ASCII", props.at(name), name)
			}
			prop, err := props.reqObject(name)
			if err != nil {
				return err
			}
			f := &Field{Name: name}
			if f.Type, f.Description, f.Const, err = p.property(prop); err != nil {
				return err
			}
			t.Fields = append(t.Fields, f)
		}
	}
	required, err := o.optStrings("required")
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for i, name := range required {
		ptr := fmt.Sprintf("%s/%d", o.at("required"), i)
		if seen[name] {
			return fmt.Errorf("%s: %q is required twice", ptr, name)
		}
		seen[name] = true
		f := t.Field(name)
		if f == nil {
			return fmt.Errorf("%s: required property %q is not in properties", ptr, name)
		}
		f.Required = true
	}
	for _, f := range t.Fields {
		if f.Const != "" && !f.Required {
			return fmt.Errorf("%s: const property %q must be required", o.at("properties"), f.Name)
		}
	}
	return nil
}

// property parses the schema of one property: its type, description and const value.
func (p *parseState) property(o *object) (ref *TypeRef, desc, constant string, err error) {
	if desc, _, err = o.optString("description"); err != nil {
		return nil, "", "", err
	}
	if _, ok := o.vals["const"]; ok {
		if err := o.only("type", "const", "description"); err != nil {
			return nil, "", "", err
		}
		if typ, _ := o.reqString("type"); typ != "string" {
			return nil, "", "", fmt.Errorf("%s: const is supported on strings only", o.ptr)
		}
		if constant, err = o.reqString("const"); err != nil {
			return nil, "", "", err
		}
		if constant == "" {
			return nil, "", "", fmt.Errorf("%s: an empty const is not supported", o.at("const"))
		}
		return &TypeRef{Kind: RefString}, desc, constant, nil
	}
	ref, err = p.typeRef(o, true)
	return ref, desc, "", err
}

// typeRef parses a schema used as a property, array element or map value. A description is
// allowed (and returned by property) only when withDesc is set.
func (p *parseState) typeRef(o *object, withDesc bool) (*TypeRef, error) {
	allow := func(keys ...string) error {
		if withDesc {
			keys = append(keys, "description")
		}
		return o.only(keys...)
	}
	if _, ok := o.vals["$ref"]; ok {
		return p.namedRef(o, allow)
	}
	if _, ok := o.vals["type"]; !ok {
		if err := allow(); err != nil {
			return nil, fmt.Errorf("%w (a schema without type must be empty: any value)", err)
		}
		return &TypeRef{Kind: RefAny}, nil
	}
	typ, err := o.reqString("type")
	if err != nil {
		return nil, err
	}
	switch typ {
	case "string":
		return stringRef(o, allow)
	case "boolean":
		return &TypeRef{Kind: RefBoolean}, allow("type")
	case "integer", "number":
		if err := allow("type", "minimum"); err != nil {
			return nil, err
		}
		ref := &TypeRef{Kind: RefInteger}
		if typ == "number" {
			ref.Kind = RefNumber
		}
		ref.Minimum, err = o.optNumber("minimum", typ == "integer")
		return ref, err
	case "array":
		return p.arrayRef(o, allow)
	case "object":
		return p.mapRef(o, allow)
	default:
		return nil, fmt.Errorf("%s: type %q is not supported", o.at("type"), typ)
	}
}

// allowFunc refuses a schema with keys other than the ones named (and its description where
// typeRef takes one).
type allowFunc func(keys ...string) error

// namedRef reads a {"$ref": "#/$defs/Name"}; the name is resolved once every definition is read
// (p.pending).
func (p *parseState) namedRef(o *object, allow allowFunc) (*TypeRef, error) {
	if err := allow("$ref"); err != nil {
		return nil, err
	}
	target, err := o.reqString("$ref")
	if err != nil {
		return nil, err
	}
	name, ok := strings.CutPrefix(target, "#/$defs/")
	if !ok || !typeNameRE().MatchString(name) {
		return nil, fmt.Errorf("%s: $ref %q is not of the form #/$defs/<Name>", o.at("$ref"), target)
	}
	ref := &TypeRef{Kind: RefNamed}
	p.pending = append(p.pending, pendingRef{ptr: o.at("$ref"), name: name, ref: ref})
	return ref, nil
}

// stringRef reads a string schema: bytes when it has contentEncoding (base64 only), else a
// string, possibly with an enum.
func stringRef(o *object, allow allowFunc) (*TypeRef, error) {
	if _, ok := o.vals["contentEncoding"]; ok {
		if err := allow("type", "contentEncoding"); err != nil {
			return nil, err
		}
		enc, err := o.reqString("contentEncoding")
		if err != nil {
			return nil, err
		}
		if enc != "base64" {
			return nil, fmt.Errorf("%s: contentEncoding %q is not supported (only base64)", o.at("contentEncoding"), enc)
		}
		return &TypeRef{Kind: RefBytes}, nil
	}
	if err := allow("type", "enum"); err != nil {
		return nil, err
	}
	enum, err := o.enum("enum")
	return &TypeRef{Kind: RefString, Enum: enum}, err
}

// arrayRef reads an array schema: its items and its minItems, which must not be negative.
func (p *parseState) arrayRef(o *object, allow allowFunc) (*TypeRef, error) {
	if err := allow("type", "items", "minItems"); err != nil {
		return nil, err
	}
	items, err := o.reqObject("items")
	if err != nil {
		return nil, err
	}
	elem, err := p.typeRef(items, false)
	if err != nil {
		return nil, err
	}
	ref := &TypeRef{Kind: RefArray, Elem: elem}
	min, err := o.optNumber("minItems", true)
	if min != nil {
		if *min < 0 {
			return nil, fmt.Errorf("%s: minItems must not be negative", o.at("minItems"))
		}
		n := int(*min)
		ref.MinItems = &n
	}
	return ref, err
}

// mapRef reads an object schema without properties: a map whose values are any value
// (additionalProperties absent or true) or of one schema. An object with properties must be a
// $defs entry of its own.
func (p *parseState) mapRef(o *object, allow allowFunc) (*TypeRef, error) {
	if _, ok := o.vals["properties"]; ok {
		return nil, fmt.Errorf("%s: inline object types are not supported; give the type a $defs entry and $ref it", o.at("properties"))
	}
	if err := allow("type", "additionalProperties"); err != nil {
		return nil, err
	}
	ref := &TypeRef{Kind: RefMap, Elem: &TypeRef{Kind: RefAny}}
	raw, ok := o.vals["additionalProperties"]
	if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("true")) {
		return ref, nil
	}
	values, err := o.reqObject("additionalProperties")
	if err != nil {
		return nil, fmt.Errorf("%w (a map's additionalProperties is true or a schema)", err)
	}
	ref.Elem, err = p.typeRef(values, false)
	return ref, err
}

// manifest parses x-fsbox.
func (p *parseState) manifest(root *object, m *Model) error {
	x, err := root.reqObject("x-fsbox")
	if err != nil {
		return err
	}
	if err := x.only("error_codes", "error_kinds", "events", "methods", "protocol_version", "reserved_tools", "tools"); err != nil {
		return err
	}
	if m.ProtocolVersion, err = x.reqString("protocol_version"); err != nil {
		return err
	}
	if m.ProtocolVersion == "" {
		return fmt.Errorf("%s: empty protocol_version", x.at("protocol_version"))
	}
	for _, step := range []func(*object, *Model) error{p.errorCodes, p.errorKinds, p.events, p.tools, p.methods} {
		if err := step(x, m); err != nil {
			return err
		}
	}
	return nil
}

func (p *parseState) errorCodes(x *object, m *Model) error {
	codes, err := x.reqObject("error_codes")
	if err != nil {
		return err
	}
	m.ErrorCodes = map[string]int{}
	for _, name := range codes.keys {
		if !snakeNameRE().MatchString(name) {
			return fmt.Errorf("%s: error code name %q is not snake_case", codes.at(name), name)
		}
		n, err := codes.optNumber(name, true)
		if err != nil {
			return err
		}
		m.ErrorCodes[name] = int(*n)
	}
	return nil
}

func (p *parseState) errorKinds(x *object, m *Model) error {
	items, err := x.reqArray("error_kinds")
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, o := range items {
		if err := o.only("kind", "retry", "counts_as_retry", "description"); err != nil {
			return err
		}
		var k ErrorKind
		if k.Kind, err = o.reqString("kind"); err != nil {
			return err
		}
		if !snakeNameRE().MatchString(k.Kind) || seen[k.Kind] {
			return fmt.Errorf("%s: error kind %q is not snake_case or repeats", o.at("kind"), k.Kind)
		}
		seen[k.Kind] = true
		if k.Retry, err = o.reqBool("retry"); err != nil {
			return err
		}
		k.CountsAsRetry = k.Retry // a bundle without the member: every retry counts
		if _, ok := o.vals["counts_as_retry"]; ok {
			if k.CountsAsRetry, err = o.reqBool("counts_as_retry"); err != nil {
				return err
			}
		}
		if k.Description, _, err = o.optString("description"); err != nil {
			return err
		}
		m.ErrorKinds = append(m.ErrorKinds, k)
	}
	// The ErrorKind enum, when the bundle has one, is the same list: a kind added to one place only
	// would give the SDKs a constant without a retry flag, or the reverse.
	if t := m.Type("ErrorKind"); t != nil {
		var kinds []string
		for _, k := range m.ErrorKinds {
			kinds = append(kinds, k.Kind)
		}
		if strings.Join(kinds, ",") != strings.Join(t.Enum, ",") {
			return fmt.Errorf("%s: the kinds differ from the enum of /$defs/ErrorKind", x.at("error_kinds"))
		}
	}
	return nil
}

func (p *parseState) events(x *object, m *Model) error {
	items, err := x.reqArray("events")
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, o := range items {
		if err := o.only("kind", "type"); err != nil {
			return err
		}
		var e Event
		if e.Kind, err = o.reqString("kind"); err != nil {
			return err
		}
		if !kindRE().MatchString(e.Kind) || seen[e.Kind] {
			return fmt.Errorf("%s: event kind %q is malformed or repeats", o.at("kind"), e.Kind)
		}
		seen[e.Kind] = true
		if e.Type, err = p.manifestRef(o, "type"); err != nil {
			return err
		}
		if f := e.Type.Field("kind"); f == nil || f.Const != e.Kind {
			return fmt.Errorf("%s: type %s has no kind property with const %q", o.at("type"), e.Type.Name, e.Kind)
		}
		m.Events = append(m.Events, &e)
	}
	return nil
}

func (p *parseState) tools(x *object, m *Model) error {
	items, err := x.reqArray("tools")
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, o := range items {
		if err := o.only("name", "description", "arguments", "result", "default", "read_only"); err != nil {
			return err
		}
		var t Tool
		if t.Name, err = o.reqString("name"); err != nil {
			return err
		}
		if !snakeNameRE().MatchString(t.Name) || seen[t.Name] {
			return fmt.Errorf("%s: tool name %q is not snake_case or repeats", o.at("name"), t.Name)
		}
		seen[t.Name] = true
		if t.Description, err = o.reqString("description"); err != nil {
			return err
		}
		if t.Args, err = p.manifestRef(o, "arguments"); err != nil {
			return err
		}
		if !t.Args.Closed {
			return fmt.Errorf("%s: arguments type %s must have additionalProperties: false", o.at("arguments"), t.Args.Name)
		}
		if t.Result, err = p.manifestRef(o, "result"); err != nil {
			return err
		}
		if t.Default, err = o.reqBool("default"); err != nil {
			return err
		}
		if t.ReadOnly, err = o.reqBool("read_only"); err != nil {
			return err
		}
		m.Tools = append(m.Tools, &t)
	}
	if m.ReservedTools, err = x.optStrings("reserved_tools"); err != nil {
		return err
	}
	if _, ok := x.vals["reserved_tools"]; !ok {
		return fmt.Errorf("%s: missing", x.at("reserved_tools"))
	}
	for i, name := range m.ReservedTools {
		if !snakeNameRE().MatchString(name) || seen[name] {
			return fmt.Errorf("%s/%d: reserved tool name %q is not snake_case or repeats", x.at("reserved_tools"), i, name)
		}
		seen[name] = true
	}
	return nil
}

func (p *parseState) methods(x *object, m *Model) error {
	items, err := x.reqArray("methods")
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, o := range items {
		if err := o.only("name", "direction", "notification", "params", "result", "description"); err != nil {
			return err
		}
		var me Method
		if me.Name, err = o.reqString("name"); err != nil {
			return err
		}
		if !methodRE().MatchString(me.Name) || seen[me.Name] {
			return fmt.Errorf("%s: method name %q is malformed or repeats", o.at("name"), me.Name)
		}
		seen[me.Name] = true
		if me.Direction, err = o.reqString("direction"); err != nil {
			return err
		}
		if me.Direction != "client_to_server" && me.Direction != "server_to_client" {
			return fmt.Errorf("%s: direction %q is neither client_to_server nor server_to_client", o.at("direction"), me.Direction)
		}
		if me.Notification, err = o.reqBool("notification"); err != nil {
			return err
		}
		if me.Description, err = o.reqString("description"); err != nil {
			return err
		}
		if err := p.methodParams(o, m, &me); err != nil {
			return err
		}
		if err := p.methodResult(o, &me); err != nil {
			return err
		}
		m.Methods = append(m.Methods, &me)
	}
	return nil
}

// methodParams parses a method's params: null, a $defs reference, or {"oneOf": [event refs]}.
func (p *parseState) methodParams(o *object, m *Model, me *Method) error {
	raw, ok := o.vals["params"]
	if !ok {
		return fmt.Errorf("%s: missing", o.at("params"))
	}
	switch trimmed := bytes.TrimSpace(raw); {
	case bytes.Equal(trimmed, []byte("null")):
		return nil
	case len(trimmed) > 0 && trimmed[0] == '"':
		var err error
		me.Params, err = p.manifestRef(o, "params")
		return err
	}
	union, err := o.reqObject("params")
	if err != nil {
		return fmt.Errorf("%w (params is null, a $defs reference or {\"oneOf\": [...]})", err)
	}
	if err := union.only("oneOf"); err != nil {
		return err
	}
	alts, err := union.reqArray("oneOf")
	if err != nil {
		return err
	}
	if len(alts) == 0 {
		return fmt.Errorf("%s: empty oneOf", union.at("oneOf"))
	}
	for _, alt := range alts {
		if err := alt.only("$ref"); err != nil {
			return err
		}
		t, err := p.manifestRef(alt, "$ref")
		if err != nil {
			return err
		}
		if !isEventType(m, t) {
			return fmt.Errorf("%s: %s is not an event type of x-fsbox.events; a oneOf may only list events", alt.at("$ref"), t.Name)
		}
		me.ParamsOneOf = append(me.ParamsOneOf, t)
	}
	me.ParamsIsEvent = true
	return nil
}

// methodResult parses a method's result: null, a $defs reference, or "tool".
func (p *parseState) methodResult(o *object, me *Method) error {
	raw, ok := o.vals["result"]
	if !ok {
		return fmt.Errorf("%s: missing", o.at("result"))
	}
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil
	}
	if s, _, _ := o.optString("result"); s == "tool" {
		me.ResultIsTool = true
		return nil
	}
	var err error
	me.Result, err = p.manifestRef(o, "result")
	return err
}

func isEventType(m *Model, t *Type) bool {
	for _, e := range m.Events {
		if e.Type == t {
			return true
		}
	}
	return false
}

// manifestRef resolves a "#/$defs/<Name>" string of the manifest to its object type.
func (p *parseState) manifestRef(o *object, key string) (*Type, error) {
	target, err := o.reqString(key)
	if err != nil {
		return nil, err
	}
	name, ok := strings.CutPrefix(target, "#/$defs/")
	t := p.byName[name]
	if !ok || t == nil {
		return nil, fmt.Errorf("%s: %q does not name a $defs entry", o.at(key), target)
	}
	if t.IsEnum() {
		return nil, fmt.Errorf("%s: %s is an enum; an object type is needed here", o.at(key), name)
	}
	return t, nil
}

// object is one decoded JSON object with its keys in document order and its JSON pointer.
type object struct {
	ptr  string
	keys []string
	vals map[string]json.RawMessage
}

// decodeObject decodes raw, which must be a JSON object without repeated keys.
func decodeObject(ptr string, raw []byte) (*object, error) {
	where := ptr
	if where == "" {
		where = "(root)"
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", where, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("%s: want an object, have %s", where, describe(raw))
	}
	o := &object{ptr: ptr, vals: map[string]json.RawMessage{}}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", where, err)
		}
		key := tok.(string) // object keys are always strings
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, fmt.Errorf("%s: %v", o.at(key), err)
		}
		if _, dup := o.vals[key]; dup {
			return nil, fmt.Errorf("%s: repeated key", o.at(key))
		}
		o.keys = append(o.keys, key)
		o.vals[key] = val
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("%s: %v", where, err)
	}
	if _, err := dec.Token(); err == nil {
		return nil, fmt.Errorf("%s: trailing data after the object", where)
	}
	return o, nil
}

// describe names the JSON type of raw for error messages.
func describe(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// at returns the JSON pointer of the member key.
func (o *object) at(key string) string {
	return o.ptr + "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(key)
}

// only refuses any key not in allowed, naming the first one in document order.
func (o *object) only(allowed ...string) error {
	for _, k := range o.keys {
		ok := false
		for _, a := range allowed {
			ok = ok || k == a
		}
		if !ok {
			return fmt.Errorf("%s: unsupported keyword %q (fsbox's codegen knows only: %s)", o.at(k), k, strings.Join(allowed, ", "))
		}
	}
	return nil
}

// decode unmarshals the member key into v, naming the pointer and the wanted type on failure.
func (o *object) decode(key, want string, v any) error {
	raw, ok := o.vals[key]
	if !ok {
		return fmt.Errorf("%s: missing", o.at(key))
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) || dec.Decode(v) != nil {
		return fmt.Errorf("%s: want %s, have %s", o.at(key), want, describe(raw))
	}
	return nil
}

func (o *object) reqString(key string) (string, error) {
	var s string
	err := o.decode(key, "a string", &s)
	return s, err
}

func (o *object) optString(key string) (string, bool, error) {
	if _, ok := o.vals[key]; !ok {
		return "", false, nil
	}
	s, err := o.reqString(key)
	return s, true, err
}

func (o *object) reqBool(key string) (bool, error) {
	var b bool
	err := o.decode(key, "a boolean", &b)
	return b, err
}

func (o *object) optStrings(key string) ([]string, error) {
	if _, ok := o.vals[key]; !ok {
		return nil, nil
	}
	var ss []string
	err := o.decode(key, "an array of strings", &ss)
	return ss, err
}

// optNumber decodes an optional number; integer demands a whole number.
func (o *object) optNumber(key string, integer bool) (*float64, error) {
	if _, ok := o.vals[key]; !ok {
		return nil, nil
	}
	var n json.Number
	want := "a number"
	if integer {
		want = "an integer"
	}
	if err := o.decode(key, want, &n); err != nil {
		return nil, err
	}
	f, err := n.Float64()
	if err != nil || (integer && strings.ContainsAny(n.String(), ".eE")) {
		return nil, fmt.Errorf("%s: want %s, have %s", o.at(key), want, n)
	}
	return &f, nil
}

// enum decodes an optional enum: a non-empty list of distinct strings.
func (o *object) enum(key string) ([]string, error) {
	if _, ok := o.vals[key]; !ok {
		return nil, nil
	}
	values, err := o.optStrings(key)
	if err != nil {
		return nil, err
	}
	if len(values) == 0 {
		return nil, fmt.Errorf("%s: empty enum", o.at(key))
	}
	seen := map[string]bool{}
	for i, v := range values {
		if seen[v] {
			return nil, fmt.Errorf("%s/%d: %q repeats", o.at(key), i, v)
		}
		seen[v] = true
	}
	return values, nil
}

func (o *object) reqObject(key string) (*object, error) {
	raw, ok := o.vals[key]
	if !ok {
		return nil, fmt.Errorf("%s: missing", o.at(key))
	}
	return decodeObject(o.at(key), raw)
}

// reqArray decodes a required array of objects.
func (o *object) reqArray(key string) ([]*object, error) {
	var raws []json.RawMessage
	if err := o.decode(key, "an array", &raws); err != nil {
		return nil, err
	}
	objs := make([]*object, len(raws))
	for i, raw := range raws {
		var err error
		if objs[i], err = decodeObject(fmt.Sprintf("%s/%d", o.at(key), i), raw); err != nil {
			return nil, err
		}
	}
	return objs, nil
}

// NotificationEvents returns the events the event notification carries: every entry of
// x-fsbox.events except those that are the params of a server-to-client request (the change
// request, which arrives as a change_request, not as an event).
func (m *Model) NotificationEvents() []*Event {
	requestParams := map[*Type]bool{}
	for _, me := range m.Methods {
		if me.Direction == "server_to_client" && !me.Notification && me.Params != nil {
			requestParams[me.Params] = true
		}
	}
	var events []*Event
	for _, e := range m.Events {
		if !requestParams[e.Type] {
			events = append(events, e)
		}
	}
	return events
}
