// Package conformance is fsbox's shared conformance suite: language-agnostic vectors (JSON data
// under vectors/, validated by vector.schema.json) and the one runner that grades any
// implementation of the protocol with them: the engine in-process, any server on stdio, or an SDK
// through its adapter. The runner owns fixtures, matching and reporting; targets only execute.
//
// The package never imports the engine or the server it grades: the in-process target is a
// [DialFunc] supplied from outside.
package conformance

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"

	"github.com/fsbox/fsbox/schema"
)

//go:embed vector.schema.json vectors baselines tags.json mcp
var embedded embed.FS

// VectorSchema returns the committed JSON Schema of a vector file.
func VectorSchema() []byte {
	b, _ := embedded.ReadFile("vector.schema.json")
	return b
}

// Embedded returns the suite's vectors.
func Embedded() ([]*Vector, error) { return LoadVectors(embedded, "vectors") }

func schemaHash() string {
	sum := sha256.Sum256(schema.Bundle)
	return "sha256:" + hex.EncodeToString(sum[:])
}
