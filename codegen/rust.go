package codegen

import (
	"fmt"
	"strconv"
	"strings"
)

func init() { Register("rust", emitRust) }

// Where the Rust output goes: the crate's generated modules and the conformance adapter's table.
const (
	rustSDKDir     = "sdks/rust/src"
	rustAdapterDir = "conformance/adapters/rust/src"
)

// emitRust writes the Rust crate's types_gen.rs and client_gen.rs and the dispatch table of the
// Rust conformance adapter. It works from the same Model as the other emitters and shares their
// text writer (source.go); the names and types are Rust's own.
//
// Mapping: a $defs object becomes a struct deriving serde's Serialize and Deserialize (and Default
// when every field has one), a named string enum an enum with one variant per value plus
// Other(String), so a value from a newer server still decodes and re-encodes as sent. A required
// field is a plain value, an optional one an Option that is skipped when None, so an absent field
// stays distinguishable from a zero one in both directions. Integers are i64, a map is a BTreeMap,
// a value the schema does not constrain is serde_json::Value, and base64 bytes are Vec<u8> encoded
// by the crate's base64 module. Inline string enums stay String (their values are listed in the
// doc comment), as in Go. A const field exists only as the kind of an event: the struct has no
// such field, and serde's struct tag writes the constant, so an event can never carry the wrong
// kind.
func emitRust(m *Model) ([]File, error) {
	r, err := newRustEmitter(m)
	if err != nil {
		return nil, err
	}
	return emitText(m, func(*Model) error { return nil },
		textFile{rustSDKDir + "/types_gen.rs", r.typesFile},
		textFile{rustSDKDir + "/client_gen.rs", r.clientFile},
		textFile{rustAdapterDir + "/dispatch_gen.rs", r.dispatchFile},
	)
}

// rustKeywords are the words a Rust field cannot be called without r#.
var rustKeywords = map[string]bool{}

func init() {
	for _, k := range strings.Fields(`as async await break const continue crate dyn else enum extern false fn for if impl in
		let loop match mod move mut pub ref return self static struct super trait true type unsafe use where while
		abstract become box do final gen macro override priv try typeof unsized virtual yield`) {
		rustKeywords[k] = true
	}
}

// rustHandWritten are the public names the hand-written modules of the crate declare at its root;
// a generated type that would collide with one is refused.
var rustHandWritten = []string{"Client", "Options", "ChangeRequest", "ChangeAnswer", "Error", "ServerError", "VERSION"}

type rustEmitter struct {
	m         *Model
	defaulted map[*Type]bool // object types that can derive Default
	events    map[*Type]*Event
}

func newRustEmitter(m *Model) (*rustEmitter, error) {
	r := &rustEmitter{m: m, defaulted: map[*Type]bool{}, events: map[*Type]*Event{}}
	taken := map[string]string{}
	for _, n := range rustHandWritten {
		taken[n] = "a hand-written item of the crate"
	}
	for _, n := range []string{"Event", "ToolInfo", "TOOLS", "PROTOCOL_VERSION", "SCHEMA_HASH"} {
		taken[n] = "a generated helper"
	}
	for _, t := range m.Types {
		if what, ok := taken[t.Name]; ok {
			return nil, fmt.Errorf("$defs/%s: Rust name %s collides with %s", t.Name, t.Name, what)
		}
		taken[t.Name] = "$defs/" + t.Name
	}
	for _, e := range m.Events {
		r.events[e.Type] = e
	}
	if k := m.Type("ErrorKind"); k == nil || !k.IsEnum() {
		return nil, fmt.Errorf("the Rust SDK needs a string enum $defs/ErrorKind for ToolError.kind")
	}
	for _, t := range m.Types {
		for _, f := range t.Fields {
			where := fmt.Sprintf("$defs/%s/properties/%s", t.Name, f.Name)
			if f.Const != "" && (f.Name != "kind" || r.events[t] == nil) {
				return nil, fmt.Errorf("%s: the Rust emitter supports const only as the kind of an event", where)
			}
			if f.Type.Kind == RefNamed && f.Type.Named == t {
				return nil, fmt.Errorf("%s: a type that contains itself needs a Box the Rust emitter does not write", where)
			}
		}
	}
	// Default is derivable when every field's type has one: enums have none (no value is a good
	// default for them), so an object with a required enum or a required object without Default
	// has none either. Iterate to a fixed point over references.
	for _, t := range m.Types {
		r.defaulted[t] = !t.IsEnum()
	}
	for changed := true; changed; {
		changed = false
		for _, t := range m.Types {
			if !r.defaulted[t] {
				continue
			}
			for _, f := range t.Fields {
				if f.Required && f.Type.Kind == RefNamed && !r.defaulted[f.Type.Named] {
					r.defaulted[t], changed = false, true
					break
				}
			}
		}
	}
	return r, nil
}

// rustCamel turns a snake_case, dotted or slashed wire name into CamelCase.
func rustCamel(wire string) string {
	var b strings.Builder
	for _, w := range strings.FieldsFunc(wire, func(r rune) bool { return r == '_' || r == '.' || r == '/' || r == '$' }) {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

// rustSnake is a wire name as a Rust field, function or (upper-cased) constant name.
func rustSnake(wire string) string {
	s := strings.Trim(strings.NewReplacer(".", "_", "/", "_", "$", "").Replace(wire), "_")
	if rustKeywords[s] {
		return "r#" + s
	}
	return s
}

// rustDoc renders text as /// lines (or //! with inner) at indent.
func rustDoc(w *srcWriter, indent int, text string) {
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	for _, line := range strings.Split(wrapText(text, 96-4*indent), "\n") {
		w.put(indent, strings.TrimRight("/// "+line, " "))
	}
}

// wrapText breaks text into lines of at most width characters at spaces.
func wrapText(text string, width int) string {
	var lines []string
	for _, para := range strings.Split(text, "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			if line != "" && len(line)+1+len(word) > width {
				lines = append(lines, line)
				line = ""
			}
			if line != "" {
				line += " "
			}
			line += word
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// rustString is s as a Rust string literal.
func rustString(s string) string { return strconv.Quote(s) }

// fieldType is the Rust type of r, before Option for an optional field.
func (r *rustEmitter) fieldType(ref *TypeRef) string {
	switch ref.Kind {
	case RefString:
		return "String"
	case RefBytes:
		return "Vec<u8>"
	case RefInteger:
		return "i64"
	case RefNumber:
		return "f64"
	case RefBoolean:
		return "bool"
	case RefArray:
		return "Vec<" + r.fieldType(ref.Elem) + ">"
	case RefMap:
		return "BTreeMap<String, " + r.fieldType(ref.Elem) + ">"
	case RefNamed:
		return ref.Named.Name
	default:
		return "serde_json::Value"
	}
}

func (r *rustEmitter) typesFile(m *Model) []byte {
	w := newSrcWriter(m, "    ", "//")
	w.put(0, "")
	w.put(0, "//! The wire types of the fsbox protocol, one per $defs entry of the schema bundle, and its")
	w.put(0, "//! tables: protocol version, schema hash, methods, tools, error kinds and codes, events.")
	w.put(0, "")
	w.put(0, "#![allow(dead_code, clippy::all)]")
	w.put(0, "")
	w.put(0, "use std::collections::BTreeMap;")
	w.put(0, "")
	w.put(0, "use serde::{Deserialize, Deserializer, Serialize, Serializer};")
	w.put(0, "")
	w.put(0, "/// The protocol version this crate speaks; sent in initialize.")
	w.put(0, fmt.Sprintf("pub const PROTOCOL_VERSION: &str = %s;", rustString(m.ProtocolVersion)))
	w.put(0, "")
	w.put(0, "/// The hash of the schema bundle these types were generated from; a server of another release")
	w.put(0, "/// answers initialize with another one, and Client::start refuses it.")
	w.put(0, fmt.Sprintf("pub const SCHEMA_HASH: &str = %s;", rustString(m.SchemaHash)))
	w.put(0, "")
	w.put(0, "// The JSON-RPC methods.")
	for _, me := range m.Methods {
		w.put(0, fmt.Sprintf("pub(crate) const METHOD_%s: &str = %s;", strings.ToUpper(rustSnake(me.Name)), rustString(me.Name)))
	}
	w.put(0, "")
	w.put(0, "// The JSON-RPC error codes.")
	for _, name := range m.SortedErrorCodes() {
		w.put(0, fmt.Sprintf("pub const CODE_%s: i64 = %d;", strings.ToUpper(name), m.ErrorCodes[name]))
	}
	w.put(0, "")
	w.put(0, "/// One tool of the schema: its name and whether it only reads.")
	w.put(0, "#[derive(Debug, Clone, Copy, PartialEq, Eq)]")
	w.block(0, "pub struct ToolInfo {", []string{
		"/// The name tools/call takes.",
		"pub name: &'static str,",
		"/// The tool never changes anything.",
		"pub read_only: bool,",
		"/// Enabled when the configuration names no tools.",
		"pub default: bool,",
	}, "}")
	w.put(0, "")
	w.put(0, "/// Every tool of the schema, in its order.")
	w.block(0, "pub const TOOLS: &[ToolInfo] = &[", rows(m.Tools, func(t *Tool) string {
		return fmt.Sprintf("ToolInfo { name: %s, read_only: %t, default: %t },", rustString(t.Name), t.ReadOnly, t.Default)
	}), "];")
	for _, t := range m.Types {
		w.put(0, "")
		if t.IsEnum() {
			r.enum(&w, t)
		} else {
			r.object(&w, t)
		}
	}
	w.put(0, "")
	r.eventEnum(&w)
	return w.b.Bytes()
}

// enum writes a named string enum with Other(String) for values this crate does not know, and
// its wire spelling both ways. ErrorKind also gets the retry flags of x-fsbox.error_kinds.
func (r *rustEmitter) enum(w *srcWriter, t *Type) {
	rustDoc(w, 0, t.Description)
	w.put(0, "#[derive(Debug, Clone, PartialEq, Eq, Hash)]")
	w.put(0, "pub enum "+t.Name+" {")
	for _, v := range t.Enum {
		w.put(1, fmt.Sprintf("/// %s", rustString(v)))
		w.put(1, rustCamel(v)+",")
	}
	w.put(1, "/// A value this crate does not know (from a newer server), as sent.")
	w.put(1, "Other(String),")
	w.put(0, "}")
	w.put(0, "")
	w.put(0, "impl "+t.Name+" {")
	w.put(1, "/// Every value this crate knows, in the schema's order.")
	w.block(1, "pub const ALL: &'static ["+t.Name+"] = &[", rows(t.Enum, func(v string) string { return t.Name + "::" + rustCamel(v) + "," }), "];")
	w.put(0, "")
	w.put(1, "/// The value as it is spelled on the wire.")
	w.put(1, "pub fn as_str(&self) -> &str {")
	w.put(2, "match self {")
	for _, v := range t.Enum {
		w.put(3, fmt.Sprintf("%s::%s => %s,", t.Name, rustCamel(v), rustString(v)))
	}
	w.put(3, t.Name+"::Other(s) => s,")
	w.put(2, "}")
	w.put(1, "}")
	w.put(0, "")
	w.put(1, "/// The value spelled s on the wire; Other(s) for a value this crate does not know.")
	w.put(1, "pub fn from_wire(s: &str) -> Self {")
	w.put(2, "match s {")
	for _, v := range t.Enum {
		w.put(3, fmt.Sprintf("%s => %s::%s,", rustString(v), t.Name, rustCamel(v)))
	}
	w.put(3, "_ => "+t.Name+"::Other(s.to_string()),")
	w.put(2, "}")
	w.put(1, "}")
	if t.Name == "ErrorKind" {
		r.errorKindFlags(w)
	}
	w.put(0, "}")
	w.put(0, "")
	w.put(0, "impl std::fmt::Display for "+t.Name+" {")
	w.put(1, "fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {")
	w.put(2, "f.write_str(self.as_str())")
	w.put(1, "}")
	w.put(0, "}")
	w.put(0, "")
	w.put(0, "impl Serialize for "+t.Name+" {")
	w.put(1, "fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {")
	w.put(2, "s.serialize_str(self.as_str())")
	w.put(1, "}")
	w.put(0, "}")
	w.put(0, "")
	w.put(0, "impl<'de> Deserialize<'de> for "+t.Name+" {")
	w.put(1, "fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {")
	w.put(2, "let s = String::deserialize(d)?;")
	w.put(2, "Ok(Self::from_wire(&s))")
	w.put(1, "}")
	w.put(0, "}")
}

// errorKindFlags writes ErrorKind's retry, counts_as_retry and description from
// x-fsbox.error_kinds.
func (r *rustEmitter) errorKindFlags(w *srcWriter) {
	flag := func(name, doc string, value func(ErrorKind) bool, other string) {
		w.put(0, "")
		w.put(1, "/// "+doc)
		w.put(1, "pub fn "+name+"(&self) -> bool {")
		w.put(2, "match self {")
		for _, k := range r.m.ErrorKinds {
			w.put(3, fmt.Sprintf("ErrorKind::%s => %t,", rustCamel(k.Kind), value(k)))
		}
		w.put(3, "ErrorKind::Other(_) => "+other+",")
		w.put(2, "}")
		w.put(1, "}")
	}
	flag("retry", "Whether the model can fix the call and try again (x-fsbox.error_kinds); false for a kind this crate does not know.",
		func(k ErrorKind) bool { return k.Retry }, "false")
	flag("counts_as_retry", "Whether the failure spends one of the model's retries: false for a lookup that found nothing.",
		func(k ErrorKind) bool { return k.CountsAsRetry }, "false")
	w.put(0, "")
	w.put(1, "/// What the kind means, from the schema.")
	w.put(1, "pub fn description(&self) -> &'static str {")
	w.put(2, "match self {")
	for _, k := range r.m.ErrorKinds {
		w.put(3, fmt.Sprintf("ErrorKind::%s => %s,", rustCamel(k.Kind), rustString(k.Description)))
	}
	w.put(3, `ErrorKind::Other(_) => "",`)
	w.put(2, "}")
	w.put(1, "}")
}

// object writes a struct. An event type is tagged with its kind instead of having a kind field.
func (r *rustEmitter) object(w *srcWriter, t *Type) {
	rustDoc(w, 0, t.Description)
	derive := "Debug, Clone, PartialEq, Serialize, Deserialize"
	if r.defaulted[t] {
		derive += ", Default"
	}
	w.put(0, "#[derive("+derive+")]")
	if e := r.events[t]; e != nil {
		w.put(0, fmt.Sprintf("#[serde(tag = \"kind\", rename = %s)]", rustString(e.Kind)))
	}
	if r.defaulted[t] {
		// Lenient like the other SDKs: a required field the server left out (text, in the "typed"
		// result shape) decodes as its default rather than failing the call.
		w.put(0, "#[serde(default)]")
	}
	w.put(0, "pub struct "+t.Name+" {")
	first := true
	for _, f := range t.Fields {
		if f.Const != "" {
			continue
		}
		if !first {
			w.put(0, "")
		}
		first = false
		doc := f.Description
		if f.Type.Enum != nil {
			doc += "\nOne of " + strings.Join(quoteAll(f.Type.Enum, strconv.Quote), ", ") + "."
		}
		rustDoc(w, 1, doc)
		name := rustSnake(f.Name)
		var attrs []string
		if name != f.Name {
			attrs = append(attrs, "rename = "+rustString(f.Name))
		}
		typ := r.fieldType(f.Type)
		if f.Type.Kind == RefBytes {
			with := "crate::base64"
			if !f.Required {
				with += "::option"
			}
			attrs = append(attrs, "with = "+rustString(with))
		}
		if !f.Required {
			typ = "Option<" + typ + ">"
			attrs = append(attrs, "default", `skip_serializing_if = "Option::is_none"`)
		}
		if len(attrs) > 0 {
			w.put(1, "#[serde("+strings.Join(attrs, ", ")+")]")
		}
		w.put(1, "pub "+name+": "+typ+",")
	}
	w.put(0, "}")
}

// eventVariant is the Event variant of an event type: its name without the Event suffix.
func eventVariant(e *Event) string {
	if v := strings.TrimSuffix(e.Type.Name, "Event"); v != "" {
		return v
	}
	return e.Type.Name
}

// events writes Event, the typed payload of the event notification, decoded by its kind.
func (r *rustEmitter) eventEnum(w *srcWriter) {
	evs := r.m.NotificationEvents()
	w.put(0, "/// An event the server sends in the event notification, decoded by its kind; Unknown holds")
	w.put(0, "/// one this crate does not know, as sent.")
	w.put(0, "#[derive(Debug, Clone, PartialEq)]")
	w.put(0, "pub enum Event {")
	for _, e := range evs {
		w.put(1, fmt.Sprintf("/// %s", rustString(e.Kind)))
		w.put(1, fmt.Sprintf("%s(%s),", eventVariant(e), e.Type.Name))
	}
	w.put(1, "/// An event of a kind this crate does not know.")
	w.put(1, "Unknown(serde_json::Value),")
	w.put(0, "}")
	w.put(0, "")
	w.put(0, "impl Event {")
	w.put(1, "/// Decodes the params of an event notification by their kind.")
	w.put(1, "pub fn decode(v: serde_json::Value) -> Result<Event, serde_json::Error> {")
	w.put(2, `let kind = v.get("kind").and_then(|k| k.as_str()).unwrap_or("").to_string();`)
	w.put(2, "Ok(match kind.as_str() {")
	for _, e := range evs {
		w.put(3, fmt.Sprintf("%s => Event::%s(serde_json::from_value(v)?),", rustString(e.Kind), eventVariant(e)))
	}
	w.put(3, "_ => Event::Unknown(v),")
	w.put(2, "})")
	w.put(1, "}")
	w.put(0, "")
	w.put(1, "/// The event's kind as sent.")
	w.put(1, "pub fn kind(&self) -> &str {")
	w.put(2, "match self {")
	for _, e := range evs {
		w.put(3, fmt.Sprintf("Event::%s(_) => %s,", eventVariant(e), rustString(e.Kind)))
	}
	w.put(3, `Event::Unknown(v) => v.get("kind").and_then(|k| k.as_str()).unwrap_or(""),`)
	w.put(2, "}")
	w.put(1, "}")
	w.put(0, "}")
	w.put(0, "")
	w.put(0, "impl Serialize for Event {")
	w.put(1, "fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {")
	w.put(2, "match self {")
	for _, e := range evs {
		w.put(3, fmt.Sprintf("Event::%s(e) => e.serialize(s),", eventVariant(e)))
	}
	w.put(3, "Event::Unknown(v) => v.serialize(s),")
	w.put(2, "}")
	w.put(1, "}")
	w.put(0, "}")
}

// clientFile writes one typed method of Client per tool.
func (r *rustEmitter) clientFile(m *Model) []byte {
	w := newSrcWriter(m, "    ", "//")
	w.put(0, "")
	w.put(0, "//! One typed method of Client per tool of the schema.")
	w.put(0, "")
	w.put(0, "use crate::client::Client;")
	w.put(0, "use crate::error::Error;")
	w.put(0, "use crate::types_gen::*;")
	w.put(0, "")
	w.put(0, "impl Client {")
	for i, t := range m.Tools {
		if i > 0 {
			w.put(0, "")
		}
		rustDoc(&w, 1, "Calls the "+t.Name+" tool. "+t.Description)
		w.put(1, fmt.Sprintf("pub fn %s(&self, args: &%s) -> Result<%s, Error> {", rustSnake(t.Name), t.Args.Name, t.Result.Name))
		w.put(2, fmt.Sprintf("self.call_typed(%s, args)", rustString(t.Name)))
		w.put(1, "}")
	}
	w.put(0, "}")
	return w.b.Bytes()
}

// dispatchFile writes the adapter's table from tool name to typed method.
func (r *rustEmitter) dispatchFile(m *Model) []byte {
	w := newSrcWriter(m, "    ", "//")
	w.put(0, "")
	w.put(0, "use fsbox::Client;")
	w.put(0, "")
	w.put(0, "use crate::{typed, Handled};")
	w.put(0, "")
	w.put(0, "/// Sends each tool of the schema through its typed method of fsbox::Client; None for a tool")
	w.put(0, "/// without one.")
	w.put(0, "pub fn dispatch(c: &Client, tool: &str, args: &serde_json::Value) -> Option<Handled> {")
	w.put(1, "match tool {")
	for _, t := range m.Tools {
		w.put(2, fmt.Sprintf("%s => Some(typed(c, args, Client::%s)),", rustString(t.Name), rustSnake(t.Name)))
	}
	w.put(2, "_ => None,")
	w.put(1, "}")
	w.put(0, "}")
	return w.b.Bytes()
}
