package schema

// ErrorKind classifies a tool failure. Clients compare kinds, never messages.
type ErrorKind string

// JSON-RPC error codes of fsbox.
const (
	CodeRetry          = -32001 // the model can fix it
	CodeFatal          = -32002 // the run should stop; also "not initialized"
	CodeInvalidParams  = -32602 // invalid params; for tools/call kind invalid_arguments or unknown_tool
	CodeCancelled      = -32800 // cancelled by $/cancel_request
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
)

// ErrorData is the data member of every fsbox tool error.
type ErrorData struct {
	Kind ErrorKind `json:"kind"`
	// True when the model can fix the call and try again.
	Retry bool `json:"retry"`
	// True when the failure should count against a framework's tool-retry budget: every retry kind
	// but not_found from a tool that only reads, which is an answer (the path does not exist), not a
	// mistake to correct.
	CountsAsRetry bool `json:"counts_as_retry"`
	// Root-relative path the failure is about, when there is one.
	Path string `json:"path,omitempty"`
	// For an unsupported protocol_version: the versions this server speaks.
	Supported []string `json:"supported,omitempty"`
}

// ErrorKindInfo documents one error kind.
type ErrorKindInfo struct {
	Kind        ErrorKind
	Retry       bool
	Description string
}

// ErrorKinds lists every error kind, retry kinds first.
var ErrorKinds = []ErrorKindInfo{
	{"invalid_arguments", true, "The arguments do not fit the tool's schema or each other."},
	{"unknown_tool", true, "No enabled tool has that name."},
	{"not_found", true, "The path does not exist."},
	{"not_a_file", true, "The path is a directory where a file was needed."},
	{"not_a_directory", true, "The path is not a directory where one was needed."},
	{"not_regular_file", true, "The path is a FIFO, socket or device; it is never opened."},
	{"already_exists", true, "The path exists and is in the way."},
	{"parent_missing", true, "The parent directory does not exist."},
	{"parent_not_directory", true, "A parent of the path is not a directory."},
	{"outside_root", true, "The path leads outside the root directory."},
	{"denied", true, "The path matches a denied pattern."},
	{"not_allowed", true, "The path matches no allowed pattern."},
	{"protected", true, "The path matches a protected pattern: readable, never writable."},
	{"permission_denied", true, "A permission rule or the operating system refused the access."},
	{"stale_hash", true, "The file changed since the hash was read."},
	{"no_match", true, "old_text does not occur in the file."},
	{"multiple_matches", true, "old_text occurs more than once in the file."},
	{"empty_old_text", true, "old_text is empty."},
	{"binary_file", true, "The file is binary; the tool only handles text."},
	{"invalid_encoding", true, "old_text has U+FFFD where the file's bytes are not UTF-8; edit around them."},
	{"offset_out_of_range", true, "offset is at or past the end of the file."},
	{"invalid_pattern", true, "The regex or glob does not parse."},
	{"pattern_too_complex", true, "The regex or glob is larger than one call may compile or expand (bytes, \"{...}\" alternatives, nesting, compiled size); the message says which argument to narrow and how."},
	{"invalid_path", true, "The path is malformed (empty, NUL byte, not representable)."},
	{"name_too_long", true, "The path or one of its names is too long."},
	{"symlink_loop", true, "The path resolves through a symlink loop."},
	{"path_too_long", true, "The path, as spelled or with its symlinks expanded, is longer than 4096 bytes or 2048 components; use a shorter path (set a cwd closer to it)."},
	{"changed_during_request", true, "The path changed while the call ran; nothing was applied."},
	{"directory_not_empty", true, "The directory is not empty."},
	{"too_many_entries", true, "The directory tree has more entries than one call may change; delete a subdirectory first."},
	{"cross_device", true, "A move would cross filesystems (devices); it cannot be atomic."},
	{"tool_unavailable", true, "The tool cannot run here (for example ripgrep is missing)."},
	{"no_space", false, "The filesystem is full."},
	{"read_only_filesystem", false, "The filesystem is mounted read-only."},
	{"io_error", false, "The operating system reported an I/O error."},
	{"change_request_failed", false, "The client answered a change_request with an error or went away."},
	{"not_initialized", false, "A request came before initialize."},
	{"internal", false, "A bug in the server."},
}

// answerKinds are the retry kinds that, from a tool that only reads, do not count against a
// framework's retry budget: the call was sound and its answer is "no such thing", as
// pydantic-ai-harness returns "Path not found" from read_file and file_info as a plain result.
var answerKinds = map[ErrorKind]bool{"not_found": true}

// CountsAsRetry reports whether a failure of kind should spend one of the model's retries, for
// the manifest's per-kind answer: a retry kind that is not an answer kind. Fatal kinds end the run
// instead. [CountsAsRetryFor] refines it by tool.
func CountsAsRetry(kind ErrorKind) bool {
	return errorKindRetry[kind] && !answerKinds[kind]
}

// CountsAsRetryFor is what a failure's data says:
//
//  1. a fatal kind never counts (the run stops);
//  2. an answer kind (not_found) from a reading tool does not count;
//  3. every other retry kind counts, not_found from a tool that changes files included (editing a
//     file that is not there is a mistake to correct, as in the seed).
func CountsAsRetryFor(tool string, kind ErrorKind) bool {
	if !errorKindRetry[kind] {
		return false
	}
	if answerKinds[kind] {
		t, ok := ToolByName(tool)
		return ok && !t.ReadOnly
	}
	return true
}

var errorKindRetry = func() map[ErrorKind]bool {
	m := make(map[ErrorKind]bool, len(ErrorKinds))
	for _, k := range ErrorKinds {
		m[k.Kind] = k.Retry
	}
	return m
}()

// LookupErrorKind reports whether kind is one of [ErrorKinds] and, if so, whether it is a retry
// kind.
func LookupErrorKind(kind ErrorKind) (retry, known bool) {
	retry, known = errorKindRetry[kind]
	return retry, known
}
