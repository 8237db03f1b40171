package jsonl

import "testing"

// TestCutMember: only a top-level member of a well-formed compact object is cut, with its value;
// nested members, look-alikes inside strings and malformed objects are left as they are.
func TestCutMember(t *testing.T) {
	for _, c := range []struct{ in, key, want, value string }{
		{`{"text":"a","n":1}`, "text", `{"n":1}`, `"a"`},
		{`{"n":1,"text":"a"}`, "text", `{"n":1}`, `"a"`},
		{`{"text":""}`, "text", `{}`, `""`},
		{`{"n":{"text":"x"},"m":"\"text\":1"}`, "text", `{"n":{"text":"x"},"m":"\"text\":1"}`, ``},
		{`{"text":""`, "text", `{"text":""`, ``},
		{`["text"]`, "text", `["text"]`, ``},
		{`{"a":[1,{"text":2}],"text":[3]}`, "text", `{"a":[1,{"text":2}]}`, `[3]`},
	} {
		out, value := CutMember([]byte(c.in), c.key)
		if string(out) != c.want || string(value) != c.value {
			t.Errorf("CutMember(%s, %q) = %s, %s; want %s, %s", c.in, c.key, out, value, c.want, c.value)
		}
	}
}
