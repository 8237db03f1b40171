package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/fsbox/fsbox/schema"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// contract is what the runner takes from the committed schema bundle: the result type of every
// tool, the type of every event kind and the retry flag of every error kind. Only the bundle's bytes
// are used, never the Go types behind them.
type contract struct {
	results map[string]*jsonschema.Schema // tool name → result schema
	events  map[string]*jsonschema.Schema // event kind → schema
	kinds   map[string]bool               // error kind → retry
	init    *jsonschema.Schema            // the initialize result
	err     error
}

var (
	contractOnce sync.Once
	theContract  contract
)

func loadContract() *contract {
	contractOnce.Do(func() { theContract = compileContract(schema.Bundle) })
	return &theContract
}

func compileContract(bundle []byte) contract {
	c := contract{results: map[string]*jsonschema.Schema{}, events: map[string]*jsonschema.Schema{}, kinds: map[string]bool{}}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(bundle))
	if err != nil {
		c.err = err
		return c
	}
	var meta struct {
		ID     string `json:"$id"`
		XFsbox struct {
			Tools []struct {
				Name, Result string
			} `json:"tools"`
			Events []struct {
				Kind, Type string
			} `json:"events"`
			ErrorKinds []struct {
				Kind  string `json:"kind"`
				Retry bool   `json:"retry"`
			} `json:"error_kinds"`
		} `json:"x-fsbox"`
	}
	if err := json.Unmarshal(bundle, &meta); err != nil {
		c.err = err
		return c
	}
	comp := jsonschema.NewCompiler()
	if err := comp.AddResource(meta.ID, doc); err != nil {
		c.err = err
		return c
	}
	ref := func(r string) (*jsonschema.Schema, error) { return comp.Compile(meta.ID + r) }
	for _, t := range meta.XFsbox.Tools {
		if c.results[t.Name], err = ref(t.Result); err != nil {
			c.err = fmt.Errorf("compiling %s: %w", t.Result, err)
			return c
		}
	}
	for _, e := range meta.XFsbox.Events {
		if c.events[e.Kind], err = ref(e.Type); err != nil {
			c.err = fmt.Errorf("compiling %s: %w", e.Type, err)
			return c
		}
	}
	if c.init, err = ref("#/$defs/InitializeResult"); err != nil {
		c.err = fmt.Errorf("compiling InitializeResult: %w", err)
		return c
	}
	for _, k := range meta.XFsbox.ErrorKinds {
		c.kinds[k.Kind] = k.Retry
	}
	return c
}

// validate checks v (decoded with json.Number) against s and returns a one-line reason.
func validate(s *jsonschema.Schema, v any) string {
	if s == nil {
		return ""
	}
	if err := s.Validate(toSchemaValue(v)); err != nil {
		msg := err.Error()
		if ve, ok := err.(*jsonschema.ValidationError); ok {
			var b strings.Builder
			for _, c := range leafCauses(ve) {
				fmt.Fprintf(&b, "%s: %s; ", "/"+strings.Join(c.InstanceLocation, "/"), c.Error())
			}
			msg = strings.TrimSuffix(b.String(), "; ")
		}
		return msg
	}
	return ""
}

func leafCauses(ve *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(ve.Causes) == 0 {
		return []*jsonschema.ValidationError{ve}
	}
	var out []*jsonschema.ValidationError
	for _, c := range ve.Causes {
		out = append(out, leafCauses(c)...)
	}
	return out
}

// toSchemaValue re-encodes a value the way the validator expects (json.Number for numbers).
func toSchemaValue(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	out, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return v
	}
	return out
}
