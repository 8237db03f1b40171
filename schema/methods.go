package schema

// InitializeParams opens a session. It must be the first request.
type InitializeParams struct {
	// Protocol major version the client speaks: "1".
	ProtocolVersion string `json:"protocol_version"`
	// Who the client is, for logs.
	ClientInfo *Implementation `json:"client_info,omitempty"`
	// Configuration overriding the server's --config file and flags.
	Config *Config `json:"config,omitempty"`
	// Server-to-client traffic the client accepts.
	Capabilities *ClientCapabilities `json:"capabilities,omitempty"`
}

// Implementation names a client or server.
type Implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// ClientCapabilities says which server-to-client messages the client wants.
type ClientCapabilities struct {
	// Send an event notification for every completed file operation.
	Events bool `json:"events,omitempty"`
	// Ask the client through a change_request before any change touches disk.
	ChangeRequests bool `json:"change_requests,omitempty"`
	// What a tools/call result carries: "both" (the default: the typed fields and text), "text"
	// (exactly {"text": …}, for a client that forwards only text to the model and need not pay
	// to encode and parse every typed field) or "typed" (the result without its text member).
	// Any other value is refused at initialize. Errors, events and change requests are the same
	// in every shape. The bundle's tool result schemas (output_schema) describe the "both" shape.
	ResultShape string `json:"result_shape,omitempty" jsonschema:"enum=both,enum=text,enum=typed"`
}

// Result shapes (ClientCapabilities.ResultShape).
const (
	ResultShapeBoth  = "both"
	ResultShapeText  = "text"
	ResultShapeTyped = "typed"
)

// InitializeResult describes the session the server opened.
type InitializeResult struct {
	ProtocolVersion string         `json:"protocol_version"`
	ServerInfo      Implementation `json:"server_info"`
	// Resolved absolute root, for the host; never shown to the model.
	RootDir string `json:"root_dir"`
	// Working directory for relative paths, relative to the root ("." by default).
	Cwd string `json:"cwd"`
	// The enabled tools, in registration order.
	Tools []ToolDescriptor `json:"tools"`
	// "sha256:<hex>" of the schema bundle's bytes.
	SchemaHash string `json:"schema_hash"`
	// The result shape in force (capabilities.result_shape, "both" when the client asked for none).
	ResultShape string `json:"result_shape" jsonschema:"enum=both,enum=text,enum=typed"`
	// The kernel's confinement of the server and its hooks (docs/protocol.md §6). fsbox always
	// sends it; a server without the notion may leave it out.
	Sandbox Sandbox `json:"sandbox,omitempty"`
}

// Sandbox reports what the kernel enforces beneath fsbox's own checks.
type Sandbox struct {
	// "abi N": the server confined itself with Linux Landlock, kernel ABI N, to its root and
	// mounts (and what it needs to run); "unavailable": the kernel or platform offers no
	// confinement, so containment rests on fsbox's own checks alone; "off": the host turned it
	// off (--sandbox off) because it confines the process itself.
	Landlock string `json:"landlock"`
	// How post_edit hooks run: "confined", each under a Landlock ruleset of its own (writes
	// beneath the root and writable mounts only); "unconfined", with the server's rights, because
	// no confinement is available and the host opted in; "none", no hooks are configured.
	Hooks string `json:"hooks" jsonschema:"enum=confined,enum=unconfined,enum=none"`
}

// ToolDescriptor describes one tool; description and input_schema can be handed to an LLM
// function-calling API as they are.
type ToolDescriptor struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// JSON Schema of the arguments object, self-contained (no $ref).
	InputSchema map[string]any `json:"input_schema"`
	// JSON Schema of the result object, self-contained (no $ref).
	OutputSchema map[string]any `json:"output_schema"`
}

// ToolsListResult lists the enabled tools.
type ToolsListResult struct {
	Tools []ToolDescriptor `json:"tools"`
}

// ToolsCallParams calls one tool. The result is the tool's result object.
type ToolsCallParams struct {
	// Tool name, as listed by tools/list.
	Name string `json:"name"`
	// Tool arguments; unknown fields are an error.
	Arguments map[string]any `json:"arguments,omitempty"`
}

// CancelParams names an in-flight request to cancel; it then answers -32800.
type CancelParams struct {
	// The id of the request, exactly as it was sent.
	ID any `json:"id"`
}

// ChangeRequestResult is the client's answer to a change_request: approve, reject, or approve
// with an edit (decision "edit"), where the reviewer's replacement is applied instead of the
// model's change. The server re-validates a replacement exactly as if the model had sent it
// (resolution, containment, denied/protected patterns, permission rules, expected_hash), and
// when any check fails it writes nothing and the call fails with that check's error. An edit is
// refused (change_request_failed) for delete and remove_directory, for content on anything but
// write and edit, for a replacement with a refusal, and when it carries neither or both of
// content and arguments.
type ChangeRequestResult struct {
	// True lets the change proceed; false leaves the disk untouched. Ignored when decision is
	// set; send false with decision "edit", so a server older than edits refuses the change
	// instead of applying the unedited original.
	Approve bool `json:"approve"`
	// Why the change was refused; shown to the model.
	Reason string `json:"reason,omitempty"`
	// "approve", "reject" or "edit"; wins over approve when present. Absent: approve decides,
	// and approve: true with content or arguments is an edit.
	Decision string `json:"decision,omitempty" jsonschema:"enum=approve,enum=reject,enum=edit"`
	// For an edit of a write or an edit_file: the file's complete new content, written instead
	// of the model's to the same path, under the same guard (the file unchanged since the
	// request; text only for an edit). Equal to the proposal, it is a plain approval.
	Content *string `json:"content,omitempty"`
	// For an edit: the complete replacement arguments of the tool call (the same object
	// tools/call takes, decoded as strictly), replacing the model's arguments entirely.
	Arguments map[string]any `json:"arguments,omitempty"`
}

// Change-request decisions (ChangeRequestResult.Decision).
const (
	DecisionApprove = "approve"
	DecisionReject  = "reject"
	DecisionEdit    = "edit"
)
