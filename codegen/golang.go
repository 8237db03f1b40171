package codegen

import (
	"bytes"
	"fmt"
	"go/token"
	"sort"
	"strings"

	"github.com/dave/jennifer/jen"
)

func init() { Register("go", emitGo) }

// Where the Go output goes, and the import path of the SDK package.
const (
	goSDKDir     = "sdks/go/fsboxclient"
	goSDKImport  = "github.com/fsbox/fsbox/sdks/go/fsboxclient"
	goSDKPackage = "fsboxclient"
	goAdapterDir = "conformance/adapters/go"
	jsonPkg      = "encoding/json"
)

// emitGo writes the Go SDK's types_gen.go and client_gen.go and the dispatch table of the Go
// conformance adapter.
//
// Mapping: a $defs object becomes a struct, a named string enum a string type with one constant
// per value. A required field is a plain value. An optional scalar or object field is a pointer,
// so an absent field stays distinguishable from a zero one in both directions (Offset: new(0)
// sends offset 0; a nil NextOffset means the server sent none). An optional array or map is a
// slice or map tagged omitzero: nil is absent, an empty one is sent as []. A value the schema
// does not constrain (no type, or an object without properties) is json.RawMessage, the bytes as
// sent. Const fields exist only as the kind of events: the struct has no Kind field and its
// MarshalJSON writes the constant, so an event can never carry the wrong kind.
func emitGo(m *Model) ([]File, error) {
	g, err := newGoEmitter(m)
	if err != nil {
		return nil, err
	}
	var files []File
	for _, out := range []struct {
		path string
		file func() (*jen.File, error)
	}{
		{goSDKDir + "/types_gen.go", g.typesFile},
		{goSDKDir + "/client_gen.go", g.clientFile},
		{goAdapterDir + "/dispatch_gen.go", g.dispatchFile},
	} {
		f, err := out.file()
		if err != nil {
			return nil, err
		}
		f.HeaderComment(strings.TrimSuffix(Header("//", m), "\n"))
		var buf bytes.Buffer
		if err := f.Render(&buf); err != nil {
			return nil, fmt.Errorf("%s: %w", out.path, err)
		}
		files = append(files, File{Path: out.path, Data: buf.Bytes()})
	}
	return files, nil
}

// goEmitter holds the Go names of one model and which table entries naming them used.
type goEmitter struct {
	m     *Model
	names map[*Type]string // Go name of every $defs entry
	used  map[string]bool  // table entries consulted, as "table:key"
	kind  *Type            // the ErrorKind enum
}

func newGoEmitter(m *Model) (*goEmitter, error) {
	g := &goEmitter{m: m, names: map[*Type]string{}, used: map[string]bool{}}
	taken := map[string]string{} // Go name → what took it
	for _, n := range goHandWritten {
		taken[n] = "a hand-written declaration of " + goSDKDir
	}
	for _, n := range []string{"Event", "UnknownEvent", "DecodeEvent", "ProtocolVersion", "SchemaHash"} {
		taken[n] = "a generated helper"
	}
	for _, t := range m.Types {
		name := g.typeName(t)
		if what, ok := taken[name]; ok {
			return nil, fmt.Errorf("$defs/%s: Go name %s collides with %s; add an entry to a table in codegen/tables.go", t.Name, name, what)
		}
		taken[name] = "$defs/" + t.Name
		g.names[t] = name
	}
	if g.kind = m.Type("ErrorKind"); g.kind == nil || !g.kind.IsEnum() {
		return nil, fmt.Errorf("the Go SDK needs a string enum $defs/ErrorKind for Error.Kind")
	}
	if err := g.checkNames(taken); err != nil {
		return nil, err
	}
	return g, nil
}

// checkNames refuses a model whose Go identifiers would be invalid or collide: with each other,
// with the hand-written code, or with the methods the emitter adds. taken holds the package-level
// names already given out.
func (g *goEmitter) checkNames(taken map[string]string) error {
	claim := func(name, what string) error {
		if !token.IsIdentifier(name) || !token.IsExported(name) {
			return fmt.Errorf("%s: %q is not an exported Go identifier", what, name)
		}
		if other, ok := taken[name]; ok {
			return fmt.Errorf("%s: Go name %s collides with %s", what, name, other)
		}
		taken[name] = what
		return nil
	}
	for _, t := range g.m.Types {
		for _, v := range t.Enum {
			if err := claim(g.enumPrefix(t)+g.ident(v), fmt.Sprintf("$defs/%s value %q", t.Name, v)); err != nil {
				return err
			}
		}
	}
	for _, name := range g.m.SortedErrorCodes() {
		if err := claim("Code"+g.ident(name), "x-fsbox.error_codes."+name); err != nil {
			return err
		}
	}
	methods := map[string]bool{}
	for _, n := range goClientMethods {
		methods[n] = true
	}
	for _, tool := range g.m.Tools {
		if name := g.ident(tool.Name); methods[name] {
			return fmt.Errorf("tool %s: method name %s collides with a hand-written method of Client", tool.Name, name)
		}
	}
	for _, t := range g.m.Types {
		fields := map[string]bool{}
		if g.eventOf(t) != nil {
			fields["EventKind"], fields["MarshalJSON"] = true, true
		}
		for _, f := range t.Fields {
			where := fmt.Sprintf("$defs/%s/properties/%s", t.Name, f.Name)
			if f.Const != "" && (f.Name != "kind" || g.eventOf(t) == nil) {
				return fmt.Errorf("%s: the Go emitter supports const only as the kind of an event", where)
			}
			if name := g.ident(f.Name); fields[name] {
				return fmt.Errorf("%s: Go field name %s collides with another field or method of %s", where, name, g.names[t])
			}
			fields[g.ident(f.Name)] = true
		}
	}
	return nil
}

// typeName applies goTypeSuffixes to a $defs name.
func (g *goEmitter) typeName(t *Type) string {
	for _, s := range goTypeSuffixes {
		if base, ok := strings.CutSuffix(t.Name, s.from); ok && base != "" {
			g.used["suffix:"+s.from] = true
			return base + s.to
		}
	}
	return t.Name
}

// ident turns a snake_case (or dotted, or slash-separated) wire name into an exported Go
// identifier, spelling initialisms by goInitialisms.
func (g *goEmitter) ident(wire string) string {
	var b strings.Builder
	for _, w := range strings.FieldsFunc(wire, func(r rune) bool { return r == '_' || r == '.' || r == '/' || r == '$' }) {
		if s, ok := goInitialisms[w]; ok {
			g.used["initialism:"+w] = true
			b.WriteString(s)
			continue
		}
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

// enumPrefix is the prefix of the constants of a named enum.
func (g *goEmitter) enumPrefix(t *Type) string {
	if p, ok := goEnumPrefixes[t.Name]; ok {
		g.used["enum:"+t.Name] = true
		return p
	}
	return g.names[t]
}

// unusedTables lists the table entries the model did not need; only meaningful after emitting.
func (g *goEmitter) unusedTables() []string {
	var unused []string
	for w := range goInitialisms {
		if !g.used["initialism:"+w] {
			unused = append(unused, "goInitialisms["+w+"]")
		}
	}
	for _, s := range goTypeSuffixes {
		if !g.used["suffix:"+s.from] {
			unused = append(unused, "goTypeSuffixes "+s.from)
		}
	}
	for t := range goEnumPrefixes {
		if !g.used["enum:"+t] {
			unused = append(unused, "goEnumPrefixes["+t+"]")
		}
	}
	sort.Strings(unused)
	return unused
}

func (g *goEmitter) eventOf(t *Type) *Event {
	for _, e := range g.m.Events {
		if e.Type == t {
			return e
		}
	}
	return nil
}

// typesFile renders types_gen.go: constants, every $defs type and the event decoder.
func (g *goEmitter) typesFile() (*jen.File, error) {
	f := jen.NewFilePathName(goSDKImport, goSDKPackage)
	f.Comment(goComment("ProtocolVersion is the protocol version the generated types describe; SchemaHash is the\n" +
		"schema_hash of the bundle they were generated from (compare it with Session().SchemaHash)."))
	f.Const().Defs(
		jen.Id("ProtocolVersion").Op("=").Lit(g.m.ProtocolVersion),
		jen.Id("SchemaHash").Op("=").Lit(g.m.SchemaHash),
	)
	f.Line()
	f.Comment("JSON-RPC error codes of the protocol.")
	f.Const().DefsFunc(func(d *jen.Group) {
		for _, name := range g.m.SortedErrorCodes() {
			d.Id("Code" + g.ident(name)).Op("=").Lit(g.m.ErrorCodes[name])
		}
	})
	f.Line()
	f.Comment("Method names of the protocol.")
	f.Const().DefsFunc(func(d *jen.Group) {
		for _, me := range g.m.Methods {
			d.Id("method" + g.ident(me.Name)).Op("=").Lit(me.Name)
		}
	})
	types := append([]*Type(nil), g.m.Types...)
	sort.Slice(types, func(i, j int) bool { return g.names[types[i]] < g.names[types[j]] })
	for _, t := range types {
		f.Line()
		if t.IsEnum() {
			g.enum(f, t)
			continue
		}
		g.object(f, t)
	}
	g.events(f)
	return f, nil
}

// doc turns a description into a Go doc comment, renaming a leading $defs name to its Go name.
// It returns nil for an empty description.
func (g *goEmitter) doc(t *Type, text string) jen.Code {
	if text == "" {
		return jen.Null()
	}
	if t != nil && g.names[t] != t.Name {
		if rest, ok := strings.CutPrefix(text, t.Name); ok {
			text = g.names[t] + rest
		}
	}
	return jen.Comment(goComment(text))
}

// goComment formats text as // lines, wrapping lines longer than 100 characters at spaces.
func goComment(text string) string {
	var lines []string
	for _, line := range strings.Split(text, "\n") {
		for len(line) > 100 {
			cut := strings.LastIndex(line[:100], " ")
			if cut <= 0 {
				break
			}
			lines = append(lines, line[:cut])
			line = line[cut+1:]
		}
		lines = append(lines, line)
	}
	for i, l := range lines {
		lines[i] = strings.TrimRight("// "+l, " ")
	}
	return strings.Join(lines, "\n")
}

func (g *goEmitter) enum(f *jen.File, t *Type) {
	name := g.names[t]
	f.Add(g.doc(t, t.Description))
	f.Type().Id(name).String()
	f.Line()
	retry := map[string]bool{}
	docs := map[string]string{}
	if t == g.kind {
		for _, k := range g.m.ErrorKinds {
			retry[k.Kind] = k.Retry
			docs[k.Kind] = k.Description
		}
	}
	prefix := g.enumPrefix(t)
	f.Comment(fmt.Sprintf("The values of %s.", name))
	f.Const().DefsFunc(func(d *jen.Group) {
		for _, v := range t.Enum {
			if docs[v] != "" {
				d.Comment(goComment(docs[v]))
			}
			d.Id(prefix + g.ident(v)).Id(name).Op("=").Lit(v)
		}
	})
	if t != g.kind {
		return
	}
	f.Line()
	f.Comment(goComment("Retry reports whether the protocol lists k as a retry kind, one the model can fix by changing\n" +
		"the call. It is false for kinds this package does not know."))
	f.Func().Params(jen.Id("k").Id(name)).Id("Retry").Params().Bool().Block(
		jen.Return(jen.Id("retryKinds").Index(jen.Id("k"))),
	)
	f.Line()
	f.Comment("retryKinds holds the kinds x-fsbox.error_kinds marks retry: true.")
	f.Var().Id("retryKinds").Op("=").Map(jen.Id(name)).Bool().Values(jen.DictFunc(func(d jen.Dict) {
		for _, v := range t.Enum {
			if retry[v] {
				d[jen.Id(prefix+g.ident(v))] = jen.True()
			}
		}
	}))
}

func (g *goEmitter) object(f *jen.File, t *Type) {
	f.Add(g.doc(t, t.Description))
	f.Type().Id(g.names[t]).StructFunc(func(s *jen.Group) {
		for _, fd := range t.Fields {
			if fd.Const != "" {
				continue // the event's kind: written by MarshalJSON
			}
			desc := fd.Description
			if fd.Type.Kind == RefString && fd.Type.Enum != nil {
				desc = strings.TrimSpace(desc + "\nOne of " + quoteList(fd.Type.Enum) + ".")
			}
			if desc != "" {
				s.Comment(goComment(desc))
			}
			tag := fd.Name
			if !fd.Required {
				tag += ",omitzero"
			}
			s.Id(g.ident(fd.Name)).Add(g.fieldType(fd.Type, fd.Required)).Tag(map[string]string{"json": tag})
		}
	})
}

func quoteList(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, ", ")
}

// fieldType is the Go type of a field; see emitGo for the mapping.
func (g *goEmitter) fieldType(r *TypeRef, required bool) *jen.Statement {
	ptr := jen.Null()
	if !required {
		ptr = jen.Op("*")
	}
	switch r.Kind {
	case RefString:
		return jen.Add(ptr).String()
	case RefBytes:
		return jen.Index().Byte() // nil when absent; encoding/json speaks base64
	case RefInteger:
		return jen.Add(ptr).Int()
	case RefNumber:
		return jen.Add(ptr).Float64()
	case RefBoolean:
		return jen.Add(ptr).Bool()
	case RefNamed:
		return jen.Add(ptr).Id(g.names[r.Named])
	case RefArray:
		return jen.Index().Add(g.fieldType(r.Elem, true))
	case RefMap:
		if r.Elem.Kind == RefAny {
			return jen.Qual(jsonPkg, "RawMessage")
		}
		return jen.Map(jen.String()).Add(g.fieldType(r.Elem, true))
	default: // RefAny
		return jen.Qual(jsonPkg, "RawMessage")
	}
}

// events renders the Event interface, each event's methods and DecodeEvent.
func (g *goEmitter) events(f *jen.File) {
	var list []string
	for _, e := range g.m.Events {
		list = append(list, "*"+g.names[e.Type])
	}
	f.Line()
	f.Comment(goComment("Event is one event of the protocol: " + strings.Join(list, ", ") +
		", or *UnknownEvent for a kind this package does not know. Switch on the concrete type."))
	f.Type().Id("Event").Interface(
		jen.Comment("EventKind returns the event's kind, e.g. \""+g.m.Events[0].Kind+"\"."),
		jen.Id("EventKind").Params().String(),
		jen.Id("isEvent").Params(),
	)
	f.Line()
	f.Comment("UnknownEvent is an event whose kind this package does not know, from a newer server.")
	f.Type().Id("UnknownEvent").Struct(
		jen.Id("Kind").String(),
		jen.Comment("Raw is the event as received."),
		jen.Id("Raw").Qual(jsonPkg, "RawMessage"),
	)
	f.Line()
	f.Comment("EventKind returns e.Kind.")
	f.Func().Params(jen.Id("e").Op("*").Id("UnknownEvent")).Id("EventKind").Params().String().Block(jen.Return(jen.Id("e").Dot("Kind")))
	f.Line()
	f.Func().Params(jen.Op("*").Id("UnknownEvent")).Id("isEvent").Params().Block()
	f.Line()
	f.Comment("MarshalJSON returns the event as received.")
	f.Func().Params(jen.Id("e").Id("UnknownEvent")).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(
		jen.Return(jen.Id("e").Dot("Raw"), jen.Nil()),
	)
	for _, e := range g.m.Events {
		name := g.names[e.Type]
		f.Line()
		f.Commentf("EventKind returns %q.", e.Kind)
		f.Func().Params(jen.Op("*").Id(name)).Id("EventKind").Params().String().Block(jen.Return(jen.Lit(e.Kind)))
		f.Line()
		f.Func().Params(jen.Op("*").Id(name)).Id("isEvent").Params().Block()
		f.Line()
		f.Commentf("MarshalJSON writes the event with its kind, %q.", e.Kind)
		f.Func().Params(jen.Id("e").Id(name)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(
			jen.Type().Id("wire").Id(name),
			jen.Return(jen.Qual(jsonPkg, "Marshal").Call(jen.Struct(
				jen.Id("Kind").String().Tag(map[string]string{"json": "kind"}),
				jen.Id("wire"),
			).Values(jen.Lit(e.Kind), jen.Id("wire").Call(jen.Id("e"))))),
		)
	}
	f.Line()
	f.Comment(goComment("DecodeEvent decodes one event object by its kind. A kind this package does not know gives an\n" +
		"*UnknownEvent, not an error, so a newer server does not break an older client."))
	f.Func().Id("DecodeEvent").Params(jen.Id("data").Index().Byte()).Params(jen.Id("Event"), jen.Error()).Block(
		jen.Var().Id("head").Struct(jen.Id("Kind").String().Tag(map[string]string{"json": "kind"})),
		jen.If(jen.Err().Op(":=").Qual(jsonPkg, "Unmarshal").Call(jen.Id("data"), jen.Op("&").Id("head")), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Nil(), jen.Err()),
		),
		jen.Var().Id("e").Id("Event"),
		jen.Switch(jen.Id("head").Dot("Kind")).BlockFunc(func(s *jen.Group) {
			for _, e := range g.m.Events {
				s.Case(jen.Lit(e.Kind)).Block(jen.Id("e").Op("=").New(jen.Id(g.names[e.Type])))
			}
			s.Default().Block(jen.Return(
				jen.Op("&").Id("UnknownEvent").Values(jen.Dict{
					jen.Id("Kind"): jen.Id("head").Dot("Kind"),
					jen.Id("Raw"):  jen.Append(jen.Qual(jsonPkg, "RawMessage").Call(jen.Nil()), jen.Id("data").Op("...")),
				}),
				jen.Nil(),
			))
		}),
		jen.If(jen.Err().Op(":=").Qual(jsonPkg, "Unmarshal").Call(jen.Id("data"), jen.Id("e")), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Nil(), jen.Err()),
		),
		jen.Return(jen.Id("e"), jen.Nil()),
	)
}

// clientFile renders client_gen.go: one method of Client per tool.
func (g *goEmitter) clientFile() (*jen.File, error) {
	f := jen.NewFilePathName(goSDKImport, goSDKPackage)
	for i, tool := range g.m.Tools {
		if i > 0 {
			f.Line()
		}
		method := g.ident(tool.Name)
		params, result := g.names[tool.Args], g.names[tool.Result]
		f.Comment(goComment(method + " calls the " + tool.Name + " tool. " + tool.Description))
		f.Func().Params(jen.Id("c").Op("*").Id("Client")).Id(method).
			Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("p").Id(params)).
			Params(jen.Op("*").Id(result), jen.Error()).
			Block(
				jen.Id("r").Op(":=").New(jen.Id(result)),
				jen.If(
					jen.Err().Op(":=").Id("c").Dot("callTool").Call(jen.Id("ctx"), jen.Lit(tool.Name), jen.Id("p"), jen.Id("r")),
					jen.Err().Op("!=").Nil(),
				).Block(jen.Return(jen.Nil(), jen.Err())),
				jen.Return(jen.Id("r"), jen.Nil()),
			)
	}
	return f, nil
}

// dispatchFile renders the conformance adapter's table from tool name to typed stub.
func (g *goEmitter) dispatchFile() (*jen.File, error) {
	f := jen.NewFile("main")
	f.ImportName(goSDKImport, goSDKPackage)
	f.Comment("dispatch sends each tool of the schema through its typed method of fsboxclient.Client.")
	f.Var().Id("dispatch").Op("=").Map(jen.String()).Id("handler").Values(jen.DictFunc(func(d jen.Dict) {
		for _, tool := range g.m.Tools {
			d[jen.Lit(tool.Name)] = jen.Id("typed").Call(jen.Parens(jen.Op("*").Qual(goSDKImport, "Client")).Dot(g.ident(tool.Name)))
		}
	}))
	return f, nil
}
