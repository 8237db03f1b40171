package codegen

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// The Python emitter writes three files:
//
//   - sdks/python/src/fsbox/_types_gen.py: a dataclass per object type (from_wire ignores unknown
//     fields and checks the JSON types of known ones, to_wire leaves out fields that are None), a
//     Literal alias per named enum, the Event and ToolResult unions with their decoders by kind and
//     tool name, the error-kind table and the error codes;
//   - sdks/python/src/fsbox/_client_gen.py: SyncTools and AsyncTools, one method per tool with
//     keyword-only arguments named as on the wire, which the hand-written Client and AsyncClient
//     inherit;
//   - conformance/adapters/python/_dispatch_gen.py: the conformance adapter's table from tool name
//     to typed method.
//
// The output is formatted here the way ruff format and black would leave it (four-space indent,
// double quotes, one argument per line with a trailing comma when a call is split), so no
// formatter is needed to keep it stable.

const (
	pyTypesPath    = "sdks/python/src/fsbox/_types_gen.py"
	pyClientPath   = "sdks/python/src/fsbox/_client_gen.py"
	pyDispatchPath = "conformance/adapters/python/_dispatch_gen.py"
	pyWrap         = 88  // docstring lines are wrapped to this width, indentation included
	pyMaxLine      = 100 // the line length of sdks/python (pyproject's tool.ruff), which code lines keep to
)

// pyKeywords are Python's reserved words (keyword.kwlist of 3.10 to 3.13). A wire name that is one
// gets a trailing underscore as a Python name (PEP 8); a tool named like one is refused.
var pyKeywords = map[string]bool{
	"False": true, "None": true, "True": true, "and": true, "as": true, "assert": true,
	"async": true, "await": true, "break": true, "class": true, "continue": true, "def": true,
	"del": true, "elif": true, "else": true, "except": true, "finally": true, "for": true,
	"from": true, "global": true, "if": true, "import": true, "in": true, "is": true,
	"lambda": true, "nonlocal": true, "not": true, "or": true, "pass": true, "raise": true,
	"return": true, "try": true, "while": true, "with": true, "yield": true,
}

// pyShadowing are field names refused because a class attribute of that name would shadow a name
// the generated annotations and methods of the same class use.
var pyShadowing = map[string]bool{
	"bool": true, "dict": true, "float": true, "from_wire": true, "int": true, "list": true,
	"object": true, "str": true, "to_wire": true,
}

// pyClientMembers are the attributes of the hand-written Client and AsyncClient (and of the
// generated SyncTools/AsyncTools) that a tool method must not shadow.
var pyClientMembers = map[string]bool{
	"aclose": true, "call": true, "close": true, "initialize_result": true, "pid": true,
	"start": true, "tools": true,
}

// pyModuleNames are the names fsbox's package namespace holds besides the $defs types: what
// _types_gen.py declares and imports (the converters of the hand-written _wire.py among them), and
// what the hand-written modules export next to it.
var pyModuleNames = map[string]bool{
	"Any": true, "AsyncClient": true, "BinaryNotFound": true, "Callable": true,
	"ChangeRequest": true, "Client": true, "ConnectionLost": true, "DEFAULT_TOOLS": true,
	"ERROR_CODES": true, "ERROR_KINDS": true, "EVENT_TYPES": true, "ErrorKindInfo": true,
	"Event": true, "FsboxError": true, "Literal": true, "Mapping": true, "PROTOCOL_VERSION": true,
	"ProtocolError": true, "READ_ONLY_TOOLS": true, "RawResult": true, "ResultShape": true,
	"ResultShapeError": true, "SCHEMA_HASH": true,
	"Self": true, "TOOL_NAMES": true, "TOOL_RESULTS": true, "TYPE_CHECKING": true,
	"ToolFatal": true, "ToolResult": true, "ToolRetry": true, "TypeVar": true, "Union": true,
	"WireError": true,
	// The error classes under one naming scheme (docs/errors.md); the names above are their
	// deprecated aliases, still exported.
	"BinaryNotFoundError": true, "ConnectionLostError": true, "SchemaMismatch": true,
	"SchemaMismatchError": true, "ToolFatalError": true, "ToolRetryError": true,
}

func init() { Register("python", emitPython) }

func emitPython(m *Model) ([]File, error) {
	return emitText(m, pyCheck,
		textFile{pyTypesPath, pyTypes}, textFile{pyClientPath, pyClient}, textFile{pyDispatchPath, pyDispatch})
}

// pyCheck refuses what has no faithful Python rendering, naming the schema element.
func pyCheck(m *Model) error {
	for _, t := range m.Types {
		if pyKeywords[t.Name] || pyModuleNames[t.Name] {
			return fmt.Errorf("type %s: the name is taken in Python (a keyword or a name the fsbox package defines)", t.Name)
		}
		seen := map[string]string{}
		for _, f := range t.Fields {
			if pyShadowing[f.Name] {
				return fmt.Errorf("type %s: field %q would shadow a name the generated class uses", t.Name, f.Name)
			}
			id := pyIdent(f.Name)
			if other, dup := seen[id]; dup {
				return fmt.Errorf("type %s: fields %q and %q have the same Python name %s", t.Name, other, f.Name, id)
			}
			seen[id] = f.Name
		}
	}
	for _, tool := range m.Tools {
		if pyKeywords[tool.Name] || pyClientMembers[tool.Name] {
			return fmt.Errorf("tool %s: the name is a Python keyword or a member of fsbox.Client", tool.Name)
		}
		for _, f := range tool.Args.Fields {
			if f.Name == "self" {
				return fmt.Errorf("tool %s: argument %q cannot be a keyword argument of a method", tool.Name, f.Name)
			}
		}
		if f := tool.Result.Field("text"); f == nil || !f.Required || f.Type.Kind != RefString {
			return fmt.Errorf("tool %s: result type %s has no required string field text", tool.Name, tool.Result.Name)
		}
	}
	return nil
}

// pyIdent is the Python name of a wire name: the name itself, or with a trailing underscore when
// it is a keyword.
func pyIdent(wire string) string {
	if pyKeywords[wire] {
		return wire + "_"
	}
	return wire
}

// pyWriter accumulates Python source, four spaces per indentation level.
type pyWriter struct{ srcWriter }

func newPyWriter(m *Model) *pyWriter { return &pyWriter{newSrcWriter(m, "    ", "#")} }

// line writes s at indent; an empty s is an empty line.
func (w *pyWriter) line(indent int, s string) { w.put(indent, s) }

func (w *pyWriter) linef(indent int, format string, args ...any) {
	w.line(indent, fmt.Sprintf(format, args...))
}

// doc writes a docstring at indent: one line when it fits, else the text wrapped with the closing
// quotes on a line of their own.
func (w *pyWriter) doc(indent int, text string) {
	w.docLines(indent, pyWrapText(text, pyWrap-4*indent))
}

// docLines writes a docstring of already laid out lines.
func (w *pyWriter) docLines(indent int, lines []string) {
	for i := range lines {
		lines[i] = pyDocEscape(lines[i])
	}
	if n := len(lines); n > 0 && strings.HasSuffix(lines[n-1], `"`) {
		lines[n-1] = strings.TrimSuffix(lines[n-1], `"`) + `\"`
	}
	if len(lines) > 0 && strings.HasPrefix(lines[0], `"`) {
		lines[0] = `\` + lines[0] // """" would read as a fourth quote
	}
	if len(lines) == 1 && 4*indent+len(lines[0])+6 <= pyWrap {
		w.line(indent, `"""`+lines[0]+`"""`)
		return
	}
	w.line(indent, `"""`+lines[0])
	for _, l := range lines[1:] {
		w.line(indent, l)
	}
	w.line(indent, `"""`)
}

// pyDocEscape makes s safe inside a triple-quoted docstring.
func pyDocEscape(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	return strings.ReplaceAll(s, `"""`, `\"\"\"`)
}

// pyWrapText reflows text to width. The schema's descriptions are Go doc comments with their
// own hard line breaks, so lines are joined into paragraphs first; a blank line ends a paragraph
// and a line starting with "- " (a list item) starts a new one.
func pyWrapText(text string, width int) []string {
	var out, para []string
	flush := func() {
		if len(para) > 0 {
			out = append(out, pyWrapLine(strings.Join(para, " "), width)...)
			para = nil
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "":
			flush()
			out = append(out, "")
		case strings.HasPrefix(line, "- "):
			flush()
			para = []string{line}
		default:
			para = append(para, line)
		}
	}
	flush()
	return out
}

func pyWrapLine(s string, width int) []string {
	if len(s) <= width {
		return []string{s}
	}
	var out []string
	cur := ""
	for _, word := range strings.Fields(s) {
		switch {
		case cur == "":
			cur = word
		case len(cur)+1+len(word) <= width:
			cur += " " + word
		default:
			out = append(out, cur)
			cur = word
		}
	}
	return append(out, cur)
}

// pyStr is a Python string literal for s. Go's escapes (\n, \t, \\, \", \xNN, \uNNNN,
// \UNNNNNNNN) all mean the same in Python.
func pyStr(s string) string { return strconv.Quote(s) }

// pySplitString cuts s after spaces into pieces whose literals fit width, for an implicit
// concatenation that spells s exactly; a single word longer than width stays whole.
func pySplitString(s string, width int) []string {
	var out []string
	cur := ""
	for _, word := range strings.SplitAfter(s, " ") {
		if cur != "" && len(pyStr(cur+word)) > width {
			out = append(out, cur)
			cur = ""
		}
		cur += word
	}
	return append(out, cur)
}

// pyAnnotation is the Python type of r.
func pyAnnotation(r *TypeRef) string {
	switch r.Kind {
	case RefString:
		if r.Enum != nil {
			return pyLiteral(r.Enum)
		}
		return "str"
	case RefBytes:
		return "bytes"
	case RefInteger:
		return "int"
	case RefNumber:
		return "float"
	case RefBoolean:
		return "bool"
	case RefArray:
		return "list[" + pyAnnotation(r.Elem) + "]"
	case RefMap:
		return "dict[str, " + pyAnnotation(r.Elem) + "]"
	case RefNamed:
		return r.Named.Name
	}
	return "Any"
}

// pyOptional is the annotation of an optional field or argument of type ann: None stands for
// "absent on the wire".
func pyOptional(ann string) string {
	if ann == "Any" {
		return ann
	}
	return ann + " | None"
}

func pyLiteral(values []string) string {
	return "Literal[" + strings.Join(quoteAll(values, pyStr), ", ") + "]"
}

// pyDecoder is the expression of the converter from a decoded JSON value to r's Python type.
func pyDecoder(r *TypeRef) string {
	switch r.Kind {
	case RefString:
		if r.Enum != nil {
			return "_w.literal"
		}
		return "_w.string"
	case RefBytes:
		return "_w.base64_bytes"
	case RefInteger:
		return "_w.integer"
	case RefNumber:
		return "_w.number"
	case RefBoolean:
		return "_w.boolean"
	case RefArray:
		return "_w.array(" + pyDecoder(r.Elem) + ")"
	case RefMap:
		return "_w.mapping(" + pyDecoder(r.Elem) + ")"
	case RefNamed:
		if r.Named.IsEnum() {
			return "_w.literal"
		}
		return "_w.nested(" + r.Named.Name + ".from_wire)"
	}
	return "_w.any_value"
}

// pyFastFromWire writes the fast path of a from_wire: the fields read once each, the plain ones
// (strings, enums, integers, numbers, booleans, consts, any) checked inline by their exact class,
// and when every check holds, the instance built from them directly; the other fields (arrays,
// maps, nested objects, bytes) go through their converters, which check them. When a plain
// check fails the checked path after it runs, whose converters raise the WireError naming the
// field; both paths accept exactly the same values. The profile of a list_directory of 300
// entries (bench/sdk_overhead.py) put the converter calls per field first in the SDK's own
// cost.
func pyFastFromWire(w *pyWriter, t *Type) {
	var checks, args []string
	plain := 0
	for i, f := range t.Fields {
		v := fmt.Sprintf("v%d", i)
		check, ok := pyFastCheck(f, v)
		if !ok {
			conv := pyDecoder(f.Type)
			if f.Type.Kind == RefArray && f.Type.Elem.Kind == RefNamed && !f.Type.Elem.Named.IsEnum() {
				conv = "_w.objects(" + f.Type.Elem.Named.Name + ".from_wire)"
			}
			fn := "opt"
			if f.Required {
				fn = "req"
			}
			args = append(args, fmt.Sprintf("%s=_w.%s(data, %s, %s)", pyIdent(f.Name), fn, pyStr(f.Name), conv))
			continue
		}
		plain++
		w.linef(2, "%s = data.get(%s)", v, pyStr(f.Name))
		if check != "" {
			checks = append(checks, check)
		}
		arg := fmt.Sprintf("%s=%s", pyIdent(f.Name), v)
		if pyIsEnum(f.Type) {
			// The class check narrows v to str for mypy; the field's type is a Literal of its
			// values, and like _w.literal the fast path keeps any string (a newer server's value).
			arg += ",  # type: ignore[arg-type]"
		}
		args = append(args, arg)
	}
	if plain == 0 {
		// Nothing to check inline: the converters are the whole path.
		w.line(2, "return cls(")
		for _, a := range args {
			w.linef(3, "%s,", a)
		}
		w.line(2, ")")
		return
	}
	if len(checks) == 0 {
		checks = []string{"True"}
	}
	w.line(2, "if (")
	for i, c := range checks {
		if i == 0 {
			w.linef(3, "%s", c)
		} else {
			w.linef(3, "and %s", c)
		}
	}
	w.line(2, "):")
	w.line(3, "return cls(")
	for _, a := range args {
		if strings.HasSuffix(a, "]") {
			w.linef(4, "%s", a) // already ends with its comma and a comment
			continue
		}
		w.linef(4, "%s,", a)
	}
	w.line(3, ")")
}

// pyIsEnum reports whether r decodes to a Literal of enum values.
func pyIsEnum(r *TypeRef) bool {
	return (r.Kind == RefString && r.Enum != nil) || (r.Kind == RefNamed && r.Named.IsEnum())
}

// pyFastCheck is the inline check of field f's decoded value in the variable v, true when the
// checked converter would return v unchanged; ok is false for a field that needs its converter.
// An empty check accepts every value.
func pyFastCheck(f *Field, v string) (check string, ok bool) {
	if f.Const != "" {
		return fmt.Sprintf("%s == %s", v, pyStr(f.Const)), true
	}
	var is string
	switch r := f.Type; r.Kind {
	case RefString:
		is = v + ".__class__ is str"
	case RefInteger:
		is = v + ".__class__ is int"
	case RefNumber:
		is = fmt.Sprintf("(%s.__class__ is int or %s.__class__ is float)", v, v)
	case RefBoolean:
		is = v + ".__class__ is bool"
	case RefNamed:
		if !r.Named.IsEnum() {
			return "", false
		}
		is = v + ".__class__ is str"
	case RefArray, RefMap, RefBytes:
		return "", false
	default: // any value
		if f.Required {
			return fmt.Sprintf("%s in data", pyStr(f.Name)), true
		}
		return "", true
	}
	if f.Required {
		return is, true
	}
	return fmt.Sprintf("(%s is None or %s)", v, is), true
}

// pyEncoder is the expression turning v (of r's Python type) into JSON-ready values; depth keeps
// the comprehension variables of nested arrays and maps apart.
func pyEncoder(r *TypeRef, v string, depth int) string {
	switch r.Kind {
	case RefBytes:
		return "_w.to_base64(" + v + ")"
	case RefNamed:
		if !r.Named.IsEnum() {
			return v + ".to_wire()"
		}
	case RefArray:
		if pyIsPlain(r.Elem) {
			return "list(" + v + ")"
		}
		x := fmt.Sprintf("x%d", depth)
		return "[" + pyEncoder(r.Elem, x, depth+1) + " for " + x + " in " + v + "]"
	case RefMap:
		if pyIsPlain(r.Elem) {
			return "dict(" + v + ")"
		}
		k, x := fmt.Sprintf("k%d", depth), fmt.Sprintf("x%d", depth)
		return "{" + k + ": " + pyEncoder(r.Elem, x, depth+1) + " for " + k + ", " + x + " in " + v + ".items()}"
	}
	return v
}

// pyIsPlain reports whether values of r are already JSON-ready.
func pyIsPlain(r *TypeRef) bool {
	switch r.Kind {
	case RefArray, RefMap, RefBytes:
		return false
	case RefNamed:
		return r.Named.IsEnum()
	}
	return true
}

func pyTypes(m *Model) []byte {
	w := newPyWriter(m)
	w.docLines(0, []string{
		"Wire types of the fsbox protocol, one dataclass per type of the schema bundle.",
		"",
		"from_wire builds an instance from a decoded JSON object: it ignores fields it does not",
		"know and raises WireError when a known one has the wrong JSON type. to_wire gives the",
		"JSON object back, leaving out the fields that are None.",
	})
	w.line(0, "")
	w.line(0, "from __future__ import annotations")
	w.line(0, "")
	w.line(0, "import dataclasses")
	w.line(0, "from collections.abc import Callable, Mapping")
	w.line(0, "from typing import TYPE_CHECKING, Any, Literal, Union")
	w.line(0, "")
	w.line(0, "from . import _wire as _w")
	w.line(0, "from ._wire import WireError")
	w.line(0, "")
	w.line(0, "if TYPE_CHECKING:")
	w.line(1, "from typing_extensions import Self")
	w.line(0, "")
	w.linef(0, "PROTOCOL_VERSION = %s", pyStr(m.ProtocolVersion))
	w.line(0, `"""The protocol major version this binding speaks."""`)
	w.line(0, "")
	w.linef(0, "SCHEMA_HASH = %s", pyStr(m.SchemaHash))
	w.line(0, `"""sha256 of the schema bundle this module was generated from."""`)
	for _, t := range m.Types {
		w.line(0, "")
		w.line(0, "")
		if t.IsEnum() {
			pyEnum(w, t)
		} else {
			pyClass(w, t)
		}
	}
	pyEventTable(w, m)
	pyToolTable(w, m)
	pyErrorTables(w, m)
	w.line(0, "")
	w.line(0, "")
	w.block(0, "__all__ = [", listItems(quoteAll(pyExports(m), pyStr)), "]")
	return w.b.Bytes()
}

func pyEnum(w *pyWriter, t *Type) {
	w.block(0, t.Name+" = Literal[", listItems(quoteAll(t.Enum, pyStr)), "]")
	if t.Description != "" {
		w.doc(0, t.Description)
	}
}

func pyClass(w *pyWriter, t *Type) {
	w.line(0, "@dataclasses.dataclass(kw_only=True)")
	w.linef(0, "class %s:", t.Name)
	desc := t.Description
	if desc == "" {
		desc = t.Name + "."
	}
	w.doc(1, desc)
	for _, f := range t.Fields {
		w.line(0, "")
		ann := pyAnnotation(f.Type)
		switch {
		case f.Const != "":
			w.linef(1, "%s: Literal[%s] = %s", pyIdent(f.Name), pyStr(f.Const), pyStr(f.Const))
		case f.Required && 4+len(pyIdent(f.Name))+2+len(ann) > 100 && strings.HasPrefix(ann, "Literal["):
			// A long enum: one value list on its own line, inside the brackets.
			w.linef(1, "%s: Literal[", pyIdent(f.Name))
			w.linef(2, "%s,", strings.TrimSuffix(strings.TrimPrefix(ann, "Literal["), "]"))
			w.line(1, "]")
		case f.Required:
			w.linef(1, "%s: %s", pyIdent(f.Name), ann)
		default:
			w.linef(1, "%s: %s = None", pyIdent(f.Name), pyOptional(ann))
		}
		desc := f.Description
		if desc == "" && f.Const != "" {
			desc = fmt.Sprintf("Always %s.", pyStr(f.Const))
		}
		if desc != "" {
			w.doc(1, desc)
		}
	}

	w.line(0, "")
	w.line(1, "@classmethod")
	w.line(1, "def from_wire(cls, data: Mapping[str, Any]) -> Self:")
	w.line(2, `"""Build an instance from its decoded JSON object, ignoring unknown fields."""`)
	if len(t.Fields) == 0 {
		w.line(2, "return cls()")
	} else {
		pyFastFromWire(w, t)
		w.line(2, "return cls(")
		for _, f := range t.Fields {
			switch {
			case f.Const != "":
				w.linef(3, "%s=_w.req(data, %s, _w.const(%s)),", pyIdent(f.Name), pyStr(f.Name), pyStr(f.Const))
			case f.Required:
				w.linef(3, "%s=_w.req(data, %s, %s),", pyIdent(f.Name), pyStr(f.Name), pyDecoder(f.Type))
			default:
				w.linef(3, "%s=_w.opt(data, %s, %s),", pyIdent(f.Name), pyStr(f.Name), pyDecoder(f.Type))
			}
		}
		w.line(2, ")")
	}

	w.line(0, "")
	w.line(1, "def to_wire(self) -> dict[str, Any]:")
	w.line(2, `"""The JSON object of this value, without the fields that are None."""`)
	var required, optional []*Field
	for _, f := range t.Fields {
		if f.Required {
			required = append(required, f)
		} else {
			optional = append(optional, f)
		}
	}
	if len(required) == 0 {
		w.line(2, "out: dict[str, Any] = {}")
	} else {
		w.line(2, "out: dict[str, Any] = {")
		for _, f := range required {
			w.linef(3, "%s: %s,", pyStr(f.Name), pyEncoder(f.Type, "self."+pyIdent(f.Name), 0))
		}
		w.line(2, "}")
	}
	for _, f := range optional {
		attr := "self." + pyIdent(f.Name)
		w.linef(2, "if %s is not None:", attr)
		w.linef(3, "out[%s] = %s", pyStr(f.Name), pyEncoder(f.Type, attr, 0))
	}
	w.line(2, "return out")
}

func pyEventTable(w *pyWriter, m *Model) {
	events := m.NotificationEvents()
	w.line(0, "")
	w.line(0, "")
	if len(events) == 0 {
		w.line(0, "Event = Any")
	} else {
		w.block(0, "Event = Union[", rows(events, func(e *Event) string { return e.Type.Name + "," }), "]")
	}
	w.line(0, `"""The params of an event notification: one class per kind."""`)
	w.line(0, "")
	w.block(0, "EVENT_TYPES: dict[str, Callable[[Mapping[str, Any]], Event]] = {", rows(events, func(e *Event) string {
		return fmt.Sprintf("%s: %s.from_wire,", pyStr(e.Kind), e.Type.Name)
	}), "}")
	w.line(0, `"""Decoder of each event kind."""`)
	w.line(0, "")
	w.line(0, "")
	w.line(0, "def event_from_wire(data: Mapping[str, Any]) -> Event | None:")
	w.line(1, `"""The typed event of a decoded event object; None for a kind this binding does not know."""`)
	w.line(1, `decode = EVENT_TYPES.get(_w.req(data, "kind", _w.string))`)
	w.line(1, "return None if decode is None else decode(data)")
}

func pyToolTable(w *pyWriter, m *Model) {
	w.line(0, "")
	w.line(0, "")
	if len(m.Tools) == 0 {
		w.line(0, "ToolResult = Any")
	} else {
		w.line(0, "ToolResult = Union[")
		seen := map[*Type]bool{}
		for _, t := range m.Tools {
			if !seen[t.Result] {
				seen[t.Result] = true
				w.linef(1, "%s,", t.Result.Name)
			}
		}
		w.line(0, "]")
	}
	w.line(0, `"""The result of some tool; every one has text, what the model should see."""`)
	w.line(0, "")
	w.block(0, "TOOL_RESULTS: dict[str, Callable[[Mapping[str, Any]], ToolResult]] = {", rows(m.Tools, func(t *Tool) string {
		return fmt.Sprintf("%s: %s.from_wire,", pyStr(t.Name), t.Result.Name)
	}), "}")
	w.line(0, `"""Decoder of each tool's result, by tool name."""`)
	pyNames := func(name, doc string, keep func(*Tool) bool) {
		w.line(0, "")
		w.linef(0, "%s: tuple[str, ...] = (", name)
		for _, t := range m.Tools {
			if keep(t) {
				w.linef(1, "%s,", pyStr(t.Name))
			}
		}
		w.line(0, ")")
		w.line(0, `"""`+doc+`"""`)
	}
	pyNames("TOOL_NAMES", "Every tool the schema describes, in registration order.", func(*Tool) bool { return true })
	pyNames("DEFAULT_TOOLS", "The tools enabled when config.tools is omitted.", func(t *Tool) bool { return t.Default })
	pyNames("READ_ONLY_TOOLS", "The tools that only read; read_only keeps just these.", func(t *Tool) bool { return t.ReadOnly })
}

func pyErrorTables(w *pyWriter, m *Model) {
	w.line(0, "")
	w.line(0, "")
	w.line(0, "@dataclasses.dataclass(frozen=True)")
	w.line(0, "class ErrorKindInfo:")
	w.line(1, `"""What the schema says about one error kind."""`)
	w.line(0, "")
	w.line(1, "retry: bool")
	w.line(1, `"""True when the model can fix the call and try again."""`)
	w.line(0, "")
	w.line(1, "description: str")
	w.line(0, "")
	w.line(0, "")
	w.line(0, "ERROR_KINDS: dict[str, ErrorKindInfo] = {")
	for _, k := range m.ErrorKinds {
		w.linef(1, "%s: ErrorKindInfo(", pyStr(k.Kind))
		w.linef(2, "retry=%s,", pyBool(k.Retry))
		if lit := pyStr(k.Description); 8+len("description=")+len(lit)+1 <= pyMaxLine {
			w.linef(2, "description=%s,", lit)
		} else {
			w.line(2, "description=(")
			for _, chunk := range pySplitString(k.Description, pyMaxLine-12) {
				w.line(3, pyStr(chunk))
			}
			w.line(2, "),")
		}
		w.line(1, "),")
	}
	w.line(0, "}")
	w.line(0, `"""Every error kind of the protocol; clients compare kinds, never messages."""`)
	w.line(0, "")
	w.block(0, "ERROR_CODES: dict[str, int] = {", errorCodeRows(m, pyStr), "}")
	w.line(0, `"""JSON-RPC error codes by name."""`)
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// pyExports are the public names of _types_gen.py, sorted.
func pyExports(m *Model) []string {
	names := []string{
		"DEFAULT_TOOLS", "ERROR_CODES", "ERROR_KINDS", "EVENT_TYPES", "ErrorKindInfo", "Event",
		"PROTOCOL_VERSION", "READ_ONLY_TOOLS", "SCHEMA_HASH", "TOOL_NAMES", "TOOL_RESULTS",
		"ToolResult", "WireError", "event_from_wire",
	}
	for _, t := range m.Types {
		names = append(names, t.Name)
	}
	sort.Strings(names)
	return names
}

// pyToolImports are the types _client_gen.py needs: every tool's arguments and result and the
// object types its arguments refer to.
func pyToolImports(m *Model) []string {
	set := map[string]bool{}
	var walk func(r *TypeRef)
	walk = func(r *TypeRef) {
		switch {
		case r.Kind == RefNamed:
			set[r.Named.Name] = true
		case r.Elem != nil:
			walk(r.Elem)
		}
	}
	for _, t := range m.Tools {
		set[t.Args.Name], set[t.Result.Name] = true, true
		for _, f := range t.Args.Fields {
			walk(f.Type)
		}
	}
	return sortedKeys(set)
}

func pyClient(m *Model) []byte {
	w := newPyWriter(m)
	w.line(0, `"""The tool methods of Client and AsyncClient, one per tool of the schema bundle."""`)
	w.line(0, "")
	w.line(0, "from __future__ import annotations")
	w.line(0, "")
	w.line(0, "from collections.abc import Awaitable, Callable, Mapping")
	w.line(0, "from typing import Any, TypeVar")
	if names := pyToolImports(m); len(names) > 0 {
		w.line(0, "")
		w.block(0, "from ._types_gen import (", listItems(names), ")")
	}
	w.line(0, "")
	w.line(0, `_T = TypeVar("_T")`)
	for _, async := range []bool{false, true} {
		w.line(0, "")
		w.line(0, "")
		if async {
			w.line(0, "class AsyncTools:")
			w.line(1, `"""The tools as coroutines; AsyncClient supplies _call_tool."""`)
		} else {
			w.line(0, "class SyncTools:")
			w.line(1, `"""The tools as blocking methods; Client supplies _call_tool."""`)
		}
		w.line(0, "")
		w.line(1, "def _call_tool(")
		w.line(2, "self,")
		w.line(2, "name: str,")
		w.line(2, "arguments: dict[str, Any],")
		w.line(2, "decode: Callable[[Mapping[str, Any]], _T],")
		if async {
			w.line(1, ") -> Awaitable[_T]:")
		} else {
			w.line(1, ") -> _T:")
		}
		w.line(2, "raise NotImplementedError")
		for _, t := range m.Tools {
			w.line(0, "")
			pyToolMethod(w, t, async)
		}
	}
	out := w.b.Bytes()
	if bytes.Contains(out, []byte("Literal[")) {
		// A tool argument with an inline enum (str_replace_based_edit_tool's command) is typed
		// as a Literal: import it only then, so the other clients stay unchanged.
		out = bytes.Replace(out, []byte("from typing import Any, TypeVar\n"), []byte("from typing import Any, Literal, TypeVar\n"), 1)
	}
	return out
}

func pyToolMethod(w *pyWriter, t *Tool, async bool) {
	def, call := "def", "return self._call_tool("
	if async {
		def, call = "async def", "return await self._call_tool("
	}
	if len(t.Args.Fields) == 0 {
		w.linef(1, "%s %s(self) -> %s:", def, t.Name, t.Result.Name)
	} else {
		w.linef(1, "%s %s(", def, t.Name)
		w.line(2, "self,")
		w.line(2, "*,")
		for _, f := range t.Args.Fields {
			if f.Required {
				w.linef(2, "%s: %s,", pyIdent(f.Name), pyAnnotation(f.Type))
			} else {
				w.linef(2, "%s: %s = None,", pyIdent(f.Name), pyOptional(pyAnnotation(f.Type)))
			}
		}
		w.linef(1, ") -> %s:", t.Result.Name)
	}

	width := pyWrap - 8
	lines := pyWrapText(t.Description, width)
	if len(t.Args.Fields) > 0 {
		lines = append(lines, "", "Args:")
		for _, f := range t.Args.Fields {
			desc := f.Description
			if desc == "" {
				desc = "See " + t.Args.Name + "."
			}
			for i, l := range pyWrapText(pyIdent(f.Name)+": "+desc, width-8) {
				if i == 0 {
					lines = append(lines, "    "+l)
				} else {
					lines = append(lines, "        "+l)
				}
			}
		}
	}
	lines = append(lines, "",
		"Raises:",
		"    ToolRetryError: the call failed in a way the model can fix.",
		"    ToolFatalError: the call failed and the run should stop.",
	)
	w.docLines(2, lines)

	if len(t.Args.Fields) == 0 {
		w.linef(2, "arguments = %s().to_wire()", t.Args.Name)
	} else {
		w.linef(2, "arguments = %s(", t.Args.Name)
		for _, f := range t.Args.Fields {
			w.linef(3, "%s=%s,", pyIdent(f.Name), pyIdent(f.Name))
		}
		w.line(2, ").to_wire()")
	}
	args := fmt.Sprintf("%s, arguments, %s.from_wire", pyStr(t.Name), t.Result.Name)
	if 8+len(call)+len(args)+1 <= pyMaxLine {
		w.linef(2, "%s%s)", call, args)
	} else {
		w.line(2, call)
		w.line(3, args)
		w.line(2, ")")
	}
}

func pyDispatch(m *Model) []byte {
	w := newPyWriter(m)
	w.docLines(0, []string{
		"The conformance adapter's dispatch table: tool name to typed SDK method.",
		"",
		"Each handler decodes the runner's arguments into the tool's typed arguments and calls the",
		"typed method with them. It returns None when the arguments do not survive that round trip",
		"unchanged (an unknown field, a wrong JSON type, an explicit null): the adapter then sends",
		"them as they are through Client.call, so the server's own error comes back.",
	})
	w.line(0, "")
	w.line(0, "from __future__ import annotations")
	w.line(0, "")
	w.line(0, "from collections.abc import Callable")
	w.line(0, "from typing import Any")
	w.line(0, "")
	w.line(0, "import fsbox")
	w.line(0, "")
	w.line(0, "_Object = dict[str, Any]")
	for _, t := range m.Tools {
		w.line(0, "")
		w.line(0, "")
		w.linef(0, "def _%s(client: fsbox.Client, arguments: _Object) -> _Object | None:", t.Name)
		w.linef(1, "args = fsbox.%s.from_wire(arguments)", t.Args.Name)
		w.line(1, "if args.to_wire() != arguments:")
		w.line(2, "return None")
		if len(t.Args.Fields) == 0 {
			w.linef(1, "return client.%s().to_wire()", t.Name)
			continue
		}
		w.linef(1, "result = client.%s(", t.Name)
		for _, f := range t.Args.Fields {
			w.linef(2, "%s=args.%s,", pyIdent(f.Name), pyIdent(f.Name))
		}
		w.line(1, ")")
		w.line(1, "return result.to_wire()")
	}
	w.line(0, "")
	w.line(0, "")
	w.block(0, "DISPATCH: dict[str, Callable[[fsbox.Client, _Object], _Object | None]] = {", rows(m.Tools, func(t *Tool) string {
		return fmt.Sprintf("%s: _%s,", pyStr(t.Name), t.Name)
	}), "}")
	w.line(0, `"""Typed handler of each tool, by name."""`)
	return w.b.Bytes()
}
