package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// decodeArgs decodes a tool's arguments strictly into dst (a pointer to an Args struct):
//
//   - the arguments must be a JSON object (null counts as {});
//   - every key must be the exact json name of a field: an unknown or differently cased key is
//     invalid_arguments naming it (encoding/json alone would accept "PATH" for "path");
//   - fields without omitempty are required;
//   - a value of the wrong type is invalid_arguments naming the field and the expected type;
//   - nested objects (replacements) follow the same rules, named by their position.
func decodeArgs(op string, raw json.RawMessage, dst any) *Error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	if err := checkObject(op, "", raw, reflect.TypeOf(dst).Elem()); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(dst); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return errorf(op, "", kindInvalidArguments, "Argument '%s' must be %s.", te.Field, jsonTypeName(te.Type))
		}
		return &Error{Op: op, Kind: kindInvalidArguments, Msg: "The arguments are not valid JSON.", Err: err}
	}
	return nil
}

// checkObject checks the keys of the JSON object raw against struct type t. prefix names the
// object in messages ("replacements[0]." for a nested one).
func checkObject(op, prefix string, raw json.RawMessage, t reflect.Type) *Error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		name := "The arguments"
		if prefix != "" {
			name = "Argument '" + strings.TrimSuffix(prefix, ".") + "'"
		}
		return errorf(op, "", kindInvalidArguments, "%s must be an object.", name)
	}
	fields := jsonFields(t)
	for key := range obj {
		if _, ok := fields[key]; !ok {
			return errorf(op, "", kindInvalidArguments, "Unknown argument '%s%s'. Valid arguments: %s.", prefix, key, strings.Join(fieldNames(t), ", "))
		}
	}
	for name, f := range fields {
		v, present := obj[name]
		if !present {
			if f.required {
				return errorf(op, "", kindInvalidArguments, "Missing required argument '%s%s'.", prefix, name)
			}
			continue
		}
		ft := f.typ
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct {
			var items []json.RawMessage
			if err := json.Unmarshal(v, &items); err != nil {
				if bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
					continue
				}
				return errorf(op, "", kindInvalidArguments, "Argument '%s%s' must be an array.", prefix, name)
			}
			for i, it := range items {
				if err := checkObject(op, fmt.Sprintf("%s%s[%d].", prefix, name, i), it, ft.Elem()); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

type jsonField struct {
	typ      reflect.Type
	required bool
}

// jsonFields maps the json names of t's fields (embedded structs flattened) to their types.
func jsonFields(t reflect.Type) map[string]jsonField {
	out := map[string]jsonField{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			for k, v := range jsonFields(f.Type) {
				out[k] = v
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = jsonField{typ: f.Type, required: !strings.Contains(opts, "omitempty") && f.Type.Kind() != reflect.Pointer}
	}
	return out
}

// fieldNames returns t's json field names in declaration order.
func fieldNames(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

// jsonTypeName names a Go type the way the model knows JSON types.
func jsonTypeName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "an integer"
	case reflect.Float64, reflect.Float32:
		return "a number"
	case reflect.Slice:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "of type " + t.String()
}
