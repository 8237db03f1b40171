// Package engine implements the fsbox file tools inside one root directory, independent of any
// transport: [New] validates a [schema.Config] and opens the root, [Engine.Call] runs one tool
// call and returns its *schema.XxxResult or an [*Error].
//
// The full security model, encoding story and change-request flow are documented below as they
// are built; see access.go for the order of the access rules and resolve.go for path resolution.
package engine
