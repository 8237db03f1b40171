package conformance

import (
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

// matcher holds what matching needs besides the two values: captured variables and the fixture
// (for {{root}} placeholders and content specs).
type matcher struct {
	vars map[string]any
	fx   *Fixture
}

// match compares got against want and returns one line per mismatch (empty: it matches).
//
// Objects match as subsets: every key of want must match, extra keys in got are fine. Arrays match
// element by element and must have the same length. An object whose keys are all matcher names
// (see matcherKeys) is a matcher; several matcher keys in one object must all hold. Other keys
// starting with "$" ("$schema", "$defs") are plain keys.
func (m *matcher) match(want, got any, at string) []string {
	switch w := want.(type) {
	case map[string]any:
		if isMatcher(w) {
			return m.matchOps(w, got, at)
		}
		g, ok := got.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: got %s, want an object", at, show(got))}
		}
		var bad []string
		for _, k := range sortedKeys(w) {
			sub := w[k]
			gv, present := g[k]
			if isAbsent(sub) {
				if present {
					bad = append(bad, fmt.Sprintf("%s.%s: present (%s), want absent", at, k, show(gv)))
				}
				continue
			}
			if !present {
				bad = append(bad, fmt.Sprintf("%s.%s: missing", at, k))
				continue
			}
			bad = append(bad, m.match(sub, gv, at+"."+k)...)
		}
		return bad
	case []any:
		g, ok := got.([]any)
		if !ok {
			return []string{fmt.Sprintf("%s: got %s, want an array", at, show(got))}
		}
		if len(g) != len(w) {
			return []string{fmt.Sprintf("%s: got %d elements %s, want %d", at, len(g), show(got), len(w))}
		}
		var bad []string
		for i := range w {
			bad = append(bad, m.match(w[i], g[i], fmt.Sprintf("%s[%d]", at, i))...)
		}
		return bad
	case string:
		w = m.fx.Expand(w)
		if g, ok := got.(string); !ok || g != w {
			return []string{fmt.Sprintf("%s: got %s, want %q", at, show(got), w)}
		}
		return nil
	case json.Number:
		if !numEqual(w, got) {
			return []string{fmt.Sprintf("%s: got %s, want %s", at, show(got), w)}
		}
		return nil
	default:
		if !reflect.DeepEqual(normalize(want), normalize(got)) {
			return []string{fmt.Sprintf("%s: got %s, want %s", at, show(got), show(want))}
		}
		return nil
	}
}

// matcherKeys is the closed set of matchers.
var matcherKeys = map[string]bool{
	"$regex": true, "$contains": true, "$not_contains": true, "$starts_with": true, "$ends_with": true,
	"$absent": true, "$any": true, "$capture": true, "$ref": true, "$hash_of": true, "$len": true,
	"$max_len": true, "$unordered": true, "$exact": true, "$in": true, "$diff_applies": true,
	"$content": true, "$not": true, "$has": true, "$lacks": true, "$no_host_path": true,
}

func isMatcher(w map[string]any) bool {
	if len(w) == 0 {
		return false
	}
	for k := range w {
		if !matcherKeys[k] {
			return false
		}
	}
	return true
}

func isAbsent(v any) bool {
	w, ok := v.(map[string]any)
	if !ok {
		return false
	}
	b, ok := w["$absent"].(bool)
	return ok && b && len(w) == 1
}

// matchOps applies the matchers of w (an object of matcher keys only, see isMatcher) to got, in
// key order; each family of matchers is one function below.
func (m *matcher) matchOps(w map[string]any, got any, at string) []string {
	var bad []string
	for _, k := range sortedKeys(w) {
		arg := w[k]
		var f fails
		switch k {
		case "$regex", "$contains", "$not_contains", "$starts_with", "$ends_with":
			f = m.matchText(k, arg, got)
		case "$capture", "$ref":
			f = m.matchCaptured(k, arg, got)
		case "$hash_of", "$content", "$diff_applies":
			f = matchContent(k, arg, got)
		case "$len", "$max_len":
			f = matchLength(k, arg, got)
		case "$in", "$not", "$has", "$lacks":
			f = m.matchAlternatives(k, arg, got, at)
		case "$unordered":
			bad = append(bad, m.unordered(arg.([]any), got, at)...)
		case "$exact":
			if !reflect.DeepEqual(normalize(m.fx.ExpandAll(arg)), normalize(got)) {
				f.add("got %s, want exactly %s", show(got), show(arg))
			}
		case "$absent":
			f.add("got %s, want absent", show(got))
		case "$any":
		case "$no_host_path":
			if leaks := m.fx.leaks(got, nil); len(leaks) > 0 {
				f.add("reveals a host path: %s", leaks[0])
			}
		default:
			f.add("unknown matcher %s in vector", k)
		}
		for _, msg := range f {
			bad = append(bad, at+": "+msg)
		}
	}
	return bad
}

// fails collects one matcher's mismatches, without the location matchOps puts before each.
type fails []string

func (f *fails) add(format string, args ...any) { *f = append(*f, fmt.Sprintf(format, args...)) }

// matchText applies the string matchers: $regex, $contains, $not_contains, $starts_with,
// $ends_with. A value that is not a string fails every one of them.
func (m *matcher) matchText(k string, arg, got any) fails {
	var f fails
	str, isStr := got.(string)
	switch k {
	case "$regex":
		re, err := regexp.Compile(asString(arg))
		if err != nil {
			f.add("bad $regex in vector: %v", err)
		} else if !isStr || !re.MatchString(str) {
			f.add("got %s, want a match for /%s/", show(got), asString(arg))
		}
	case "$contains", "$not_contains":
		for _, s := range asStrings(arg) {
			s = m.fx.Expand(s)
			has := isStr && strings.Contains(str, s)
			if k == "$contains" && !has {
				f.add("got %s, want it to contain %q", show(got), s)
			}
			if k == "$not_contains" && (has || !isStr) {
				f.add("got %s, want it not to contain %q", show(got), s)
			}
		}
	case "$starts_with":
		if s := m.fx.Expand(asString(arg)); !isStr || !strings.HasPrefix(str, s) {
			f.add("got %s, want it to start with %q", show(got), s)
		}
	case "$ends_with":
		if s := m.fx.Expand(asString(arg)); !isStr || !strings.HasSuffix(str, s) {
			f.add("got %s, want it to end with %q", show(got), s)
		}
	}
	return f
}

// matchCaptured applies $capture (remember got under a name; a second capture under the same
// name must see the same value) and $ref (got must equal what was captured).
func (m *matcher) matchCaptured(k string, arg, got any) fails {
	var f fails
	name := asString(arg)
	prev, ok := m.vars[name]
	switch k {
	case "$capture":
		if ok && !reflect.DeepEqual(normalize(prev), normalize(got)) {
			f.add("got %s, want the value captured earlier as %s (%s)", show(got), name, show(prev))
		}
		m.vars[name] = got
	case "$ref":
		if !ok {
			f.add("$ref %s: nothing captured under that name", name)
		} else if !reflect.DeepEqual(normalize(prev), normalize(got)) {
			f.add("got %s, want the value captured as %s (%s)", show(got), name, show(prev))
		}
	}
	return f
}

// matchContent applies the matchers that compare got with a file content spec: $hash_of (its
// hash), $content (its text) and $diff_applies (got is a unified diff taking before to after,
// by our applier and, where git is installed, by git apply).
func matchContent(k string, arg, got any) fails {
	var f fails
	str, isStr := got.(string)
	switch k {
	case "$hash_of", "$content":
		c, err := contentOf(arg)
		if err != nil {
			f.add("bad %s in vector: %v", k, err)
			break
		}
		b, _ := c.Bytes()
		if k == "$hash_of" {
			if h := hash12(b); !isStr || str != h {
				f.add("got %s, want hash %s", show(got), h)
			}
		} else if !isStr || str != string(b) {
			f.add("got %s, want %s", show(got), quoteShort(b))
		}
	case "$diff_applies":
		spec, _ := arg.(map[string]any)
		bc, err1 := contentOf(spec["before"])
		ac, err2 := contentOf(spec["after"])
		if err1 != nil || err2 != nil || !isStr {
			f.add("got %s; $diff_applies needs a string and before/after contents", show(got))
			break
		}
		before, _ := bc.Bytes()
		after, _ := ac.Bytes()
		res, err := applyUnifiedDiff(string(before), str)
		if err != nil {
			f.add("diff does not apply: %v\n%s", err, str)
		} else if res != string(after) {
			f.add("diff applied to the old content gives %s, want %s", quoteShort([]byte(res)), quoteShort(after))
		} else if res, ran, err := gitApply(string(before), str); ran && err != nil {
			f.add("%v\n%s", err, str)
		} else if ran && res != string(after) {
			f.add("git apply of the diff gives %s, want %s", quoteShort([]byte(res)), quoteShort(after))
		}
	}
	return f
}

// matchLength applies $len and $max_len: the length of a string (in characters), an array or an
// object; anything else has none.
func matchLength(k string, arg, got any) fails {
	var f fails
	n, _ := arg.(json.Number).Int64()
	l := -1
	switch g := got.(type) {
	case string:
		l = utf8.RuneCountInString(g)
	case []any:
		l = len(g)
	case map[string]any:
		l = len(g)
	}
	if k == "$len" && l != int(n) {
		f.add("got length %d (%s), want %d", l, show(got), n)
	}
	if k == "$max_len" && (l < 0 || l > int(n)) {
		f.add("got length %d, want at most %d", l, n)
	}
	return f
}

// matchAlternatives applies the matchers that try a pattern without committing to it: $in (one
// of several), $not, and $has and $lacks (some element, or none, of an array). Captures made by
// a failed try are dropped (see try).
func (m *matcher) matchAlternatives(k string, arg, got any, at string) fails {
	var f fails
	switch k {
	case "$in":
		ok := false
		for _, alt := range arg.([]any) {
			if len(m.try(alt, got, at)) == 0 {
				ok = true
				break
			}
		}
		if !ok {
			f.add("got %s, want one of %s", show(got), show(arg))
		}
	case "$not":
		if len(m.try(arg, got, at)) == 0 {
			f.add("got %s, which matches %s; want it not to", show(got), show(arg))
		}
	case "$has", "$lacks":
		g, ok := got.([]any)
		if !ok {
			f.add("got %s, want an array", show(got))
			break
		}
		found := false
		for _, e := range g {
			if len(m.try(arg, e, at)) == 0 {
				found = true
				break
			}
		}
		if k == "$has" && !found {
			f.add("got %s, want an element matching %s", show(got), show(arg))
		}
		if k == "$lacks" && found {
			f.add("got %s, want no element matching %s", show(got), show(arg))
		}
	}
	return f
}

// try matches without keeping captures made by a failed alternative.
func (m *matcher) try(want, got any, at string) []string {
	saved := make(map[string]any, len(m.vars))
	for k, v := range m.vars {
		saved[k] = v
	}
	bad := m.match(want, got, at)
	if len(bad) > 0 {
		m.vars = saved
	}
	return bad
}

// unordered matches arrays as multisets: each wanted element is paired with a distinct got element.
func (m *matcher) unordered(want []any, got any, at string) []string {
	g, ok := got.([]any)
	if !ok {
		return []string{fmt.Sprintf("%s: got %s, want an array", at, show(got))}
	}
	if len(g) != len(want) {
		return []string{fmt.Sprintf("%s: got %d elements %s, want %d", at, len(g), show(got), len(want))}
	}
	used := make([]bool, len(g))
	var bad []string
	for i, w := range want {
		found := false
		for j := range g {
			if !used[j] && len(m.try(w, g[j], at)) == 0 {
				used[j], found = true, true
				break
			}
		}
		if !found {
			bad = append(bad, fmt.Sprintf("%s: no element matches wanted element %d %s (got %s)", at, i, show(w), show(got)))
		}
	}
	return bad
}

// contentOf decodes a Content from a matcher argument (a plain string is text).
func contentOf(v any) (*Content, error) {
	if s, ok := v.(string); ok {
		return &Content{Text: &s}, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var c Content
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, err
	}
	if !c.HasContent() {
		c.Text = ptr("")
	}
	return &c, nil
}

func numEqual(w json.Number, got any) bool {
	var gs string
	switch g := got.(type) {
	case json.Number:
		gs = string(g)
	case float64:
		gs = fmt.Sprint(g)
	case int:
		gs = fmt.Sprint(g)
	default:
		return false
	}
	if gs == string(w) {
		return true
	}
	a, ok1 := new(big.Float).SetPrec(200).SetString(string(w))
	b, ok2 := new(big.Float).SetPrec(200).SetString(gs)
	return ok1 && ok2 && a.Cmp(b) == 0
}

// normalize makes json.Number values comparable by value.
func normalize(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, ok := new(big.Float).SetPrec(200).SetString(string(x))
		if !ok {
			return string(x)
		}
		return f.Text('g', 60)
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = normalize(x[i])
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalize(e)
		}
		return out
	}
	return v
}

func asString(v any) string { s, _ := v.(string); return s }

func asStrings(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			out = append(out, asString(e))
		}
		return out
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// show renders a value for a failure message, bounded.
func show(v any) string {
	if v == nil {
		return "null"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 300 {
		return string(b[:300]) + fmt.Sprintf("…(%d bytes)", len(b))
	}
	return string(b)
}
