package schema

import (
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
}

// toolRef is a tool's entry in the bundle's x-fsbox manifest.
type toolRef struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Arguments   string `json:"arguments"`
	Result      string `json:"result"`
}

var manifest = sync.OnceValues(func() (*bundleManifest, error) {
	var doc struct {
		Defs  map[string]json.RawMessage `json:"$defs"`
		Fsbox struct {
			Tools []toolRef `json:"tools"`
		} `json:"x-fsbox"`
	}
	if err := json.Unmarshal(Bundle, &doc); err != nil {
		return nil, fmt.Errorf("schema: decoding the bundle: %w", err)
	}
	m := &bundleManifest{defs: doc.Defs, tools: map[string]toolRef{}}
	for _, t := range doc.Fsbox.Tools {
		m.tools[t.Name] = t
	}
	return m, nil
})

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
