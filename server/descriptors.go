package server

import (
	"bytes"
	"encoding/json"

	"github.com/fsbox/fsbox/rpc"
	"github.com/fsbox/fsbox/schema"
)

// encodedDescriptors returns the descriptors of names, in that order, encoded: the bytes
// schema.EncodedDescriptors generated at build time, so initialize and tools/list copy them
// (they do not depend on anything a client sends).
func encodedDescriptors(names []string, hashes bool) ([]json.RawMessage, error) {
	return schema.EncodedDescriptors(names, hashes)
}

// initializeResult is schema.InitializeResult with its tools already encoded; it encodes to the
// same JSON (TestEncodedResultsMatchSchema).
type initializeResult struct {
	ProtocolVersion string                `json:"protocol_version"`
	ServerInfo      schema.Implementation `json:"server_info"`
	RootDir         string                `json:"root_dir"`
	Cwd             string                `json:"cwd"`
	Tools           []json.RawMessage     `json:"tools"`
	SchemaHash      string                `json:"schema_hash"`
	ResultShape     string                `json:"result_shape" jsonschema:"enum=both,enum=text,enum=typed"`
	Sandbox         schema.Sandbox        `json:"sandbox,omitempty"`
}

// toolsListResult is schema.ToolsListResult with its tools already encoded.
type toolsListResult struct {
	Tools []json.RawMessage `json:"tools"`
}

// The two results above are sent as rpc.Encoded: encoding/json would validate and compact every
// byte of the descriptors again on each reply (about 9 ns a byte, 0.2 ms for an initialize with
// nine tools, on the path of a session's first reply). encode writes what encoding/json writes
// for the same value without HTML escaping, member by member, copying the descriptors as they
// are (TestEncodedResultsMatchSchema pins the two byte for byte). It protects against nothing a
// client sends; it only moves where the bytes are made.

func (r initializeResult) encode() (rpc.Encoded, error) {
	w := jsonWriter{b: make([]byte, 0, 512+toolsLen(r.Tools))}
	w.raw(`{"protocol_version":`)
	w.value(r.ProtocolVersion)
	w.raw(`,"server_info":`)
	w.value(r.ServerInfo)
	w.raw(`,"root_dir":`)
	w.value(r.RootDir)
	w.raw(`,"cwd":`)
	w.value(r.Cwd)
	w.raw(`,"tools":`)
	w.tools(r.Tools)
	w.raw(`,"schema_hash":`)
	w.value(r.SchemaHash)
	w.raw(`,"result_shape":`)
	w.value(r.ResultShape)
	w.raw(`,"sandbox":`)
	w.value(r.Sandbox)
	w.raw(`}`)
	return w.b, w.err
}

func (r toolsListResult) encode() rpc.Encoded {
	w := jsonWriter{b: make([]byte, 0, 16+toolsLen(r.Tools))}
	w.raw(`{"tools":`)
	w.tools(r.Tools)
	w.raw(`}`)
	return w.b
}

func toolsLen(tools []json.RawMessage) int {
	n := 0
	for _, t := range tools {
		n += len(t) + 1
	}
	return n
}

// jsonWriter appends JSON as encoding/json's Encoder with SetEscapeHTML(false) writes it; the
// first error sticks.
type jsonWriter struct {
	b   []byte
	err error
}

func (w *jsonWriter) raw(s string) { w.b = append(w.b, s...) }

func (w *jsonWriter) value(v any) {
	if w.err != nil {
		return
	}
	buf := bytes.NewBuffer(w.b)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if w.err = enc.Encode(v); w.err == nil {
		w.b = buf.Bytes()
		w.b = w.b[:len(w.b)-1] // Encode's newline
	}
}

// tools writes a list of descriptors already encoded compactly (schema.EncodedDescriptors) as
// they are; encoding/json writes a nil list and an empty element as null.
func (w *jsonWriter) tools(tools []json.RawMessage) {
	if tools == nil {
		w.raw("null")
		return
	}
	w.b = append(w.b, '[')
	for i, t := range tools {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		if len(t) == 0 {
			w.raw("null")
			continue
		}
		w.b = append(w.b, t...)
	}
	w.b = append(w.b, ']')
}
