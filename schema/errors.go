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

// The error kinds, one constant each so that a misspelt kind cannot compile anywhere in fsbox.
// [ErrorKinds] documents them; code compares and builds kinds only through these names.
const (
	KindInvalidArguments     ErrorKind = "invalid_arguments"
	KindUnknownTool          ErrorKind = "unknown_tool"
	KindNotFound             ErrorKind = "not_found"
	KindNotAFile             ErrorKind = "not_a_file"
	KindNotADirectory        ErrorKind = "not_a_directory"
	KindNotRegularFile       ErrorKind = "not_regular_file"
	KindAlreadyExists        ErrorKind = "already_exists"
	KindParentMissing        ErrorKind = "parent_missing"
	KindParentNotDirectory   ErrorKind = "parent_not_directory"
	KindOutsideRoot          ErrorKind = "outside_root"
	KindDenied               ErrorKind = "denied"
	KindNotAllowed           ErrorKind = "not_allowed"
	KindProtected            ErrorKind = "protected"
	KindPermissionDenied     ErrorKind = "permission_denied"
	KindStaleHash            ErrorKind = "stale_hash"
	KindNoMatch              ErrorKind = "no_match"
	KindMultipleMatches      ErrorKind = "multiple_matches"
	KindEmptyOldText         ErrorKind = "empty_old_text"
	KindBinaryFile           ErrorKind = "binary_file"
	KindInvalidEncoding      ErrorKind = "invalid_encoding"
	KindOffsetOutOfRange     ErrorKind = "offset_out_of_range"
	KindPatternTooComplex    ErrorKind = "pattern_too_complex"
	KindInvalidPattern       ErrorKind = "invalid_pattern"
	KindInvalidPath          ErrorKind = "invalid_path"
	KindNameTooLong          ErrorKind = "name_too_long"
	KindSymlinkLoop          ErrorKind = "symlink_loop"
	KindPathTooLong          ErrorKind = "path_too_long"
	KindChangedDuringRequest ErrorKind = "changed_during_request"
	KindDirectoryNotEmpty    ErrorKind = "directory_not_empty"
	KindTooManyEntries       ErrorKind = "too_many_entries"
	KindCrossDevice          ErrorKind = "cross_device"
	KindToolUnavailable      ErrorKind = "tool_unavailable"
	KindNoSpace              ErrorKind = "no_space"
	KindReadOnlyFilesystem   ErrorKind = "read_only_filesystem"
	KindIOError              ErrorKind = "io_error"
	KindChangeRequestFailed  ErrorKind = "change_request_failed"
	KindNotInitialized       ErrorKind = "not_initialized"
	KindAuditFailed          ErrorKind = "audit_failed"
	KindInternal             ErrorKind = "internal"
)

// InternalErrorMessage is the one text a client sees for a bug in the server, on every front end;
// the cause goes to the server's log, never to the client.
const InternalErrorMessage = "Internal error in the fsbox server."

// ErrorKindInfo documents one error kind.
type ErrorKindInfo struct {
	Kind        ErrorKind
	Retry       bool
	Description string
}

// ErrorKinds lists every error kind, retry kinds first.
var ErrorKinds = []ErrorKindInfo{
	{KindInvalidArguments, true, "The arguments do not fit the tool's schema or each other."},
	{KindUnknownTool, true, "No enabled tool has that name."},
	{KindNotFound, true, "The path does not exist."},
	{KindNotAFile, true, "The path is a directory where a file was needed."},
	{KindNotADirectory, true, "The path is not a directory where one was needed."},
	{KindNotRegularFile, true, "The path is a FIFO, socket or device; it is never opened."},
	{KindAlreadyExists, true, "The path exists and is in the way."},
	{KindParentMissing, true, "The parent directory does not exist."},
	{KindParentNotDirectory, true, "A parent of the path is not a directory."},
	{KindOutsideRoot, true, "The path leads outside the root directory."},
	{KindDenied, true, "The path matches a denied pattern."},
	{KindNotAllowed, true, "The path matches no allowed pattern."},
	{KindProtected, true, "The path matches a protected pattern: readable, never writable."},
	{KindPermissionDenied, true, "A permission rule or the operating system refused the access."},
	{KindStaleHash, true, "The file changed since the hash was read."},
	{KindNoMatch, true, "old_text does not occur in the file."},
	{KindMultipleMatches, true, "old_text occurs more than once in the file."},
	{KindEmptyOldText, true, "old_text is empty."},
	{KindBinaryFile, true, "The file is binary; the tool only handles text."},
	{KindInvalidEncoding, true, "old_text has U+FFFD where the file's bytes are not UTF-8; edit around them."},
	{KindOffsetOutOfRange, true, "offset is at or past the end of the file."},
	{KindInvalidPattern, true, "The regex or glob does not parse."},
	{KindPatternTooComplex, true, "The regex or glob is larger than one call may compile or expand (bytes, \"{...}\" alternatives, nesting, compiled size); the message says which argument to narrow and how."},
	{KindInvalidPath, true, "The path is malformed (empty, NUL byte, not representable)."},
	{KindNameTooLong, true, "The path or one of its names is too long."},
	{KindSymlinkLoop, true, "The path resolves through a symlink loop."},
	{KindPathTooLong, true, "The path, as spelled or with its symlinks expanded, is longer than 4096 bytes or 2048 components; use a shorter path (set a cwd closer to it)."},
	{KindChangedDuringRequest, true, "The path changed while the call ran; nothing was applied."},
	{KindDirectoryNotEmpty, true, "The directory is not empty."},
	{KindTooManyEntries, true, "The directory tree has more entries than one call may change; delete a subdirectory first."},
	{KindCrossDevice, true, "A move would cross filesystems (devices); it cannot be atomic."},
	{KindToolUnavailable, true, "The tool cannot run here (for example ripgrep is missing)."},
	{KindNoSpace, false, "The filesystem is full."},
	{KindReadOnlyFilesystem, false, "The filesystem is mounted read-only."},
	{KindIOError, false, "The operating system reported an I/O error."},
	{KindChangeRequestFailed, false, "The client answered a change_request with an error or went away."},
	{KindNotInitialized, false, "A request came before initialize."},
	{KindAuditFailed, false, "The host's audit log could not be written: the call's result is withheld (a change it made stays made) and every later call is refused unrun."},
	{KindInternal, false, "A bug in the server."},
}

// answerKinds are the retry kinds that, from a tool that only reads, do not count against a
// framework's retry budget: the call was sound and its answer is "no such thing", as
// pydantic-ai-harness returns "Path not found" from read_file and file_info as a plain result.
var answerKinds = map[ErrorKind]bool{KindNotFound: true}

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
//     file that is not there is a mistake to correct, as in pydantic-ai-harness's FileSystem).
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
