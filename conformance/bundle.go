package conformance

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/fsbox/fsbox/schema"
	"github.com/google/jsonschema-go/jsonschema"
)

// contract is what the runner takes from the committed schema bundle: the result type of every
// tool, the type of every event kind and the retry flag of every error kind. Only the bundle's bytes
// are used, never the Go types behind them.
//
// Validation uses github.com/google/jsonschema-go (draft 2020-12), which the MCP SDK links
// anyway. santhosh-tekuri/jsonschema, which the vector-schema test still uses, compiles every
// draft's meta-schemas in its package init (3 ms and 1.7 MB on every start of the binary, serve
// included), so the binary does not link it.
type contract struct {
	results map[string]*jsonschema.Resolved // tool name → result schema
	events  map[string]*jsonschema.Resolved // event kind → schema
	kinds   map[string]bool                 // error kind → retry
	init    *jsonschema.Resolved            // the initialize result
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
	c := contract{results: map[string]*jsonschema.Resolved{}, events: map[string]*jsonschema.Resolved{}, kinds: map[string]bool{}}
	var meta struct {
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
	var root jsonschema.Schema
	if err := json.Unmarshal(bundle, &root); err != nil {
		c.err = err
		return c
	}
	// Each type is the bundle's root with a $ref to the type's definition, so references between
	// definitions resolve inside the one document.
	ref := func(r string) (*jsonschema.Resolved, error) {
		s := &jsonschema.Schema{Schema: root.Schema, ID: root.ID, Defs: root.Defs, Ref: r}
		return s.Resolve(nil)
	}
	var err error
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

// validate checks v against s and returns a one-line reason.
func validate(s *jsonschema.Resolved, v any) string {
	if s == nil {
		return ""
	}
	if err := s.Validate(toSchemaValue(v)); err != nil {
		return strings.ReplaceAll(err.Error(), "\n", " ")
	}
	return ""
}

// toSchemaValue re-encodes a value the way the validator expects: plain JSON values, numbers as
// float64.
func toSchemaValue(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return v
	}
	return out
}
