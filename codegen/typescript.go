package codegen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"

	"strconv"
	"strings"
)

// The TypeScript emitter writes three files:
//
//   - sdks/typescript/src/types.gen.ts: an interface per object type (wire field names kept
//     snake_case), a string-literal union per enum, the Event union discriminated on kind, the
//     error-kind retry table, the error codes, the tool and method tables;
//   - sdks/typescript/src/client.gen.ts: GeneratedClient, a camelCase method per tool with typed
//     arguments and result, which the hand-written Client extends;
//   - conformance/adapters/typescript/src/dispatch.gen.ts: the conformance adapter's table from
//     tool name to typed method.
//
// The output is formatted here (two-space indent, double quotes, semicolons, one member per line),
// so no formatter is needed to keep it stable.

const (
	tsTypesPath    = "sdks/typescript/src/types.gen.ts"
	tsClientPath   = "sdks/typescript/src/client.gen.ts"
	tsDispatchPath = "conformance/adapters/typescript/src/dispatch.gen.ts"
	// tsSDKEntry is the built SDK the adapter imports; dist/ mirrors src/.
	tsSDKEntry = "sdks/typescript/dist/index.js"
)

// tsClientMembers are the members of the hand-written Client (and of GeneratedClient) that a tool
// method must not shadow.
var tsClientMembers = map[string]bool{
	"call": true, "callTool": true, "close": true, "closeTimeoutMs": true, "constructor": true,
	"listTools": true, "pid": true, "schema": true, "session": true, "start": true, "text": true, "tools": true,
	"transport": true,
}

// tsEmittedNames are the names types.gen.ts declares besides the $defs types.
var tsEmittedNames = []string{
	"BYTES_FIELDS", "ClientMethods", "ClientNotifications", "ERROR_CODES", "ERROR_KIND_RETRY", "Event",
	"PROTOCOL_VERSION", "SCHEMA_HASH", "ServerNotifications", "ServerRequests", "TOOLS", "TOOL_RESULT_TYPES",
	"ToolArguments", "ToolInfo", "ToolName", "ToolResult", "ToolResults",
}

func init() { Register("typescript", emitTypeScript) }

func emitTypeScript(m *Model) ([]File, error) {
	return emitText(m, tsCheckNames,
		textFile{tsTypesPath, tsTypes}, textFile{tsClientPath, tsClient}, textFile{tsDispatchPath, tsDispatch})
}

// tsCheckNames refuses schemas whose names would collide in the generated TypeScript.
func tsCheckNames(m *Model) error {
	for _, n := range tsEmittedNames {
		if m.Type(n) != nil {
			return fmt.Errorf("$defs/%s: the name is taken by types.gen.ts itself", n)
		}
	}
	if kinds := m.Type("ErrorKind"); kinds == nil && len(m.ErrorKinds) > 0 {
		return fmt.Errorf("x-fsbox.error_kinds needs the ErrorKind enum in $defs for the retry table's type")
	} else if kinds != nil && !kinds.IsEnum() {
		return fmt.Errorf("$defs/ErrorKind must be a string enum")
	}
	methods := map[string]string{}
	for _, t := range m.Tools {
		name := tsCamel(t.Name)
		if tsClientMembers[name] {
			return fmt.Errorf("tool %s: method name %s is a member of Client", t.Name, name)
		}
		if other, dup := methods[name]; dup {
			return fmt.Errorf("tools %s and %s both become method %s", other, t.Name, name)
		}
		methods[name] = t.Name
	}
	return nil
}

// tsWriter accumulates one TypeScript file, two spaces per indentation level.
type tsWriter struct{ srcWriter }

func newTSWriter(m *Model) *tsWriter { return &tsWriter{newSrcWriter(m, "  ", "//")} }

// line writes format with args at indent; an empty format is an empty line.
func (w *tsWriter) line(indent int, format string, args ...any) {
	if format == "" {
		w.put(0, "")
		return
	}
	w.put(indent, fmt.Sprintf(format, args...))
}

// comment writes text as // lines followed by a blank line; nothing when text is empty.
func (w *tsWriter) comment(indent int, text string) {
	if text = strings.TrimSpace(text); text == "" {
		return
	}
	for _, l := range strings.Split(text, "\n") {
		w.line(indent, "%s", strings.TrimRight("// "+l, " \t"))
	}
	w.line(0, "")
}

// doc writes a TSDoc comment holding the paragraphs that are non-empty; nothing when all are empty.
// One short line becomes a one-line comment.
func (w *tsWriter) doc(indent int, paragraphs ...string) {
	var lines []string
	for _, p := range paragraphs {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if len(lines) > 0 {
			lines = append(lines, "")
		}
		for _, l := range strings.Split(p, "\n") {
			lines = append(lines, strings.TrimRight(strings.ReplaceAll(l, "*/", "*\\/"), " \t"))
		}
	}
	pad := strings.Repeat("  ", indent)
	switch {
	case len(lines) == 0:
		return
	case len(lines) == 1 && len(pad)+len(lines[0]) <= 94:
		fmt.Fprintf(&w.b, "%s/** %s */\n", pad, lines[0])
		return
	}
	fmt.Fprintf(&w.b, "%s/**\n", pad)
	for _, l := range lines {
		if l == "" {
			fmt.Fprintf(&w.b, "%s *\n", pad)
		} else {
			fmt.Fprintf(&w.b, "%s * %s\n", pad, l)
		}
	}
	fmt.Fprintf(&w.b, "%s */\n", pad)
}

// tsString returns s as a double-quoted TypeScript string literal.
func tsString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// tsKey returns name as an object key or property name: bare when it is an identifier.
func tsKey(name string) string {
	if tsIsIdent(name) {
		return name
	}
	return tsString(name)
}

func tsIsIdent(s string) bool {
	for i, r := range s {
		if !(r == '_' || r == '$' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || i > 0 && '0' <= r && r <= '9') {
			return false
		}
	}
	return s != ""
}

// tsCamel turns a snake_case tool name into a camelCase method name: read_file → readFile.
func tsCamel(snake string) string {
	parts := strings.Split(snake, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

// tsUnion renders string literals as a union type.
func tsUnion(values []string) string {
	return strings.Join(quoteAll(values, tsString), " | ")
}

// tsRef renders the TypeScript type of a field, array element or map value.
func tsRef(r *TypeRef) string {
	switch r.Kind {
	case RefString:
		if r.Enum != nil {
			return tsUnion(r.Enum)
		}
		return "string"
	case RefBytes:
		return "Uint8Array"
	case RefInteger, RefNumber:
		return "number"
	case RefBoolean:
		return "boolean"
	case RefArray:
		elem := tsRef(r.Elem)
		if strings.Contains(elem, " ") {
			return "Array<" + elem + ">"
		}
		return elem + "[]"
	case RefMap:
		return "Record<string, " + tsRef(r.Elem) + ">"
	case RefNamed:
		return r.Named.Name
	default:
		return "unknown"
	}
}

// tsConstraints describes in words the bounds a TypeScript type cannot say.
func tsConstraints(f *Field) string {
	var notes []string
	if min := f.Type.Minimum; min != nil {
		notes = append(notes, "Minimum "+strconv.FormatFloat(*min, 'f', -1, 64)+".")
	}
	switch n := f.Type.MinItems; {
	case n == nil:
	case *n == 1:
		notes = append(notes, "At least one item.")
	default:
		notes = append(notes, fmt.Sprintf("At least %d items.", *n))
	}
	return strings.Join(notes, " ")
}

func tsTypes(m *Model) []byte {
	w := newTSWriter(m)
	w.line(0, "")
	w.comment(0, m.Description)
	w.doc(0, "The protocol version of the schema these types were generated from.")
	w.line(0, "export const PROTOCOL_VERSION = %s;", tsString(m.ProtocolVersion))
	w.line(0, "")
	w.doc(0, "The hash of the schema these types were generated from; compare with InitializeResult.schema_hash.")
	w.line(0, "export const SCHEMA_HASH = %s;", tsString(m.SchemaHash))
	for _, t := range m.Types {
		w.line(0, "")
		tsType(w, t)
	}
	w.line(0, "")
	tsEventUnion(w, m)
	w.line(0, "")
	tsErrorTables(w, m)
	w.line(0, "")
	tsToolTables(w, m)
	w.line(0, "")
	tsBytesTables(w, m)
	w.line(0, "")
	tsMethodTables(w, m)
	return w.b.Bytes()
}

func tsType(w *tsWriter, t *Type) {
	w.doc(0, t.Description)
	if t.IsEnum() {
		w.union(t.Name, quoteAll(t.Enum, tsString))
		return
	}
	if len(t.Fields) == 0 {
		w.line(0, "export interface %s {}", t.Name)
		return
	}
	w.line(0, "export interface %s {", t.Name)
	for _, f := range t.Fields {
		w.doc(1, f.Description, tsConstraints(f))
		typ := tsRef(f.Type)
		if f.Const != "" {
			typ = tsString(f.Const)
		}
		opt := "?"
		if f.Required {
			opt = ""
		}
		w.line(1, "%s%s: %s;", tsKey(f.Name), opt, typ)
	}
	w.line(0, "}")
}

func tsEventUnion(w *tsWriter, m *Model) {
	events := m.NotificationEvents()
	w.doc(0, "Event is the params of an event notification, discriminated on kind.")
	names := make([]string, len(events))
	for i, e := range events {
		names[i] = e.Type.Name
	}
	w.union("Event", names)
}

// union declares the type alias name as the union of members, one member per line when there are
// several.
func (w *tsWriter) union(name string, members []string) {
	switch len(members) {
	case 0:
		w.line(0, "export type %s = never;", name)
	case 1:
		w.line(0, "export type %s = %s;", name, members[0])
	default:
		w.line(0, "export type %s =", name)
		for i, m := range members {
			end := ""
			if i == len(members)-1 {
				end = ";"
			}
			w.line(1, "| %s%s", m, end)
		}
	}
}

func tsErrorTables(w *tsWriter, m *Model) {
	keyType := "string"
	if m.Type("ErrorKind") != nil {
		keyType = "ErrorKind"
	}
	w.doc(0, "Whether a failure of each kind can be fixed by the model (a retry error) or ends the run (a fatal error).")
	w.line(0, "export const ERROR_KIND_RETRY: Readonly<Record<%s, boolean>> = {", keyType)
	for _, k := range m.ErrorKinds {
		w.doc(1, k.Description)
		w.line(1, "%s: %t,", tsKey(k.Kind), k.Retry)
	}
	w.line(0, "};")
	w.line(0, "")
	w.doc(0, "The JSON-RPC error codes of the protocol, by name.")
	w.block(0, "export const ERROR_CODES = {", errorCodeRows(m, tsKey), "} as const;")
}

func tsToolTables(w *tsWriter, m *Model) {
	w.doc(0, "The arguments of each tool, by tool name.")
	w.block(0, "export interface ToolArguments {", rows(m.Tools, func(t *Tool) string {
		return fmt.Sprintf("%s: %s;", tsKey(t.Name), t.Args.Name)
	}), "}")
	w.line(0, "")
	w.doc(0, "The result of each tool, by tool name.")
	w.block(0, "export interface ToolResults {", rows(m.Tools, func(t *Tool) string {
		return fmt.Sprintf("%s: %s;", tsKey(t.Name), t.Result.Name)
	}), "}")
	w.line(0, "")
	w.doc(0, "The name of a tool this SDK knows.")
	w.line(0, "export type ToolName = keyof ToolArguments;")
	w.line(0, "")
	w.doc(0, "The result of any tool this SDK knows.")
	w.line(0, "export type ToolResult = ToolResults[ToolName];")
	w.line(0, "")
	w.doc(0, "ToolInfo is what the schema says about a tool.")
	w.line(0, "export interface ToolInfo {")
	w.line(1, "readonly name: ToolName;")
	w.doc(1, "Enabled when the config does not list tools.")
	w.line(1, "readonly default: boolean;")
	w.doc(1, "Kept by read_only: true.")
	w.line(1, "readonly read_only: boolean;")
	w.line(0, "}")
	w.line(0, "")
	w.doc(0, "Every tool of the schema, in its order.")
	w.block(0, "export const TOOLS: readonly ToolInfo[] = [", rows(m.Tools, func(t *Tool) string {
		return fmt.Sprintf("{ name: %s, default: %t, read_only: %t },", tsString(t.Name), t.Default, t.ReadOnly)
	}), "];")
}

// tsBytesTables writes where base64 fields sit, for the client to turn them into Uint8Array: JSON
// has no bytes, so the types say Uint8Array and the client converts what arrives.
func tsBytesTables(w *tsWriter, m *Model) {
	holds := map[*Type]bool{}
	var ref func(r *TypeRef) string
	ref = func(r *TypeRef) string {
		switch r.Kind {
		case RefBytes:
			return "bytes"
		case RefNamed:
			if holds[r.Named] {
				return r.Named.Name
			}
		case RefArray:
			if inner := ref(r.Elem); inner != "" {
				return inner + "[]"
			}
		}
		return ""
	}
	for changed := true; changed; { // to a fixed point: a type holds bytes if a field leads to them
		changed = false
		for _, t := range m.Types {
			for _, f := range t.Fields {
				if !holds[t] && ref(f.Type) != "" {
					holds[t], changed = true, true
				}
			}
		}
	}
	w.doc(0, "For each type holding bytes, directly or in a nested type: its fields that are bytes (\"bytes\") or "+
		"hold such a type (its name, with [] for an array of it). The client turns their base64 into Uint8Array.")
	w.line(0, "export const BYTES_FIELDS: Readonly<Record<string, Readonly<Record<string, string>>>> = {")
	for _, t := range m.Types {
		if !holds[t] {
			continue
		}
		var parts []string
		for _, f := range t.Fields {
			if k := ref(f.Type); k != "" {
				parts = append(parts, tsKey(f.Name)+": "+tsString(k))
			}
		}
		w.line(1, "%s: { %s },", tsKey(t.Name), strings.Join(parts, ", "))
	}
	w.line(0, "};")
	w.line(0, "")
	w.doc(0, "The result type of each tool, by tool name, as BYTES_FIELDS names it.")
	w.block(0, "export const TOOL_RESULT_TYPES: Readonly<Record<ToolName, string>> = {", rows(m.Tools, func(t *Tool) string {
		return fmt.Sprintf("%s: %s,", tsKey(t.Name), tsString(t.Result.Name))
	}), "};")
}

// tsMethodTables writes one interface per direction and kind of message, mapping the method name to
// its params (and result, for requests).
func tsMethodTables(w *tsWriter, m *Model) {
	tables := []struct {
		name, doc, direction string
		notification         bool
	}{
		{"ClientMethods", "Requests from the client to the server: params and result of each.", "client_to_server", false},
		{"ClientNotifications", "Notifications from the client to the server: params of each.", "client_to_server", true},
		{"ServerRequests", "Requests from the server to the client: params and result of each.", "server_to_client", false},
		{"ServerNotifications", "Notifications from the server to the client: params of each.", "server_to_client", true},
	}
	for i, tab := range tables {
		if i > 0 {
			w.line(0, "")
		}
		w.doc(0, tab.doc)
		var members []*Method
		for _, me := range m.Methods {
			if me.Direction == tab.direction && me.Notification == tab.notification {
				members = append(members, me)
			}
		}
		if len(members) == 0 {
			w.line(0, "export interface %s {}", tab.name)
			continue
		}
		w.line(0, "export interface %s {", tab.name)
		for _, me := range members {
			params := "undefined"
			switch {
			case me.ParamsIsEvent:
				params = "Event"
			case me.Params != nil:
				params = me.Params.Name
			}
			w.doc(1, me.Description)
			if tab.notification {
				w.line(1, "%s: %s;", tsKey(me.Name), params)
				continue
			}
			result := "unknown"
			switch {
			case me.ResultIsTool:
				result = "ToolResult"
			case me.Result != nil:
				result = me.Result.Name
			}
			w.line(1, "%s: { params: %s; result: %s };", tsKey(me.Name), params, result)
		}
		w.line(0, "}")
	}
}

// tsRequiresArgs reports whether an arguments object has a required field, so the method cannot
// default it to {}.
func tsRequiresArgs(t *Type) bool {
	for _, f := range t.Fields {
		if f.Required {
			return true
		}
	}
	return false
}

func tsClient(m *Model) []byte {
	w := newTSWriter(m)
	w.line(0, "")
	w.line(0, "import type { CallOptions } from \"./transport.js\";")
	w.block(0, "import type {", listItems(tsToolTypeNames(m)), "} from \"./types.gen.js\";")
	w.line(0, "")
	w.doc(0, "GeneratedClient has a typed method per tool of the schema; Client supplies callTool.")
	w.line(0, "export abstract class GeneratedClient {")
	w.doc(1, "Calls the tool name with args and resolves with its result; a failure rejects with a ToolCallError.")
	w.line(1, "protected abstract callTool<N extends ToolName>(")
	w.line(2, "name: N,")
	w.line(2, "args: ToolArguments[N],")
	w.line(2, "options?: CallOptions,")
	w.line(1, "): Promise<ToolResults[N]>;")
	for _, t := range m.Tools {
		w.line(0, "")
		w.doc(1, t.Description, "Calls the tool "+t.Name+".")
		args := "args: " + t.Args.Name
		if !tsRequiresArgs(t.Args) {
			args += " = {}"
		}
		w.line(1, "%s(%s, options?: CallOptions): Promise<%s> {", tsCamel(t.Name), args, t.Result.Name)
		w.line(2, "return this.callTool(%s, args, options);", tsString(t.Name))
		w.line(1, "}")
	}
	w.line(0, "}")
	return w.b.Bytes()
}

// tsToolTypeNames lists, sorted and without repeats, the types client.gen.ts imports.
func tsToolTypeNames(m *Model) []string {
	seen := map[string]bool{"ToolArguments": true, "ToolName": true, "ToolResults": true}
	for _, t := range m.Tools {
		seen[t.Args.Name] = true
		seen[t.Result.Name] = true
	}
	return sortedKeys(seen)
}

func tsDispatch(m *Model) []byte {
	w := newTSWriter(m)
	w.line(0, "")
	names := map[string]bool{"Client": true}
	for _, t := range m.Tools {
		names[t.Args.Name] = true
	}
	w.block(0, "import type {", listItems(sortedKeys(names)), "} from "+tsString(tsRelImport(tsDispatchPath, tsSDKEntry))+";")
	w.line(0, "")
	w.doc(0, "Dispatch calls one tool through the SDK's typed method; args is the wire arguments object.")
	w.line(0, "export type Dispatch = (client: Client, args: Record<string, unknown>) => Promise<object>;")
	w.line(0, "")
	w.doc(0, "DISPATCH maps every tool of the schema to its typed method.")
	w.block(0, "export const DISPATCH: Readonly<Record<string, Dispatch>> = {", rows(m.Tools, func(t *Tool) string {
		return fmt.Sprintf("%s: (client, args) => client.%s(args as unknown as %s),", tsKey(t.Name), tsCamel(t.Name), t.Args.Name)
	}), "};")
	return w.b.Bytes()
}

// tsRelImport returns the relative ESM specifier from the file from to the file to, both
// repository-relative. from sits in a src/ directory compiled to a sibling dist/, so the specifier
// holds from either.
func tsRelImport(from, to string) string {
	return strings.Repeat("../", strings.Count(path.Dir(from), "/")+1) + to
}
