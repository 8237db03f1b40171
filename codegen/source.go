package codegen

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
)

// What the Python and TypeScript emitters share: both write their files as text, line by line
// (the Go emitter builds syntax with jen instead), check the model, then render three files.

// textFile is one file a text emitter renders from the model.
type textFile struct {
	path   string
	render func(*Model) []byte
}

// emitText refuses a model check rejects, else renders files in order.
func emitText(m *Model, check func(*Model) error, files ...textFile) ([]File, error) {
	if err := check(m); err != nil {
		return nil, err
	}
	out := make([]File, len(files))
	for i, f := range files {
		out[i] = File{Path: f.path, Data: f.render(m)}
	}
	return out, nil
}

// srcWriter accumulates one generated source file, indented by unit per level. It starts with
// the generated-code header (see Header) in the language's comment syntax.
type srcWriter struct {
	b    bytes.Buffer
	unit string
}

func newSrcWriter(m *Model, unit, commentPrefix string) srcWriter {
	w := srcWriter{unit: unit}
	w.b.WriteString(Header(commentPrefix, m))
	return w
}

// put writes s at indent as a line of its own; an empty s is an empty line, without indentation.
func (w *srcWriter) put(indent int, s string) {
	if s != "" {
		w.b.WriteString(strings.Repeat(w.unit, indent))
		w.b.WriteString(s)
	}
	w.b.WriteByte('\n')
}

// block writes a bracketed table: open at indent, each row on a line of its own one level
// deeper, then close at indent.
func (w *srcWriter) block(indent int, open string, rows []string, close string) {
	w.put(indent, open)
	for _, r := range rows {
		w.put(indent+1, r)
	}
	w.put(indent, close)
}

// rows renders one row per element of xs.
func rows[T any](xs []T, row func(T) string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = row(x)
	}
	return out
}

// listItems are the rows of a list of names: each followed by a comma.
func listItems(names []string) []string {
	return rows(names, func(n string) string { return n + "," })
}

// errorCodeRows are the rows of the table of JSON-RPC error codes, "name: code,", sorted by name
// and spelled by key as the language writes a key.
func errorCodeRows(m *Model, key func(string) string) []string {
	return rows(m.SortedErrorCodes(), func(name string) string { return fmt.Sprintf("%s: %d,", key(name), m.ErrorCodes[name]) })
}

// quoteAll returns values as string literals of a language.
func quoteAll(values []string, quote func(string) string) []string {
	return rows(values, quote)
}

func sortedKeys(set map[string]bool) []string {
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
