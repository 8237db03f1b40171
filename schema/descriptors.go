package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

// Descriptors returns the descriptors of the named tools, in the order given, built from [Bundle] so
// that tools/list and the schema method can never disagree. With contentHashes false the
// expected_hash argument is removed from the input schemas (and hash from the output schemas).
func Descriptors(names []string, contentHashes bool) ([]ToolDescriptor, error) {
	m, err := manifest()
	if err != nil {
		return nil, err
	}
	return m.descriptors(names, contentHashes)
}

// EncodedDescriptors returns the descriptors of the named tools, in the order given, encoded as
// initialize and tools/list send them: the bytes [EncodeDescriptor] makes of [Descriptors].
//
// They come from descriptors_gen.go, which `fsbox gen` writes from the bundle at build time, so
// a server's first reply copies bytes instead of decoding the bundle, inlining every $ref and
// encoding the result (about 1 ms, 40% of the process's CPU before its first reply). What keeps
// them right: TestGeneratedDescriptors compares them with the builder for every tool and both
// variants, and `fsbox gen --check` fails on a stale file. Should a binary still be built from a
// bundle the file was not generated from (its recorded hash differs from [Hash]), they are built
// from the bundle at first use instead, as before: slower, never different.
func EncodedDescriptors(names []string, contentHashes bool) ([]json.RawMessage, error) {
	if Hash() != generatedDescriptorsHash {
		return builtDescriptors(names, contentHashes)
	}
	out := make([]json.RawMessage, 0, len(names))
	for _, n := range names {
		d, ok := generatedDescriptor(n, contentHashes)
		if !ok {
			return nil, fmt.Errorf("schema: no tool named %q in the bundle", n)
		}
		out = append(out, json.RawMessage(d))
	}
	return out, nil
}

// builtDescriptors is EncodedDescriptors without the generated file: built from [Bundle] once
// per variant, encoded, kept.
func builtDescriptors(names []string, contentHashes bool) ([]json.RawMessage, error) {
	i := 0
	if contentHashes {
		i = 1
	}
	table, err := builtTables[i]()
	if err != nil {
		return nil, err
	}
	out := make([]json.RawMessage, 0, len(names))
	for _, n := range names {
		d, ok := table[n]
		if !ok {
			return nil, fmt.Errorf("schema: no tool named %q in the bundle", n)
		}
		out = append(out, d)
	}
	return out, nil
}

var builtTables = [2]func() (map[string]json.RawMessage, error){
	sync.OnceValues(func() (map[string]json.RawMessage, error) { return builtTable(false) }),
	sync.OnceValues(func() (map[string]json.RawMessage, error) { return builtTable(true) }),
}

func builtTable(contentHashes bool) (map[string]json.RawMessage, error) {
	encoded, err := BuildEncodedDescriptors(Bundle, contentHashes)
	if err != nil {
		return nil, err
	}
	table := make(map[string]json.RawMessage, len(encoded))
	for _, e := range encoded {
		table[e.Name] = e.JSON
	}
	return table, nil
}

// EncodedDescriptor is one tool's descriptor as the wire carries it.
type EncodedDescriptor struct {
	Name string
	JSON json.RawMessage
}

// BuildEncodedDescriptors builds every tool's descriptor of bundle (a schema bundle's bytes, not
// necessarily the embedded one), in the order of its x-fsbox manifest, and encodes each with
// [EncodeDescriptor]. `fsbox gen` writes descriptors_gen.go from it.
func BuildEncodedDescriptors(bundle []byte, contentHashes bool) ([]EncodedDescriptor, error) {
	m, err := parseManifest(bundle)
	if err != nil {
		return nil, err
	}
	descs, err := m.descriptors(m.order, contentHashes)
	if err != nil {
		return nil, err
	}
	out := make([]EncodedDescriptor, 0, len(descs))
	for _, d := range descs {
		b, err := EncodeDescriptor(d)
		if err != nil {
			return nil, err
		}
		out = append(out, EncodedDescriptor{Name: d.Name, JSON: b})
	}
	return out, nil
}

// EncodeDescriptor encodes d as initialize and tools/list carry it: encoding/json's encoding of
// the type (map keys sorted), without HTML escaping, without a trailing newline.
func EncodeDescriptor(d ToolDescriptor) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(d); err != nil {
		return nil, fmt.Errorf("schema: encoding the descriptor of %s: %w", d.Name, err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

func (m *bundleManifest) descriptors(names []string, contentHashes bool) ([]ToolDescriptor, error) {
	out := make([]ToolDescriptor, 0, len(names))
	for _, name := range names {
		entry, ok := m.tools[name]
		if !ok {
			return nil, fmt.Errorf("schema: no tool named %q in the bundle", name)
		}
		in, err := m.inline(entry.Arguments)
		if err != nil {
			return nil, err
		}
		outSchema, err := m.inline(entry.Result)
		if err != nil {
			return nil, err
		}
		if !contentHashes {
			dropProperty(in, "expected_hash")
			dropProperty(outSchema, "hash")
		}
		out = append(out, ToolDescriptor{Name: name, Description: entry.Description, InputSchema: in, OutputSchema: outSchema})
	}
	return out, nil
}

type bundleManifest struct {
	defs  map[string]json.RawMessage
	tools map[string]toolRef
	order []string // the tools' names in the manifest's order
}

// toolRef is a tool's entry in the bundle's x-fsbox manifest.
type toolRef struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Arguments   string `json:"arguments"`
	Result      string `json:"result"`
}

var manifest = sync.OnceValues(func() (*bundleManifest, error) { return parseManifest(Bundle) })

func parseManifest(bundle []byte) (*bundleManifest, error) {
	var doc struct {
		Defs  map[string]json.RawMessage `json:"$defs"`
		Fsbox struct {
			Tools []toolRef `json:"tools"`
		} `json:"x-fsbox"`
	}
	if err := json.Unmarshal(bundle, &doc); err != nil {
		return nil, fmt.Errorf("schema: decoding the bundle: %w", err)
	}
	m := &bundleManifest{defs: doc.Defs, tools: map[string]toolRef{}}
	for _, t := range doc.Fsbox.Tools {
		m.tools[t.Name] = t
		m.order = append(m.order, t.Name)
	}
	return m, nil
}

// inline returns a fresh copy of the definition ref points at, with every nested $ref replaced by
// the definition it names. The bundle has no recursive types, so this terminates.
func (m *bundleManifest) inline(ref string) (map[string]any, error) {
	name, ok := strings.CutPrefix(ref, "#/$defs/")
	raw, found := m.defs[name]
	if !ok || !found {
		return nil, fmt.Errorf("schema: dangling reference %q", ref)
	}
	var v map[string]any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	return v, m.resolve(v)
}

// resolve replaces, in place, every $ref below v (in an object's members and an array's
// elements) by the definition it names; v itself is not replaced.
func (m *bundleManifest) resolve(v any) error {
	switch x := v.(type) {
	case map[string]any:
		for k, child := range x {
			r, err := m.resolved(child)
			if err != nil {
				return err
			}
			x[k] = r
		}
	case []any:
		for i, child := range x {
			r, err := m.resolved(child)
			if err != nil {
				return err
			}
			x[i] = r
		}
	}
	return nil
}

// resolved returns what stands in child's place once its references are inlined: for a
// {"$ref": …} object the definition it names, its siblings of the $ref (a description) winning;
// for anything else child itself, resolved in place.
func (m *bundleManifest) resolved(child any) (any, error) {
	if obj, ok := child.(map[string]any); ok {
		if ref, ok := obj["$ref"].(string); ok {
			def, err := m.inline(ref)
			if err != nil {
				return nil, err
			}
			for sk, sv := range obj {
				if sk != "$ref" {
					def[sk] = sv
				}
			}
			return def, nil
		}
	}
	return child, m.resolve(child)
}

func dropProperty(s map[string]any, name string) {
	if props, ok := s["properties"].(map[string]any); ok {
		delete(props, name)
	}
	if req, ok := s["required"].([]any); ok {
		kept := req[:0]
		for _, r := range req {
			if r != name {
				kept = append(kept, r)
			}
		}
		s["required"] = kept
	}
}
