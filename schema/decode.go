package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// Decode decodes the JSON value data into v, a pointer, as strictly as the bundle describes the
// closed types (additionalProperties: false): it is the one decoder of everything a client sends
// an fsbox server (initialize and its config, the tools/call envelope, tool arguments, the answer
// to a change_request), on every front end. On top of what encoding/json checks it refuses, with
// a *DecodeError naming the member by its path ("config.post_edit[0].cmd"):
//
//   - a member name that is not exactly the json name of a field: encoding/json alone matches
//     names case-insensitively ("NAME" for "name", even "ſ" for "s") and drops unknown ones, so a
//     typo in a policy ("denid") would be silently ignored, and the policy would fail open;
//   - a member given twice (parsers disagree on which one wins);
//   - a value of the wrong JSON type, a fraction or an out-of-range number for an integer;
//   - a missing member the bundle requires (a field without omitempty).
//
// null stands for an absent member where the member is optional (clients and models commonly
// send null for "not given"); for a required member it is the wrong type. A map accepts any
// member names, and a field of type any, json.RawMessage or a json.Unmarshaler any value; a
// [RawObject] any object. Decode does not check enums or ranges: the layer that gives a value its
// meaning does, and names the field itself.
//
// Only when the check passes is data handed to encoding/json, which then cannot meet a name it
// would fold or drop.
func Decode(data []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("schema.Decode: need a non-nil pointer, got %T", v)
	}
	var stack [8]seg
	d := decoder{data: data, path: stack[:0]}
	i := skipSpace(data, 0)
	if i >= len(data) {
		return &DecodeError{Problem: ProblemSyntax}
	}
	if _, err := d.value(i, infoOf(rv.Type().Elem()), false); err != nil {
		if err == errSyntax {
			return &DecodeError{Problem: ProblemSyntax}
		}
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		// The check passed, so only the syntax can be wrong (a stray byte the scan skipped).
		return &DecodeError{Problem: ProblemSyntax}
	}
	return nil
}

// RawObject is a JSON object kept as its bytes, for a member decoded later against a type that
// depends on another member (tools/call's arguments, decoded against the named tool's). Decode
// checks that it is an object (or null, for absent) and nothing more.
type RawObject []byte

// UnmarshalJSON keeps a copy of data.
func (r *RawObject) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*r = nil
		return nil
	}
	*r = append((*r)[:0], data...)
	return nil
}

// MarshalJSON returns the object, or null when empty.
func (r RawObject) MarshalJSON() ([]byte, error) {
	if len(r) == 0 {
		return []byte("null"), nil
	}
	return r, nil
}

// What a [DecodeError] is about.
const (
	ProblemUnknown   = "unknown"   // a member the object does not have
	ProblemDuplicate = "duplicate" // a member given twice
	ProblemMissing   = "missing"   // a required member is absent
	ProblemType      = "type"      // a value of the wrong type
	ProblemSyntax    = "syntax"    // not one JSON value
)

// DecodeError says which member of a decoded value does not fit its type, in JSON terms only:
// no Go type name ever reaches a user through it.
type DecodeError struct {
	// Problem is one of the Problem constants.
	Problem string
	// Path is the member: "config.denied_patterns", "post_edit[0].cmd"; "" for the whole value.
	Path string
	// Expected describes the type wanted ("an array of strings"), for ProblemType.
	Expected string
	// Got describes what came instead ("a string"), for ProblemType.
	Got string
	// Suggestion is a member of the same object close to an unknown one ("denied_patterns" for
	// "denid"), or "".
	Suggestion string
	// Members lists the members the object has, for ProblemUnknown.
	Members []string
}

// Name returns the last component of Path: the member's own name, or "" for the whole value.
func (e *DecodeError) Name() string {
	i := strings.LastIndexAny(e.Path, ".")
	return e.Path[i+1:]
}

// Parent returns Path without its last member name ("config" for "config.denid").
func (e *DecodeError) Parent() string {
	i := strings.LastIndexByte(e.Path, '.')
	if i < 0 {
		return ""
	}
	return e.Path[:i]
}

// Error describes the problem with the member named by its path in backquotes, for a host or a
// client developer: "unknown member `config.denid`; did you mean `denied_patterns`?".
func (e *DecodeError) Error() string {
	switch e.Problem {
	case ProblemUnknown:
		msg := fmt.Sprintf("unknown member `%s`", e.Path)
		if e.Suggestion != "" {
			return msg + fmt.Sprintf("; did you mean `%s`?", e.Suggestion)
		}
		if len(e.Members) == 0 {
			return msg + "; the object takes no members"
		}
		return msg + "; the members are " + strings.Join(e.Members, ", ")
	case ProblemDuplicate:
		return fmt.Sprintf("member `%s` is given twice", e.Path)
	case ProblemMissing:
		return fmt.Sprintf("missing member `%s`", e.Path)
	case ProblemType:
		if e.Path == "" {
			return fmt.Sprintf("expected %s, got %s", e.Expected, e.Got)
		}
		return fmt.Sprintf("`%s`: expected %s, got %s", e.Path, e.Expected, e.Got)
	}
	return "not valid JSON"
}

// errSyntax ends a scan at bytes that are not JSON; Decode reports it as ProblemSyntax.
var errSyntax = &DecodeError{Problem: ProblemSyntax}

// typeKind is what a Go type accepts, in JSON terms.
type typeKind int

const (
	kAny typeKind = iota // anything: any, json.RawMessage, a json.Unmarshaler
	kRawObject
	kString
	kBool
	kInt
	kUint
	kFloat
	kSlice
	kMap
	kStruct
)

// typeInfo is the cached shape of a Go type.
type typeInfo struct {
	kind   typeKind
	bits   int       // kInt, kUint: the size in bits
	elem   *typeInfo // kSlice, kMap: the element
	fields []fieldInfo
	names  []string // kStruct: the members, in declaration order
}

type fieldInfo struct {
	name     string
	required bool
	info     *typeInfo
}

var (
	infoMu    sync.Mutex
	infoCache sync.Map // reflect.Type → *typeInfo
)

func infoOf(t reflect.Type) *typeInfo {
	if ti, ok := infoCache.Load(t); ok {
		return ti.(*typeInfo)
	}
	infoMu.Lock()
	defer infoMu.Unlock()
	building := map[reflect.Type]*typeInfo{}
	ti := build(t, building)
	for bt, bi := range building {
		infoCache.LoadOrStore(bt, bi)
	}
	return ti
}

var (
	rawObjectType   = reflect.TypeFor[RawObject]()
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
)

func build(t reflect.Type, building map[reflect.Type]*typeInfo) *typeInfo {
	if ti, ok := infoCache.Load(t); ok {
		return ti.(*typeInfo)
	}
	if ti, ok := building[t]; ok {
		return ti // a recursive type: filled in by the caller up the stack
	}
	ti := &typeInfo{}
	building[t] = ti
	if t.Kind() == reflect.Pointer {
		*ti = *build(t.Elem(), building)
		return ti
	}
	switch {
	case t == rawObjectType:
		ti.kind = kRawObject
		return ti
	case t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType):
		ti.kind = kAny
		return ti
	}
	switch t.Kind() {
	case reflect.String:
		ti.kind = kString
	case reflect.Bool:
		ti.kind = kBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		ti.kind, ti.bits = kInt, t.Bits()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		ti.kind, ti.bits = kUint, t.Bits()
	case reflect.Float32, reflect.Float64:
		ti.kind, ti.bits = kFloat, t.Bits()
	case reflect.Slice, reflect.Array:
		ti.kind, ti.elem = kSlice, build(t.Elem(), building)
	case reflect.Map:
		ti.kind, ti.elem = kMap, build(t.Elem(), building)
	case reflect.Struct:
		ti.kind = kStruct
		addFields(ti, t, building)
	default: // interface, and anything encoding/json would refuse anyway
		ti.kind = kAny
	}
	return ti
}

// addFields adds the json members of struct t (embedded structs flattened) to ti.
func addFields(ti *typeInfo, t reflect.Type, building map[reflect.Type]*typeInfo) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				addFields(ti, ft, building)
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		omit := false
		for _, o := range strings.Split(opts, ",") {
			omit = omit || o == "omitempty" || o == "omitzero"
		}
		ti.fields = append(ti.fields, fieldInfo{name: name, required: !omit, info: build(f.Type, building)})
		ti.names = append(ti.names, name)
	}
}

// describe names what ti accepts, for a message.
func (ti *typeInfo) describe() string {
	switch ti.kind {
	case kString:
		return "a string"
	case kBool:
		return "a boolean"
	case kInt:
		return "an integer"
	case kUint:
		return "a non-negative integer"
	case kFloat:
		return "a number"
	case kSlice:
		switch ti.elem.kind {
		case kString:
			return "an array of strings"
		case kBool:
			return "an array of booleans"
		case kInt, kUint:
			return "an array of integers"
		case kFloat:
			return "an array of numbers"
		case kStruct, kMap, kRawObject:
			return "an array of objects"
		}
		return "an array"
	case kStruct, kMap, kRawObject:
		return "an object"
	}
	return "a JSON value"
}

// seg is one step of the path to the value being checked: a member name, or the index of an
// element ("" name). The path is rendered only for an error.
type seg struct {
	name  string
	index int
}

func render(path []seg) string {
	var b strings.Builder
	for _, p := range path {
		if p.name == "" {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(p.index))
			b.WriteByte(']')
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(p.name)
	}
	return b.String()
}

type decoder struct {
	data []byte
	path []seg // the members and elements entered, outermost first
}

// at returns the path of the value being checked, with name appended when it is not "".
func (d *decoder) at(name string) string {
	if name == "" {
		return render(d.path)
	}
	return render(append(d.path[:len(d.path):len(d.path)], seg{name: name}))
}

// gotName describes the JSON value starting at data[i].
func gotName(data []byte, i int) string {
	switch data[i] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func (d *decoder) typeError(i int, ti *typeInfo) error {
	got := gotName(d.data, i)
	if got == "a number" && (ti.kind == kInt || ti.kind == kUint) {
		lit := d.data[i:skipValue(d.data, i)]
		switch {
		case bytes.ContainsAny(lit, ".eE"):
			got = "a fractional number"
		case lit[0] == '-' && ti.kind == kUint:
			got = "a negative number"
		default:
			got = "a number out of range"
		}
	}
	return &DecodeError{Problem: ProblemType, Path: d.at(""), Expected: ti.describe(), Got: got}
}

// value checks the value at data[i] against ti and returns the index just past it. optional
// says whether the value is an optional member, for which null means absent.
func (d *decoder) value(i int, ti *typeInfo, optional bool) (int, error) {
	data := d.data
	if i >= len(data) {
		return i, errSyntax
	}
	c := data[i]
	if c == 'n' {
		if ti.kind == kAny || optional {
			return d.literal(i, "null")
		}
		return i, d.typeError(i, ti)
	}
	switch ti.kind {
	case kAny:
		return d.skip(i)
	case kString:
		if c != '"' {
			return i, d.typeError(i, ti)
		}
		end := skipString(data, i)
		if end > len(data) {
			return i, errSyntax
		}
		return end, nil
	case kBool:
		switch c {
		case 't':
			return d.literal(i, "true")
		case 'f':
			return d.literal(i, "false")
		}
		return i, d.typeError(i, ti)
	case kInt, kUint, kFloat:
		if c != '-' && (c < '0' || c > '9') {
			return i, d.typeError(i, ti)
		}
		end := skipValue(data, i)
		lit := string(data[i:end])
		var err error
		switch ti.kind {
		case kInt:
			_, err = strconv.ParseInt(lit, 10, ti.bits)
		case kUint:
			_, err = strconv.ParseUint(lit, 10, ti.bits)
		case kFloat:
			_, err = strconv.ParseFloat(lit, ti.bits)
		}
		if err != nil {
			if ti.kind == kFloat {
				return i, &DecodeError{Problem: ProblemType, Path: d.at(""), Expected: ti.describe(), Got: "a number out of range"}
			}
			return i, d.typeError(i, ti)
		}
		return end, nil
	case kSlice:
		if c != '[' {
			return i, d.typeError(i, ti)
		}
		return d.array(i, ti)
	case kRawObject:
		if c != '{' {
			return i, d.typeError(i, ti)
		}
		return d.skip(i)
	case kMap:
		if c != '{' {
			return i, d.typeError(i, ti)
		}
		return d.object(i, ti)
	case kStruct:
		if c != '{' {
			return i, d.typeError(i, ti)
		}
		return d.object(i, ti)
	}
	return d.skip(i)
}

func (d *decoder) literal(i int, lit string) (int, error) {
	if !bytes.HasPrefix(d.data[i:], []byte(lit)) {
		return i, errSyntax
	}
	return i + len(lit), nil
}

// skip returns the index past the value at data[i], which it does not check further (encoding/json
// validates it afterwards).
func (d *decoder) skip(i int) (int, error) {
	end := skipValue(d.data, i)
	if end <= i || end > len(d.data) {
		return i, errSyntax
	}
	return end, nil
}

func (d *decoder) array(i int, ti *typeInfo) (int, error) {
	data := d.data
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		return i + 1, nil
	}
	d.path = append(d.path, seg{})
	defer func() { d.path = d.path[:len(d.path)-1] }()
	for n := 0; ; n++ {
		d.path[len(d.path)-1].index = n
		var err error
		if i, err = d.value(i, ti.elem, false); err != nil {
			return i, err
		}
		i = skipSpace(data, i)
		if i >= len(data) {
			return i, errSyntax
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case ']':
			return i + 1, nil
		default:
			return i, errSyntax
		}
	}
}

// object checks a JSON object against a struct (exact names, no duplicates, required members
// present) or a map (any names, no duplicates).
func (d *decoder) object(i int, ti *typeInfo) (int, error) {
	data := d.data
	var seenBits uint64
	var seenMore []bool // structs of more than 64 members
	var seenKeys map[string]bool
	if ti.kind == kStruct && len(ti.fields) > 64 {
		seenMore = make([]bool, len(ti.fields))
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		i++
	} else {
		for {
			if i >= len(data) || data[i] != '"' {
				return i, errSyntax
			}
			end := skipString(data, i)
			if end > len(data) {
				return i, errSyntax
			}
			key := data[i+1 : end-1]
			var name string
			escaped := bytes.IndexByte(key, '\\') >= 0
			if escaped {
				var ok bool
				if name, ok = unquote(data[i:end]); !ok {
					return i, errSyntax
				}
			}
			i = skipSpace(data, end)
			if i >= len(data) || data[i] != ':' {
				return i, errSyntax
			}
			i = skipSpace(data, i+1)
			var err error
			if ti.kind == kMap {
				if !escaped {
					name = string(key)
				}
				if seenKeys == nil {
					seenKeys = map[string]bool{}
				}
				if seenKeys[name] {
					return i, &DecodeError{Problem: ProblemDuplicate, Path: d.at(name)}
				}
				seenKeys[name] = true
				d.path = append(d.path, seg{name: name})
				i, err = d.value(i, ti.elem, false)
				d.path = d.path[:len(d.path)-1]
				if err != nil {
					return i, err
				}
			} else {
				idx := -1
				for k := range ti.fields {
					if escaped && ti.fields[k].name == name || !escaped && ti.fields[k].name == string(key) {
						idx = k
						break
					}
				}
				if idx < 0 {
					if !escaped {
						name = string(key)
					}
					return i, &DecodeError{Problem: ProblemUnknown, Path: d.at(name),
						Suggestion: Suggest(name, ti.names), Members: ti.names}
				}
				f := &ti.fields[idx]
				seen := false
				if seenMore != nil {
					seen, seenMore[idx] = seenMore[idx], true
				} else {
					seen = seenBits&(1<<idx) != 0
					seenBits |= 1 << idx
				}
				if seen {
					return i, &DecodeError{Problem: ProblemDuplicate, Path: d.at(f.name)}
				}
				d.path = append(d.path, seg{name: f.name})
				i, err = d.value(i, f.info, !f.required)
				d.path = d.path[:len(d.path)-1]
				if err != nil {
					return i, err
				}
			}
			i = skipSpace(data, i)
			if i >= len(data) {
				return i, errSyntax
			}
			if data[i] == '}' {
				i++
				break
			}
			if data[i] != ',' {
				return i, errSyntax
			}
			i = skipSpace(data, i+1)
		}
	}
	if ti.kind == kStruct {
		for k := range ti.fields {
			f := &ti.fields[k]
			if !f.required {
				continue
			}
			seen := false
			if seenMore != nil {
				seen = seenMore[k]
			} else {
				seen = seenBits&(1<<k) != 0
			}
			if !seen {
				return i, &DecodeError{Problem: ProblemMissing, Path: d.at(f.name)}
			}
		}
	}
	return i, nil
}

// unquote decodes the JSON string quoted (a member name with escapes).
func unquote(quoted []byte) (string, bool) {
	var s string
	if json.Unmarshal(quoted, &s) != nil {
		return "", false
	}
	return s, true
}

// skipSpace returns the index of the first byte at or after i that is not JSON whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at b[i] == '"', or len(b)+1 when
// it does not end.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b) + 1
}

// skipValue returns the index just past the JSON value starting at b[i]; for bytes that are not
// JSON it returns an index the caller's next check refuses (encoding/json refuses them anyway).
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(b) + 1
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
		i++
	}
	return i
}

// Suggest returns the name among names closest to typed, when one is close enough to be the
// member meant, or "": the same name in another case or spelling convention ("Name", "rootDir"
// for "root_dir"), a typo of it (an edit or two, by length), or a typo of one of its leading
// words ("denid" for "denied_patterns").
func Suggest(typed string, names []string) string {
	norm := func(s string) string {
		return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(s))
	}
	nt := norm(typed)
	for _, n := range names {
		if norm(n) == nt {
			return n
		}
	}
	best, bestDist := "", 1<<30
	for _, n := range names {
		limit := 1
		switch {
		case len(n) > 8:
			limit = 3
		case len(n) > 4:
			limit = 2
		}
		cands := []string{n}
		for j := 0; j < len(n); j++ {
			if n[j] == '_' {
				cands = append(cands, n[:j])
			}
		}
		for _, c := range cands {
			l := limit
			if c != n {
				l = 1
				if len(c) > 5 {
					l = 2
				}
			}
			if dist := editDistance(strings.ToLower(typed), c); dist <= l && dist < bestDist {
				best, bestDist = n, dist
			}
		}
	}
	return best
}

// editDistance is the optimal string alignment distance of a and b (insertions, deletions,
// substitutions and transpositions of adjacent bytes).
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 1 << 30
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
