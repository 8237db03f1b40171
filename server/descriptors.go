package server

import (
	"encoding/json"

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
