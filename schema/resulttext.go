package schema

import (
	"reflect"
	"sync"
)

// ResultText returns the text of a tool result (one of the *Result types, or a pointer to it):
// its string field tagged json:"text", the part the model reads. ok is false for a value without
// one. It reads the field without encoding the result, for a front end that needs the text alone.
func ResultText(res any) (text string, ok bool) {
	f, ok := textField(res)
	if !ok {
		return "", false
	}
	return f.String(), true
}

// SetResultText replaces the text of a tool result held by pointer; it reports false when res
// has no settable text field.
func SetResultText(res any, text string) bool {
	f, ok := textField(res)
	if !ok || !f.CanSet() {
		return false
	}
	f.SetString(text)
	return true
}

// textFields caches, per struct type, the index of its text field (-1: none).
var textFields sync.Map // reflect.Type → int

func textField(res any) (reflect.Value, bool) {
	v := reflect.ValueOf(res)
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return reflect.Value{}, false
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return reflect.Value{}, false
	}
	idx := -1
	if i, ok := textFields.Load(v.Type()); ok {
		idx = i.(int)
	} else {
		t := v.Type()
		for i := range t.NumField() {
			if f := t.Field(i); f.Type.Kind() == reflect.String && f.Tag.Get("json") == "text" {
				idx = i
				break
			}
		}
		textFields.Store(t, idx)
	}
	if idx < 0 {
		return reflect.Value{}, false
	}
	return v.Field(idx), true
}
