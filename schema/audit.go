package schema

// The audit log (fsbox serve/mcp --audit FILE) holds one AuditRecord per line, one line per call,
// written before the call's reply is sent. A record never holds file contents, text the client or
// model wrote (reasons, patterns, arguments) or host paths: only root-relative paths, hashes,
// names and outcomes.

// Outcomes of an audited call.
const (
	AuditOK        = "ok"
	AuditRefused   = "refused"
	AuditPending   = "pending"
	AuditError     = "error"
	AuditCancelled = "cancelled"
)

// Answers to a change request, and who gave them.
const (
	AuditApproved   = "approved"
	AuditEdited     = "edited"
	AuditRejected   = "refused"
	AuditFailed     = "failed"
	AuditAwaiting   = "pending"
	AuditByClient   = "client"
	AuditByHost     = "host"
	AuditByPolicy   = "policy-auto"
	AuditMethodTool = "tools/call"
)

// AuditRecord is one line of the audit log: one call, as the server answered it. Lines are
// written in seq order; seq counts the lines of one server process from 1, across rotated files.
type AuditRecord struct {
	// Position of this line in the process's log, from 1, one more than the line before.
	Seq int64 `json:"seq" jsonschema:"minimum=1"`
	// When the call began: RFC 3339, UTC, with nanoseconds.
	Time string `json:"time"`
	// The session the call came in: 1 for the first of the process, one more for each later one
	// (fsbox mcp --http serves several).
	Session int `json:"session" jsonschema:"minimum=1"`
	// "tools/call" for a tool call; otherwise the host method's name.
	Method string `json:"method"`
	// The tool called, for tools/call; absent when the request named none, or a name that is not
	// a tool's (lowercase letters, digits and underscores, at most 64).
	Tool string `json:"tool,omitempty"`
	// The root-relative paths the call resolved to, in the order it reached them (sources and
	// destinations, files read, directories listed or searched, the path a failure is about).
	Paths []string `json:"paths,omitempty"`
	// Paths left out after the first 256.
	PathsOmitted int `json:"paths_omitted,omitempty"`
	// "ok"; "refused" when a change was refused by whoever answered its change request (the
	// tool's result says so); "pending" when the change awaits an answer that will come as a new
	// call (MCP's approval); "error" with error_kind; "cancelled" when the call was cancelled.
	Outcome string `json:"outcome" jsonschema:"enum=ok,enum=refused,enum=pending,enum=error,enum=cancelled"`
	// The error's kind, for outcome error.
	ErrorKind ErrorKind `json:"error_kind,omitempty"`
	// What the call changed on disk, in the order it happened.
	Changes []AuditChange `json:"changes,omitempty"`
	// The answer to the call's change request, or how the policy decided without asking; absent
	// for a call that changes nothing.
	Decision *AuditDecision `json:"decision,omitempty"`
	// How long the call took, in milliseconds.
	DurationMs float64 `json:"duration_ms" jsonschema:"minimum=0"`
}

// AuditChange is one change a call made.
type AuditChange struct {
	// "write" (a file's content created or replaced: write_file, edit_file, apply_patch, the
	// editor tools), "delete", "move", "create_directory" or "remove_directory".
	Op string `json:"op" jsonschema:"enum=write,enum=delete,enum=move,enum=create_directory,enum=remove_directory"`
	// Root-relative path changed (the destination of a move).
	Path string `json:"path"`
	// Root-relative source of a move.
	Source string `json:"source,omitempty"`
	// Content hash before a write, "<absent>" when it created the file; "<unhashed>" when a write
	// without expected_hash replaced a file over 64 MiB, which is not read just for the log.
	Before string `json:"before,omitempty"`
	// Content hash after a write (after the post_edit hooks; "<absent>" when they removed it).
	After string `json:"after,omitempty"`
}

// AuditDecision is how a call's change was decided.
type AuditDecision struct {
	// "approved", "edited" (approved with the reviewer's replacement), "refused", "failed" (the
	// answer was an error or invalid: nothing changed) or "pending" (MCP: the approval is asked
	// for in the call's result and arrives with a later call).
	Answer string `json:"answer" jsonschema:"enum=approved,enum=edited,enum=refused,enum=failed,enum=pending"`
	// "client" (the protocol client answered a change_request or an elicitation), "host" (the
	// server answered from the host's settings, e.g. fsbox mcp --changes) or "policy-auto" (nobody
	// was asked: the configuration let the change through, or an interrupt rule refused it
	// because nobody could be asked).
	By string `json:"by" jsonschema:"enum=client,enum=host,enum=policy-auto"`
}
