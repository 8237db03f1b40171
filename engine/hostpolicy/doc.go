// Package hostpolicy owns how the layers of a session's configuration combine: [Merge] lays one
// configuration over another (the built-in defaults, the host's --config file, its flags, and a
// client's initialize when the host left the policy open), and [Narrow] lets a client of a host
// that fixed the policy only narrow it, refusing with an [*Error] that names the first field
// that would widen it. [RefuseHostOnly] refuses, from any client, the fields only the host may
// set (hooks, which run commands, and mounts, which reach outside the root).
//
// It protects against a client — a relayed initialize, an SDK, anything that speaks the wire —
// widening what the host allowed: raising a limit, enabling a tool, clearing the denied or
// protected patterns, turning on git directories or dot entries, starting a process or mounting
// a directory. It does not enforce what it returns: engine.New does, opening the session root
// through the host's root and keeping the host's patterns and rules in force as a layer of
// their own (engine.Options.Host), which is why Narrow's result is "the session's layer" and
// not a merged policy. Nor does it stop a client from choosing a policy too narrow to be useful.
//
// Why here, and not in a front end or in schema: both front ends need it — fsbox serve (package
// server) narrows a client's initialize, fsbox mcp and fsbox call (cmd/fsbox) merge the file and
// the flags — so it belongs to neither. It is not schema's either: schema is the wire contract
// (the Config type, its tables, the JSON Schema bundle) and imports nothing of ours so that every
// package may read it; the rules here are decisions about that contract whose meaning depends on
// how engine.New layers the host's configuration under a session's, so they live beside the
// engine. It imports schema only (layout_test.go rule 12), so a front end can apply it before it
// opens anything, and nothing here reaches into an Engine.
package hostpolicy
