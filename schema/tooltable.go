package schema

import "reflect"

// Tool names.
const (
	ToolReadFile          = "read_file"
	ToolWriteFile         = "write_file"
	ToolEditFile          = "edit_file"
	ToolListDirectory     = "list_directory"
	ToolSearchFiles       = "search_files"
	ToolFindFiles         = "find_files"
	ToolCreateDirectory   = "create_directory"
	ToolFileInfo          = "file_info"
	ToolListFiles         = "list_files"
	ToolGrep              = "grep"
	ToolReadMultipleFiles = "read_multiple_files"
	ToolDirectoryTree     = "directory_tree"
	ToolRemoveDirectory   = "remove_directory"
	ToolDelete            = "delete"
	ToolMoveFile          = "move_file"
	// The provider-shaped edit tools (opt-in): OpenAI's V4A patches and Anthropic's text editor.
	ToolApplyPatch              = "apply_patch"
	ToolStrReplaceBasedEditTool = "str_replace_based_edit_tool"
)

// ToolSpec describes one tool of the protocol: its name, its model-facing description, the Go types
// of its arguments and result, and how configuration selects it.
type ToolSpec struct {
	Name        string
	Description string
	Args        reflect.Type
	Result      reflect.Type
	// Default reports whether the tool is enabled when Config.Tools is omitted.
	Default bool
	// ReadOnly reports whether the tool never changes the filesystem (kept under read_only).
	ReadOnly bool
}

// Tools lists the tools this package describes, in registration order.
var Tools = []ToolSpec{
	{ToolReadFile, "Read a text file. Returns a header line with the path and line count, then numbered lines (6-wide number, TAB, line). " +
		"Use offset (0-based lines to skip) and limit to page through large files; the result says which offset continues. " +
		"Binary files are reported by size only.",
		reflect.TypeFor[ReadFileArgs](), reflect.TypeFor[ReadFileResult](), true, true},
	{ToolWriteFile, "Create a file or replace its whole content. The parent directory must exist.",
		reflect.TypeFor[WriteFileArgs](), reflect.TypeFor[WriteFileResult](), true, false},
	{ToolEditFile, "Replace exact text in a file: old_text must occur exactly once; include enough surrounding context to make it unique. " +
		"Several edits at once: replacements, applied in order, all or nothing. Whitespace and line endings must match exactly.",
		reflect.TypeFor[EditFileArgs](), reflect.TypeFor[EditFileResult](), true, false},
	{ToolListDirectory, "List a directory's entries, sorted: `dir/` for directories, `file  (N bytes)` for files. Hidden entries are skipped. " +
		"At most max_list_results entries and max_output_chars characters (default 50000); past either the result is truncated and says so.",
		reflect.TypeFor[ListDirectoryArgs](), reflect.TypeFor[ListDirectoryResult](), true, true},
	{ToolSearchFiles, "Search file contents with a regular expression (RE2 syntax), recursively under path. " +
		"Matching lines formatted as path:line_number:text, with paths relative to the working directory. include_glob narrows the files searched. " +
		"A line over 250 characters is cut to 250 around its first match and says so. At most max_search_results matches and max_output_chars characters " +
		"(default 50000); past either the result is truncated and says how to narrow.",
		reflect.TypeFor[SearchFilesArgs](), reflect.TypeFor[SearchFilesResult](), true, true},
	{ToolFindFiles, "Find files and directories by name with a glob relative to path (`**/*.go`, `src/*.{ts,tsx}`). Directories end in `/`. " +
		"At most max_find_results paths and max_output_chars characters (default 50000); past either the result is truncated and says so.",
		reflect.TypeFor[FindFilesArgs](), reflect.TypeFor[FindFilesResult](), true, true},
	{ToolCreateDirectory, "Create a directory and any missing parents. An existing directory is not an error.",
		reflect.TypeFor[CreateDirectoryArgs](), reflect.TypeFor[CreateDirectoryResult](), true, false},
	{ToolFileInfo, "Describe a file or directory: type, size, and for text files the line count and content hash; symlink target if the path is a link.",
		reflect.TypeFor[FileInfoArgs](), reflect.TypeFor[FileInfoResult](), true, true},
	{ToolListFiles, "List the files below a directory, recursively, one path per line, sorted, skipping what .gitignore ignores and hidden entries. " +
		"glob narrows them (`*.py` matches names at any depth, `src/**/*.ts` paths below path). At most max_find_results paths and max_output_chars characters; past either the result is truncated and says so.",
		reflect.TypeFor[ListFilesArgs](), reflect.TypeFor[ListFilesResult](), false, true},
	{ToolGrep, "Search file contents like ripgrep: lines matching pattern (RE2 regex, or plain text with literal) as `path:line:text`, " +
		"context lines as `path-line-text`. glob and file_type (`py`, `go`, `ts`, ...) narrow the files; ignore_case; context (0-20) adds lines around each match. " +
		"Skips what .gitignore ignores, hidden and binary files. At most max_search_results lines (context lines count) and max_output_chars characters.",
		reflect.TypeFor[GrepArgs](), reflect.TypeFor[GrepResult](), false, true},
	{ToolReadMultipleFiles, "Read several text files at once (at most 100 paths), each as read_file with default offset and limit. One failure does not fail the others. " +
		"All files share one budget of max_output_chars characters (default 50000); files past it are listed as not read: read them with read_file.",
		reflect.TypeFor[ReadMultipleFilesArgs](), reflect.TypeFor[ReadMultipleFilesResult](), false, true},
	{ToolDirectoryTree, "Show the tree below a directory, depth first, one path per line (`dir/`, `file  (N bytes)`). max_depth limits how deep it goes. Hidden entries are skipped. " +
		"At most max_list_results entries and max_output_chars characters (default 50000); past either the result is truncated and says so.",
		reflect.TypeFor[DirectoryTreeArgs](), reflect.TypeFor[DirectoryTreeResult](), false, true},
	{ToolRemoveDirectory, "Remove an empty directory. A directory with entries is refused (directory_not_empty); use delete with recursive for a tree.",
		reflect.TypeFor[RemoveDirectoryArgs](), reflect.TypeFor[RemoveDirectoryResult](), false, false},
	{ToolDelete, "Delete a file or symlink (the link itself, never its target). A directory needs recursive: true and is deleted with everything in it " +
		"only if every entry may be changed: one protected or denied entry refuses the whole delete and nothing is removed.",
		reflect.TypeFor[DeleteArgs](), reflect.TypeFor[DeleteResult](), false, false},
	{ToolMoveFile, "Move or rename a file or directory inside the workspace, atomically. The destination's parent must exist; " +
		"an existing destination is refused unless overwrite is true (files only).",
		reflect.TypeFor[MoveFileArgs](), reflect.TypeFor[MoveFileResult](), false, false},
	{ToolApplyPatch, "Apply a patch in the V4A format: input is the whole patch, from `*** Begin Patch` to `*** End Patch`, with " +
		"`*** Add File: path` (every line prefixed with +), `*** Delete File: path` and `*** Update File: path` sections (optionally " +
		"`*** Move to: new/path`), each update's hunks starting with `@@` (optionally `@@ <a line just above the change>`), then ' ' context, " +
		"'-' removed and '+' added lines, `*** End of File` after a hunk that ends the file. Or operation: one {type: create_file | update_file | " +
		"delete_file, path, diff, move_to?}. Give 3 lines of context around each change. Missing parent directories of new files are created. " +
		"The whole patch is checked first: if any part fails, no file is changed.",
		reflect.TypeFor[ApplyPatchArgs](), reflect.TypeFor[ApplyPatchResult](), false, false},
	{ToolStrReplaceBasedEditTool, "View, create and edit files. command view shows a file with line numbers (view_range [first, last], 1-based, " +
		"last -1 for the end) or lists a directory 2 levels deep; create writes file_text to a new file; str_replace replaces old_str, which " +
		"must occur exactly once, with new_str; insert puts insert_text after line insert_line (0 for the top).",
		reflect.TypeFor[StrReplaceBasedEditToolArgs](), reflect.TypeFor[StrReplaceBasedEditToolResult](), false, false},
	{ToolUndoLastChange, "Undo the latest change made through these tools (a write, edit, delete, move or patch, all its files at once). " +
		"Call it again to undo the change before. A file changed by anyone else since is left alone and named.",
		reflect.TypeFor[UndoLastChangeArgs](), reflect.TypeFor[UndoLastChangeResult](), false, false},
}

// ReservedToolNames are tool names of the protocol that this revision does not implement yet: none
// since list_files and grep landed; the bundle keeps the (empty) list for clients that read it.
var ReservedToolNames = []string{}

// ToolByName returns the spec of the named tool.
func ToolByName(name string) (ToolSpec, bool) {
	for _, t := range Tools {
		if t.Name == name {
			return t, true
		}
	}
	return ToolSpec{}, false
}

// EventSpec ties an event kind to its Go type.
type EventSpec struct {
	Kind string
	Type reflect.Type
}

// Events lists every event and the change request, by kind.
var Events = []EventSpec{
	{KindFileRead, reflect.TypeFor[FileReadEvent]()},
	{KindDirectoryListed, reflect.TypeFor[DirectoryListedEvent]()},
	{KindFileWritten, reflect.TypeFor[FileWrittenEvent]()},
	{KindFileEdited, reflect.TypeFor[FileEditedEvent]()},
	{KindDirectoryCreated, reflect.TypeFor[DirectoryCreatedEvent]()},
	{KindFilesSearched, reflect.TypeFor[FilesSearchedEvent]()},
	{KindDirectoryRemoved, reflect.TypeFor[DirectoryRemovedEvent]()},
	{KindFileDeleted, reflect.TypeFor[FileDeletedEvent]()},
	{KindFileMoved, reflect.TypeFor[FileMovedEvent]()},
	{KindFileChangeRequest, reflect.TypeFor[FileChangeRequest]()},
}

// MethodSpec describes one JSON-RPC method of the protocol.
type MethodSpec struct {
	Name string
	// "client_to_server" or "server_to_client".
	Direction string
	// Notification reports whether the method is a notification (no result).
	Notification bool
	// Params and Result are nil for none. A nil Result on a request means the result is null;
	// ResultTool marks tools/call, whose result is the called tool's result.
	Params, Result reflect.Type
	ResultTool     bool
	// ParamsEvent marks the event notification, whose params are one of Events.
	ParamsEvent bool
	Description string
}

// Methods lists every method of the protocol.
var Methods = []MethodSpec{
	{Name: "initialize", Direction: "client_to_server", Params: reflect.TypeFor[InitializeParams](), Result: reflect.TypeFor[InitializeResult](),
		Description: "Open the session; must be the first request. A second initialize is refused."},
	{Name: "tools/list", Direction: "client_to_server", Result: reflect.TypeFor[ToolsListResult](),
		Description: "List the enabled tools."},
	{Name: "tools/call", Direction: "client_to_server", Params: reflect.TypeFor[ToolsCallParams](), ResultTool: true,
		Description: "Call a tool; the result is the tool's result object, a failure a JSON-RPC error with ErrorData."},
	{Name: "schema", Direction: "client_to_server",
		Description: "Return this JSON Schema bundle."},
	{Name: "shutdown", Direction: "client_to_server",
		Description: "Answer null, then exit."},
	{Name: "$/cancel_request", Direction: "client_to_server", Notification: true, Params: reflect.TypeFor[CancelParams](),
		Description: "Cancel an in-flight request; it answers -32800."},
	{Name: "checkpoint/create", Direction: "client_to_server", Params: reflect.TypeFor[CheckpointCreateParams](), Result: reflect.TypeFor[Checkpoint](),
		Description: "Mark the present moment of the session's journal (config.journal); the host's, never the model's."},
	{Name: "checkpoint/list", Direction: "client_to_server", Result: reflect.TypeFor[CheckpointListResult](),
		Description: "List the checkpoints kept, oldest first, with the journal's size and bound."},
	{Name: "checkpoint/diff", Direction: "client_to_server", Params: reflect.TypeFor[CheckpointIDParams](), Result: reflect.TypeFor[CheckpointDiffResult](),
		Description: "Unified diff of every path changed since the checkpoint, bounded by max_output_chars."},
	{Name: "checkpoint/restore", Direction: "client_to_server", Params: reflect.TypeFor[CheckpointRestoreParams](), Result: reflect.TypeFor[CheckpointRestoreResult](),
		Description: "Put every path changed since the checkpoint back, through containment, policy and the crash-atomic commit; paths changed by someone else are refused unless force."},
	{Name: "checkpoint/dropped", Direction: "server_to_client", Notification: true, Params: reflect.TypeFor[CheckpointDroppedParams](),
		Description: "The journal reached journal.max_bytes and dropped its oldest checkpoint, whole."},
	{Name: "event", Direction: "server_to_client", Notification: true, ParamsEvent: true,
		Description: "A file operation completed; sent before the call's response, only with capabilities.events."},
	{Name: "change_request", Direction: "server_to_client", Params: reflect.TypeFor[FileChangeRequest](), Result: reflect.TypeFor[ChangeRequestResult](),
		Description: "Ask the client to approve a change before it touches disk; only with capabilities.change_requests or an interrupt rule."},
}
