package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
)

// Matrix is several runs side by side: one row per target, one column per category.
type Matrix struct {
	Profile string     `json:"profile"`
	Rows    []*Summary `json:"-"`
}

// MatrixCell counts one target's results in one category.
type MatrixCell struct {
	Pass int `json:"pass"`
	Fail int `json:"fail"`
	Skip int `json:"skip"`
}

func (s *Summary) cells() map[string]*MatrixCell {
	out := map[string]*MatrixCell{}
	for _, r := range s.Results {
		c := out[r.Category]
		if c == nil {
			c = &MatrixCell{}
			out[r.Category] = c
		}
		switch r.Status {
		case "pass":
			c.Pass++
		case "fail", "xpass", "xfail":
			c.Fail++
		case "skip":
			c.Skip++
		}
	}
	return out
}

func (m *Matrix) categories() []string {
	set := map[string]bool{}
	for _, s := range m.Rows {
		for _, r := range s.Results {
			set[r.Category] = true
		}
	}
	return sortedKeys(set)
}

// anchor is a Markdown heading anchor for a target's failures in a category.
func anchor(target, category string) string {
	re := regexp.MustCompile(`[^a-z0-9]+`)
	return strings.Trim(re.ReplaceAllString(strings.ToLower("fail "+target+" "+category), "-"), "-")
}

// WriteMarkdown writes the table (cells "passed / failed / skipped", a failed count linking to
// the list of those failures) and, below it, each target's failures by category with their class.
// Known failures (baseline) count as failed here: the matrix grades, it does not excuse.
func (m *Matrix) WriteMarkdown(w io.Writer) {
	cats := m.categories()
	fmt.Fprintf(w, "Profile: %s. Each cell: passed / failed / skipped.\n\n", m.Profile)
	fmt.Fprintf(w, "| target | %s | total |\n|---|%s---|\n", strings.Join(cats, " | "), strings.Repeat("---|", len(cats)))
	for _, s := range m.Rows {
		cells := s.cells()
		var row []string
		var tot MatrixCell
		for _, c := range cats {
			x := cells[c]
			if x == nil {
				row = append(row, "–")
				continue
			}
			tot.Pass, tot.Fail, tot.Skip = tot.Pass+x.Pass, tot.Fail+x.Fail, tot.Skip+x.Skip
			fail := fmt.Sprint(x.Fail)
			if x.Fail > 0 {
				fail = fmt.Sprintf("[**%d**](#%s)", x.Fail, anchor(s.Target, c))
			}
			row = append(row, fmt.Sprintf("%d / %s / %d", x.Pass, fail, x.Skip))
		}
		fmt.Fprintf(w, "| `%s` | %s | %d / %d / %d |\n", s.Target, strings.Join(row, " | "), tot.Pass, tot.Fail, tot.Skip)
	}
	for _, s := range m.Rows {
		byCat := map[string][]Result{}
		for _, r := range s.Results {
			if r.Status == "fail" || r.Status == "xpass" || r.Status == "xfail" {
				byCat[r.Category] = append(byCat[r.Category], r)
			}
		}
		if len(byCat) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n<details><summary>Failures of <code>%s</code></summary>\n", s.Target)
		for _, c := range sortedKeys(byCat) {
			fmt.Fprintf(w, "\n<a id=\"%s\"></a>\n**%s** (%d)\n\n", anchor(s.Target, c), c, len(byCat[c]))
			for _, r := range byCat[c] {
				fmt.Fprintf(w, "- `%s` %s\n", r.ID, classesOf(r))
			}
		}
		fmt.Fprintf(w, "\n</details>\n")
	}
}

// classesOf lists a result's failure classes, most severe first.
func classesOf(r Result) string {
	order := Severity
	set := map[string]bool{}
	for _, f := range r.Details {
		set[f.Class] = true
	}
	var out []string
	for _, c := range order {
		if set[c] {
			out = append(out, c)
		}
	}
	if r.Status == "xpass" {
		out = append(out, "xpass")
	}
	return strings.Join(out, ", ")
}

// WriteJSON writes the matrix as one JSON document: per target, per category counts, and every
// failure with its classes.
func (m *Matrix) WriteJSON(w io.Writer) error {
	type failure struct {
		ID       string    `json:"id"`
		Category string    `json:"category"`
		Failures []Failure `json:"failures"`
	}
	type row struct {
		Target   string                 `json:"target"`
		Cells    map[string]*MatrixCell `json:"categories"`
		Failures []failure              `json:"failures"`
	}
	doc := struct {
		Profile    string   `json:"profile"`
		Categories []string `json:"categories"`
		Targets    []row    `json:"targets"`
	}{Profile: m.Profile, Categories: m.categories()}
	for _, s := range m.Rows {
		r := row{Target: s.Target, Cells: s.cells(), Failures: []failure{}}
		for _, x := range s.Results {
			if x.Status == "fail" || x.Status == "xfail" || x.Status == "xpass" {
				r.Failures = append(r.Failures, failure{x.ID, x.Category, x.Details})
			}
		}
		sort.Slice(r.Failures, func(i, j int) bool { return r.Failures[i].ID < r.Failures[j].ID })
		doc.Targets = append(doc.Targets, r)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// SpliceMarkdown replaces the text between the markers "<!-- matrix:NAME:begin -->" and
// "<!-- matrix:NAME:end -->" in doc with table.
func SpliceMarkdown(doc []byte, name string, table []byte) ([]byte, error) {
	begin := []byte("<!-- matrix:" + name + ":begin -->\n")
	end := []byte("<!-- matrix:" + name + ":end -->")
	i := bytes.Index(doc, begin)
	j := bytes.Index(doc, end)
	if i < 0 || j < i {
		return nil, fmt.Errorf("no %q … %q markers", strings.TrimSpace(string(begin)), end)
	}
	var out bytes.Buffer
	out.Write(doc[:i+len(begin)])
	out.Write(table)
	out.Write(doc[j:])
	return out.Bytes(), nil
}
