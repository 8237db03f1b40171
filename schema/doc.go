// Package schema holds the Go types of the fsbox wire protocol, version 1: every method's params and
// result, every tool's arguments and result, every event, the server configuration and the error
// kinds. They are the single source of the JSON Schema bundle committed as fsbox.schema.json.
//
// The direction is fixed:
//
//  1. the Go types in this package are written by hand;
//  2. fsbox.schema.json is generated from them (with their doc comments as descriptions) by
//     `go test ./schema -run TestBundle -update`, committed, embedded and served by the `schema` method;
//  3. the SDKs are generated from fsbox.schema.json alone, never from these types.
//
// Package schema imports nothing else of fsbox. It does not validate anything at run time beyond
// decoding; the engine owns validation.
package schema

// ProtocolVersion is the protocol major version this package describes.
const ProtocolVersion = "1"
