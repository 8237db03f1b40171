package schema

import (
	"reflect"
	"testing"
)

// Every tool's result type has a text field that ResultText reads and SetResultText replaces;
// values without one are refused.
func TestResultText(t *testing.T) {
	for _, tool := range Tools {
		res := reflect.New(tool.Result).Interface()
		if _, ok := ResultText(res); !ok {
			t.Errorf("%s: result %T has no text field", tool.Name, res)
		}
	}
	res := &ReadFileResult{Text: "before", Path: "a"}
	if got, ok := ResultText(res); !ok || got != "before" {
		t.Fatalf("ResultText = %q, %v", got, ok)
	}
	if !SetResultText(res, "after") || res.Text != "after" || res.Path != "a" {
		t.Fatalf("SetResultText left %+v", res)
	}
	if got, ok := ResultText(*res); !ok || got != "after" {
		t.Errorf("ResultText of a struct value = %q, %v", got, ok)
	}
	if SetResultText(*res, "x") {
		t.Errorf("SetResultText of a struct value reported success")
	}
	for _, v := range []any{nil, (*ReadFileResult)(nil), 3, struct{ Text int }{1}, &struct{ Other string }{}} {
		if _, ok := ResultText(v); ok {
			t.Errorf("ResultText(%#v) reported a text", v)
		}
	}
}
