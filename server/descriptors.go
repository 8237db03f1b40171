package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/fsbox/fsbox/schema"
)

// The tool descriptors every initialize and tools/list return are the same few KB of JSON for a
// given set of tools: building them means decoding the bundle's definitions into maps, inlining
// every $ref and encoding the maps with their keys sorted, about 1 ms, on the path of the
// client's first request. They are built and encoded once per process instead, for every tool,
// per content-hash variant; a session takes the ones of its tools. They do not depend on
// anything a client sends.

// descriptorTables holds, for content hashes on ([1]) and off ([0]), every tool's encoded
// descriptor by name; each is built on first use.
var descriptorTables = [2]func() (map[string]json.RawMessage, error){
	sync.OnceValues(func() (map[string]json.RawMessage, error) { return buildDescriptors(false) }),
	sync.OnceValues(func() (map[string]json.RawMessage, error) { return buildDescriptors(true) }),
}

func buildDescriptors(hashes bool) (map[string]json.RawMessage, error) {
	names := make([]string, 0, len(schema.Tools))
	for _, t := range schema.Tools {
		names = append(names, t.Name)
	}
	descs, err := schema.Descriptors(names, hashes)
	if err != nil {
		return nil, err
	}
	table := make(map[string]json.RawMessage, len(names))
	for _, d := range descs {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(d); err != nil {
			return nil, fmt.Errorf("encoding the descriptor of %s: %w", d.Name, err)
		}
		table[d.Name] = bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})
	}
	return table, nil
}

// Prewarm builds the descriptors of the default configuration (content hashes on) now, so that
// the first initialize finds them ready, or waits for them, never building them twice. fsbox
// serve calls it on a goroutine of its own as early as package initialization allows, so the
// work overlaps the rest of the process's start. A failure is left for initialize to report.
func Prewarm() { descriptorTables[1]() }

// encodedDescriptors returns the descriptors of names, in that order, as schema.Descriptors
// would give them, encoded.
func encodedDescriptors(names []string, hashes bool) ([]json.RawMessage, error) {
	i := 0
	if hashes {
		i = 1
	}
	table, err := descriptorTables[i]()
	if err != nil {
		return nil, err
	}
	out := make([]json.RawMessage, 0, len(names))
	for _, n := range names {
		d, ok := table[n]
		if !ok {
			return nil, fmt.Errorf("schema: no tool named %q in the bundle", n)
		}
		out = append(out, d)
	}
	return out, nil
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
