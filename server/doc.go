// Package server joins the transport-agnostic [engine] to the [rpc] layer: it owns the session
// state machine of the fsbox protocol (initialize first, once; tools/list; tools/call; schema;
// shutdown), merges configuration, maps engine errors onto JSON-RPC error codes, and carries events
// and change requests between the engine and the client.
//
// Session rules, in order:
//
//  1. Any request before initialize is answered -32002 with kind not_initialized.
//  2. initialize with an unknown protocol_version major is answered -32602 with data.supported.
//  3. A second initialize is answered -32600.
//  4. The config of initialize overrides, field by field, the config the server was started with
//     (--config file, then flags); a bad config is answered -32602 and the session stays
//     uninitialized, so the client may try again.
//  5. Events are sent only when the client asked for them (capabilities.events), each before the
//     response of the call that caused it.
//  6. Changes are announced through change_request only when the client offered it
//     (capabilities.change_requests); without it, an interrupt permission rule is a denial.
//  7. shutdown is answered null; the server then stops reading, answers what is in flight, and
//     Serve returns.
//
// Package server does not sandbox anything itself; containment and access policy are the engine's.
package server
