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
// Package schema imports nothing else of fsbox. At run time it decodes: [Decode] is the one strict
// decoder of everything a client sends, on every front end (exact member names, no unknown or
// repeated members, JSON types, required members), and it checks nothing beyond the shape; the
// engine owns validation of what the values mean.
package schema

// ProtocolVersion is the protocol major version this package describes.
const ProtocolVersion = "1"
