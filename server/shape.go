package server

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/fsbox/fsbox/rpc"
	"github.com/fsbox/fsbox/schema"
)

// Result shapes (capabilities.result_shape). A client that forwards only the text of a result to
// the model asks for "text" and the typed fields are never encoded, so neither side pays for
// them; "typed" drops the text member. The default, "both", is the result as the engine built it,
// which is what the bundle's output schemas describe. Only tools/call results are shaped: errors,
// events, change requests and the other methods' results are the same in every shape.

// resultShape checks the shape a client asked for and returns the one in force ("" is "both").
// An unknown shape is refused with -32602 invalid_arguments naming the field, before anything of
// the session exists, so the client may correct it and initialize again.
func resultShape(caps *schema.ClientCapabilities) (string, error) {
	if caps == nil {
		return schema.ResultShapeBoth, nil
	}
	switch caps.ResultShape {
	case "", schema.ResultShapeBoth:
		return schema.ResultShapeBoth, nil
	case schema.ResultShapeText, schema.ResultShapeTyped:
		return caps.ResultShape, nil
	}
	// Like a bad config: not retryable by a model, the host must fix its client.
	return "", &rpc.Error{Code: schema.CodeInvalidParams, Data: schema.ErrorData{Kind: schema.KindInvalidArguments},
		Message: fmt.Sprintf("capabilities.result_shape: unknown result shape %q; use %q, %q or %q",
			caps.ResultShape, schema.ResultShapeBoth, schema.ResultShapeText, schema.ResultShapeTyped)}
}

// shaped returns what goes on the wire for res, a tool's *schema.XxxResult, in shape. It fails
// only for a result without a text field, which is a bug in the engine.
func shaped(res any, shape string) (any, error) {
	switch shape {
	case schema.ResultShapeText:
		text, ok := schema.ResultText(res)
		if !ok {
			return nil, fmt.Errorf("result shape text: %T has no text field", res)
		}
		return textResult{Text: text}, nil
	case schema.ResultShapeTyped:
		return typedResult{res}, nil
	}
	return res, nil
}

// textResult is the whole result in the "text" shape: one string member, so encoding it costs
// one string escape and nothing of the typed fields.
type textResult struct {
	Text string `json:"text"`
}

// typedResult encodes a result without its top-level "text" member. It encodes the whole result
// and cuts the member out of the bytes (simpler than a second set of result types, and "typed"
// does not promise to save the encoding of the text, only to keep it off the wire).
type typedResult struct{ v any }

func (t typedResult) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(t.v); err != nil {
		return nil, err
	}
	return rpc.CutMember(bytes.TrimRight(buf.Bytes(), "\n"), "text"), nil
}
