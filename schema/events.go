package schema

// Event kinds, namespace file_system. An event notification's params carry one of the event types
// below, told apart by kind.
const (
	KindFileRead          = "file_system.file_read"
	KindDirectoryListed   = "file_system.directory_listed"
	KindFileWritten       = "file_system.file_written"
	KindFileEdited        = "file_system.file_edited"
	KindDirectoryCreated  = "file_system.directory_created"
	KindFilesSearched     = "file_system.files_searched"
	KindDirectoryRemoved  = "file_system.directory_removed"
	KindFileDeleted       = "file_system.file_deleted"
	KindFileMoved         = "file_system.file_moved"
	KindFileChangeRequest = "file_system.file_change_request"
)

// EventBase holds the fields every event has. Event paths are root-relative and resolved; RootDir
// is the resolved absolute root. Events are for the host, not the model.
type EventBase struct {
	Kind string `json:"kind"`
	// Root-relative resolved path ("." for the root).
	Path string `json:"path"`
	// Resolved absolute root.
	RootDir string `json:"root_dir"`
	// Name of the tool whose call caused the event.
	Tool string `json:"tool"`
}

// FileReadEvent: read_file (or read_multiple_files) read a file.
type FileReadEvent struct {
	EventBase
	// Hash of the whole file, whatever window was read.
	ContentHash string `json:"content_hash"`
}

// DirectoryListedEvent: list_directory or directory_tree listed a directory.
type DirectoryListedEvent struct {
	EventBase
	// Entries shown to the model.
	EntryCount int `json:"entry_count"`
}

// FileWrittenEvent: write_file wrote a file; sent after the bytes landed.
type FileWrittenEvent struct {
	EventBase
	// Hash of the file's content after the post_edit hooks ("<absent>" when they removed it).
	ContentHash string `json:"content_hash"`
	// The post_edit hooks that ran after the write; absent when none matched.
	PostEdit []PostEditRun `json:"post_edit,omitempty"`
	// True when the reviewer's edit of the change request was applied instead of the model's
	// change.
	ModifiedByReviewer bool `json:"modified_by_reviewer,omitempty"`
}

// FileEditedEvent: edit_file changed a file; sent after the bytes landed.
type FileEditedEvent struct {
	EventBase
	// Hash of the new content, after the post_edit hooks ("<absent>" when they removed it).
	ContentHash string `json:"content_hash"`
	// The post_edit hooks that ran after the edit; absent when none matched.
	PostEdit []PostEditRun `json:"post_edit,omitempty"`
	// Unified diff of the change, from the content before the edit to the content after the
	// post_edit hooks (bounded, see FileChangeRequest).
	Diff string `json:"diff"`
	// True when diff does not show the whole change.
	Truncated bool `json:"truncated"`
	// Occurrences replaced (more than the edits given with replace_all).
	Replacements int `json:"replacements"`
	// True when the reviewer's edit of the change request was applied instead of the model's
	// change; diff then shows what was written.
	ModifiedByReviewer bool `json:"modified_by_reviewer,omitempty"`
}

// DirectoryCreatedEvent: create_directory created a directory (not sent when it already existed).
type DirectoryCreatedEvent struct {
	EventBase
	// True when the reviewer's edit of the change request was applied instead of the model's
	// change.
	ModifiedByReviewer bool `json:"modified_by_reviewer,omitempty"`
}

// FilesSearchedEvent: search_files, find_files, list_files or grep ran.
type FilesSearchedEvent struct {
	EventBase
	// The regex or glob searched for.
	Pattern string `json:"pattern"`
	// "grep" for content searches, "find" for name searches.
	Search string `json:"search" jsonschema:"enum=grep,enum=find"`
	// Results the model received.
	MatchCount int `json:"match_count"`
	// True when results were dropped at the cap.
	Truncated bool `json:"truncated"`
}

// DirectoryRemovedEvent: remove_directory removed an empty directory.
type DirectoryRemovedEvent struct {
	EventBase
}

// FileDeletedEvent: delete removed a file or tree.
type FileDeletedEvent struct {
	EventBase
	// True when a directory tree was removed.
	Recursive bool `json:"recursive"`
}

// FileMovedEvent: move_file moved a file; Path is the destination.
type FileMovedEvent struct {
	EventBase
	// Root-relative resolved source path.
	Source string `json:"source"`
	// True when the reviewer's edit of the change request was applied instead of the model's
	// change.
	ModifiedByReviewer bool `json:"modified_by_reviewer,omitempty"`
}

// FileChangeRequest asks the client to approve a change before it touches disk; it is the params of
// a change_request. The diff is unified, a/<path> to b/<path>, 3 lines of context, cut on a line
// boundary at 8192 characters (truncated: true); headers only when either side is over 32768
// characters or (old_lines+1)*(new_lines+1) > 65536. Every diff applies with patch and git apply.
type FileChangeRequest struct {
	EventBase
	// "write", "edit", "create_directory", "remove_directory", "delete", "move", or "patch" for
	// an apply_patch call: one request for the whole patch, path its first file, diff the
	// files' diffs one after the other (moves with git's rename headers).
	Operation string `json:"operation" jsonschema:"enum=write,enum=edit,enum=create_directory,enum=remove_directory,enum=delete,enum=move,enum=patch"`
	Diff      string `json:"diff"`
	// True when diff does not show the whole change.
	Truncated bool `json:"truncated"`
	// "listener" when the client asked to approve every change, "permission_rule" when an interrupt
	// rule matched.
	Reason string `json:"reason" jsonschema:"enum=listener,enum=permission_rule"`
	// The matching rule, for reason permission_rule.
	Rule *PermissionRule `json:"rule,omitempty"`
}
