package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// A template file (templates/<family>.json) crosses cases with vector skeletons: every case ×
// every template whose variables the case defines becomes vectors/<family>/<template>-<case>.json.
// In the skeleton, "@NAME@" inside a string is replaced by the case's variable NAME; a string that
// is exactly "@NAME@" is replaced by the variable's value whatever its type, so a case can supply a
// whole expectation. The expectations are the template author's, written by hand: nothing is
// recorded from an implementation.
type templateFile struct {
	Family      string         `json:"family"`
	Description string         `json:"description"`
	Defaults    map[string]any `json:"defaults,omitempty"`
	Cases       []struct {
		Name string         `json:"name"`
		Note string         `json:"note"`
		Vars map[string]any `json:"vars"`
		// Skip names templates this case does not apply to.
		Skip []string `json:"skip,omitempty"`
	} `json:"cases"`
	Templates []struct {
		Name   string         `json:"name"`
		Needs  []string       `json:"needs"`
		Vector map[string]any `json:"vector"`
	} `json:"templates"`
}

// GenerateVectors expands every templates/*.json of fsys into vector files, keyed by their path
// below vectors/.
func GenerateVectors(fsys fs.FS) (map[string][]byte, error) {
	names, err := fs.Glob(fsys, "templates/*.json")
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		var tf templateFile
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		dec.DisallowUnknownFields()
		if err := dec.Decode(&tf); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		for _, c := range tf.Cases {
			vars := map[string]any{"CASE": c.Name, "NOTE": c.Note}
			for k, v := range tf.Defaults {
				vars[k] = v
			}
			for k, v := range c.Vars {
				vars[k] = v
			}
		templates:
			for _, t := range tf.Templates {
				for _, s := range c.Skip {
					if s == t.Name {
						continue templates
					}
				}
				for _, n := range t.Needs {
					if _, ok := vars[n]; !ok {
						continue templates
					}
				}
				v := substVars(t.Vector, vars).(map[string]any)
				v["generated"] = name
				if _, ok := v["description"]; !ok {
					v["description"] = strings.TrimSpace(tf.Description + " Case " + c.Name + ": " + c.Note)
				}
				b, err := marshalVector(v)
				if err != nil {
					return nil, err
				}
				if m := findPlaceholder(string(b)); m != "" {
					return nil, fmt.Errorf("%s: %s-%s: placeholder %s has no value", name, t.Name, c.Name, m)
				}
				id := path.Join(tf.Family, t.Name+"-"+c.Name+".json")
				if _, dup := out[id]; dup {
					return nil, fmt.Errorf("%s: %s generated twice", name, id)
				}
				out[id] = b
			}
		}
	}
	return out, nil
}

// findPlaceholder returns the first @NAME@ left in s.
func findPlaceholder(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] != '@' {
			continue
		}
		j := i + 1
		for j < len(s) && (s[j] == '_' || s[j] >= 'A' && s[j] <= 'Z') {
			j++
		}
		if j > i+1 && j < len(s) && s[j] == '@' {
			return s[i : j+1]
		}
	}
	return ""
}

func substVars(v any, vars map[string]any) any {
	switch x := v.(type) {
	case string:
		if len(x) > 2 && x[0] == '@' && x[len(x)-1] == '@' {
			if val, ok := vars[x[1:len(x)-1]]; ok {
				return val
			}
		}
		keys := make([]string, 0, len(vars))
		for k := range vars {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return len(keys[i]) > len(keys[j]) })
		for _, k := range keys {
			if s, ok := vars[k].(string); ok {
				x = strings.ReplaceAll(x, "@"+k+"@", s)
			}
		}
		return x
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = substVars(x[i], vars)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = substVars(e, vars)
		}
		return out
	}
	return v
}

// marshalVector renders a generated vector deterministically: two-space indent, keys sorted,
// no HTML escaping, trailing newline.
func marshalVector(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
