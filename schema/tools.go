package schema

// Every tool result carries Text, exactly what the model should see; the other fields are the same
// facts, typed. Paths in results are relative to the session's cwd (with ".." segments for paths
// inside the root but outside cwd), so they can be passed straight back to another tool.

// ReadFileArgs are the arguments of read_file.
type ReadFileArgs struct {
	// File to read, relative to the working directory.
	Path string `json:"path"`
	// Number of lines to skip (0-based). Default 0.
	Offset *int `json:"offset,omitempty" jsonschema:"minimum=0"`
	// Maximum number of lines to return; defaults to, and is capped at, the server's max_read_lines.
	Limit *int `json:"limit,omitempty" jsonschema:"minimum=1"`
	// Read one piece of the line at offset, from this 0-based character on, as much as fits the
	// read window; for lines too long to show whole. The result says where the line continues.
	Column *int `json:"column,omitempty" jsonschema:"minimum=0"`
}

// ReadFileResult is the result of read_file.
type ReadFileResult struct {
	// Exactly what the model should see.
	Text string `json:"text"`
	// The path relative to the working directory.
	Path string `json:"path"`
	// True when the file has a NUL byte in its first 8192 bytes or starts like an image or PDF; no
	// lines are returned then.
	Binary bool `json:"binary"`
	// File size in bytes.
	Size int64 `json:"size"`
	// Number of lines in the whole file (split on \n only).
	TotalLines int `json:"total_lines"`
	// 0-based offset of the first line shown.
	Offset int `json:"offset"`
	// Number of lines shown.
	LinesShown int `json:"lines_shown"`
	// Offset to pass to continue reading; absent when the window reached the end of the file.
	NextOffset *int `json:"next_offset,omitempty"`
	// With column: the character the piece starts at.
	Column *int `json:"column,omitempty"`
	// With column: the column to pass (with the same offset) for the rest of the line; absent when
	// the piece reached the line's end.
	NextColumn *int `json:"next_column,omitempty"`
	// Content hash of the whole file (first 12 hex digits of SHA-256 over its raw bytes); absent when
	// content hashes are off.
	Hash string `json:"hash,omitempty"`
	// The lines shown, as in the file: no numbers, each with its own terminator, invalid UTF-8 as
	// U+FFFD. Absent for a binary file and when no line is shown. For adapters that hand a framework
	// the file's text; the model reads Text.
	Content *string `json:"content,omitempty"`
	// For a binary file: its media type, from its content (image/png, image/jpeg, image/gif,
	// image/webp, application/pdf, a few archive and executable types, else
	// application/octet-stream).
	MediaType string `json:"media_type,omitempty"`
	// For an image or PDF of at most 5,000,000 bytes: the whole file (base64 on the wire), for the
	// host to hand to a multimodal model; never in text.
	Data []byte `json:"data,omitempty"`
}

// WriteFileArgs are the arguments of write_file.
type WriteFileArgs struct {
	// File to create or overwrite; its parent directory must exist.
	Path string `json:"path"`
	// The complete new content, written as UTF-8 with no newline translation.
	Content string `json:"content"`
	// Hash from an earlier read_file; the write is refused if the file changed since. Ignored when
	// the file does not exist.
	ExpectedHash string `json:"expected_hash,omitempty"`
}

// WriteFileResult is the result of write_file.
type WriteFileResult struct {
	// Exactly what the model should see.
	Text string `json:"text"`
	// The path relative to the working directory.
	Path string `json:"path"`
	// True when the file did not exist before.
	Created bool `json:"created"`
	// Unicode code points written.
	Chars int `json:"chars"`
	// Lines written.
	Lines int `json:"lines"`
	// Hash of the file's content after the post_edit hooks (the written content when none ran);
	// absent when content hashes are off.
	Hash string `json:"hash,omitempty"`
	PostEditOutcome
	ChangeOutcome
}

// PostEditOutcome reports the post_edit hooks (host configuration) that ran after a change.
type PostEditOutcome struct {
	// The hooks that ran, in order; absent when none matched.
	PostEdit []PostEditRun `json:"post_edit,omitempty"`
	// The warning lines of the result text: hooks that failed, timed out or did not start, and a
	// file the hooks removed or replaced with something that is not a regular file. The change
	// itself stays in place.
	Warnings []string `json:"warnings,omitempty"`
}

// ChangeOutcome reports how the client answered a change's change_request, when it did not
// simply approve it.
type ChangeOutcome struct {
	// True when the client refused the change; nothing was touched.
	Cancelled bool `json:"cancelled,omitempty"`
	// The client's reason for refusing.
	CancelReason string `json:"cancel_reason,omitempty"`
	// True when the reviewer answered with an edit: what was applied is the reviewer's
	// replacement, not the model's call, and the other fields describe the replacement. Never set
	// for delete and remove_directory, which refuse edits.
	ModifiedByReviewer bool `json:"modified_by_reviewer,omitempty"`
}

// EditFileArgs are the arguments of edit_file: either old_text and new_text, or replacements.
type EditFileArgs struct {
	// File to edit.
	Path string `json:"path"`
	// Exact text to replace; must occur exactly once.
	OldText *string `json:"old_text,omitempty"`
	// Replacement text.
	NewText *string `json:"new_text,omitempty"`
	// Replacements applied in order, each to the result of the previous one; all or nothing.
	Replacements []Replacement `json:"replacements,omitempty"`
	// Replace every occurrence of old_text (or of each replacement's old_text) instead of requiring
	// exactly one; zero occurrences are still refused. Default false.
	ReplaceAll bool `json:"replace_all,omitempty"`
	// Hash from an earlier read_file; the edit is refused if the file changed since.
	ExpectedHash string `json:"expected_hash,omitempty"`
}

// Replacement is one exact-text replacement of edit_file.
type Replacement struct {
	// Exact text to replace; non-empty and matching exactly once.
	OldText string `json:"old_text"`
	// Replacement text.
	NewText string `json:"new_text"`
}

// EditFileResult is the result of edit_file.
type EditFileResult struct {
	// Exactly what the model should see.
	Text string `json:"text"`
	// The path relative to the working directory.
	Path string `json:"path"`
	// Number of occurrences replaced (more than the number of edits with replace_all).
	Replacements int `json:"replacements"`
	// Hash of the new content, after the post_edit hooks; absent when content hashes are off.
	Hash string `json:"hash,omitempty"`
	PostEditOutcome
	ChangeOutcome
}

// ListDirectoryArgs are the arguments of list_directory.
type ListDirectoryArgs struct {
	// Directory to list. Default ".".
	Path string `json:"path,omitempty"`
}

// ListDirectoryResult is the result of list_directory.
type ListDirectoryResult struct {
	// Exactly what the model should see.
	Text string `json:"text"`
	// The path relative to the working directory.
	Path string `json:"path"`
	// Entries shown, sorted by name.
	Entries []DirEntry `json:"entries"`
	// True when entries were dropped at max_list_results or at the max_output_chars budget.
	Truncated bool `json:"truncated"`
	// Entries left out, counted by reason; the text ends with a notice for each nonzero count.
	Hidden *HiddenCounts `json:"hidden,omitempty"`
}

// HiddenCounts says how many entries a walker left out and why. Entries hidden by access are
// counted, never named. Entries a walk never reached (below a hidden or denied directory) are not
// counted: the directory itself is.
type HiddenCounts struct {
	// Entries whose name starts with "." below the walk root (for find_files: those the pattern
	// would have matched, and dot directories a "**" would have entered); 0 when the path or
	// pattern names a dot entry itself.
	Dot int `json:"dot"`
	// Entries left out by denied patterns, allowed patterns or permission rules.
	Access int `json:"access"`
	// Entries left out by ignore rules (Config.IgnoreVCS): .git, .gitignore and the other ignore
	// files. Omitted when none.
	Ignored int `json:"ignored,omitempty"`
}

// DirEntry is one entry of a listing.
type DirEntry struct {
	// Path relative to the working directory; directories end in "/".
	Path string `json:"path"`
	// "file" or "directory" (of the symlink target, for links).
	Type string `json:"type" jsonschema:"enum=file,enum=directory"`
	// Size in bytes, for files.
	Size *int64 `json:"size,omitempty"`
	// Depth below the listed directory, 1 for its own children (directory_tree only).
	Depth int `json:"depth,omitempty"`
	// For files: last modification time (of the target, for a symlink), RFC 3339 in UTC, seconds.
	ModifiedAt string `json:"modified_at,omitempty"`
}

// SearchFilesArgs are the arguments of search_files.
type SearchFilesArgs struct {
	// Regular expression (RE2 syntax) matched against each line.
	Pattern string `json:"pattern"`
	// File or directory to search. Default ".".
	Path string `json:"path,omitempty"`
	// Only search files whose root-relative path matches this glob (* crosses /).
	IncludeGlob string `json:"include_glob,omitempty"`
}

// SearchFilesResult is the result of search_files.
type SearchFilesResult struct {
	// Exactly what the model should see.
	Text string `json:"text"`
	// Matching lines in path order, then line order.
	Matches []SearchMatch `json:"matches"`
	// True when matches were dropped at max_search_results or at the max_output_chars budget.
	Truncated bool `json:"truncated"`
	// Entries left out, counted by reason; the text ends with a notice for each nonzero count.
	Hidden *HiddenCounts `json:"hidden,omitempty"`
}

// SearchMatch is one matching line.
type SearchMatch struct {
	// Path relative to the working directory.
	Path string `json:"path"`
	// 1-based line number.
	Line int `json:"line"`
	// The line without its terminator; a line over 250 characters is cut to 250 around its first
	// match and ends in " [... line cut: showing chars A-B of N]".
	Text string `json:"text"`
}

// FindFilesArgs are the arguments of find_files.
type FindFilesArgs struct {
	// Glob relative to path: * and ? within one component, ** for any number of directories,
	// [...] classes, {a,b} alternatives. Absolute patterns are refused.
	Pattern string `json:"pattern"`
	// Directory to search from. Default ".".
	Path string `json:"path,omitempty"`
}

// FindFilesResult is the result of find_files.
type FindFilesResult struct {
	// Exactly what the model should see.
	Text string `json:"text"`
	// Matching paths relative to the working directory, sorted; directories end in "/".
	Paths []string `json:"paths"`
	// True when results were dropped at max_find_results or at the max_output_chars budget.
	Truncated bool `json:"truncated"`
	// Entries left out, counted by reason; the text ends with a notice for each nonzero count.
	Hidden *HiddenCounts `json:"hidden,omitempty"`
}

// ListFilesArgs are the arguments of list_files.
type ListFilesArgs struct {
	// Directory to list the files below. Default ".".
	Path string `json:"path,omitempty"`
	// Only files matching this glob, rg's dialect: without "/" it matches the file name at any
	// depth ("*.py"), with "/" the path relative to path ("src/**/*.ts"); a leading "!" lists the
	// files it does not match. A file or directory the glob matches is listed even if ignore rules
	// skip it.
	Glob string `json:"glob,omitempty"`
}

// ListFilesResult is the result of list_files.
type ListFilesResult struct {
	// Exactly what the model should see.
	Text string `json:"text"`
	// File paths relative to the working directory, sorted.
	Paths []string `json:"paths"`
	// True when files were dropped at max_find_results or at the max_output_chars budget.
	Truncated bool `json:"truncated"`
	// Entries left out, counted by reason; the text ends with a notice for each nonzero count.
	Hidden *HiddenCounts `json:"hidden,omitempty"`
}

// GrepArgs are the arguments of grep.
type GrepArgs struct {
	// Regular expression (RE2 syntax) matched against each line; with literal, plain text.
	Pattern string `json:"pattern"`
	// File or directory to search. Default ".".
	Path string `json:"path,omitempty"`
	// Only files matching this glob, as list_files' glob.
	Glob string `json:"glob,omitempty"`
	// Only files of this type, by rg's type names: "go", "py", "js", "ts", "rust", "md", ...
	FileType string `json:"file_type,omitempty"`
	// Match regardless of letter case.
	IgnoreCase bool `json:"ignore_case,omitempty"`
	// Treat pattern as literal text, not a regular expression.
	Literal bool `json:"literal,omitempty"`
	// Lines of context before and after each match, 0 to 20. Default 0.
	Context *int `json:"context,omitempty"`
}

// GrepResult is the result of grep.
type GrepResult struct {
	// Exactly what the model should see: "path:line:text" for matches, "path-line-text" for
	// context lines.
	Text string `json:"text"`
	// Matching and context lines in path order, then line order.
	Lines []GrepLine `json:"lines"`
	// True when lines were dropped at max_search_results (context lines count) or at the
	// max_output_chars budget.
	Truncated bool `json:"truncated"`
	// Entries left out, counted by reason; the text ends with a notice for each nonzero count.
	Hidden *HiddenCounts `json:"hidden,omitempty"`
}

// GrepLine is one line of a grep result.
type GrepLine struct {
	// Path relative to the working directory.
	Path string `json:"path"`
	// 1-based line number.
	Line int `json:"line"`
	// The line without its terminator; a line over 4096 characters is cut there and ends in
	// " [... omitted end of long line]".
	Text string `json:"text"`
	// True for a context line, false for a matching one.
	Context bool `json:"context,omitempty"`
}

// CreateDirectoryArgs are the arguments of create_directory.
type CreateDirectoryArgs struct {
	// Directory to create, with any missing parents.
	Path string `json:"path"`
}

// CreateDirectoryResult is the result of create_directory.
type CreateDirectoryResult struct {
	// Exactly what the model should see.
	Text string `json:"text"`
	// The path relative to the working directory.
	Path string `json:"path"`
	// False when the directory already existed.
	Created bool `json:"created"`
	ChangeOutcome
}

// FileInfoArgs are the arguments of file_info.
type FileInfoArgs struct {
	// File or directory to describe.
	Path string `json:"path"`
}

// FileInfoResult is the result of file_info.
type FileInfoResult struct {
	// Exactly what the model should see.
	Text string `json:"text"`
	// The path relative to the working directory.
	Path string `json:"path"`
	// "file", "directory", or "other" (FIFO, socket, device).
	Type string `json:"type" jsonschema:"enum=file,enum=directory,enum=other"`
	// Size in bytes.
	Size int64 `json:"size"`
	// For regular files: whether the file is binary.
	Binary *bool `json:"binary,omitempty"`
	// For text files: number of lines.
	Lines *int `json:"lines,omitempty"`
	// For regular files: content hash; absent when content hashes are off.
	Hash string `json:"hash,omitempty"`
	// For regular files: the media type read from the content, as read_file reports it for a binary
	// file; text/plain for a text file.
	MediaType string `json:"media_type,omitempty"`
	// When the path as written is a symlink: its target, root-relative or "<outside-workspace>".
	SymlinkTarget string `json:"symlink_target,omitempty"`
}

// ReadMultipleFilesArgs are the arguments of read_multiple_files.
type ReadMultipleFilesArgs struct {
	// Files to read, at most 100; each is read as read_file with default offset and limit, all
	// within one budget of max_output_chars characters.
	Paths []string `json:"paths" jsonschema:"minItems=1"`
}

// ReadMultipleFilesResult is the result of read_multiple_files; one failure does not fail the others.
type ReadMultipleFilesResult struct {
	// Exactly what the model should see.
	Text string `json:"text"`
	// The files read (or failed), in the order given.
	Files []FileReadItem `json:"files"`
	// Paths as requested that were not read because the output budget (max_output_chars) was
	// used up, in the order given; read them with read_file.
	NotRead []string `json:"not_read,omitempty"`
	// True when some paths were not read.
	Truncated bool `json:"truncated,omitempty"`
}

// FileReadItem is one file of read_multiple_files: a result or an error.
type FileReadItem struct {
	// The path as requested.
	Path   string          `json:"path"`
	Result *ReadFileResult `json:"result,omitempty"`
	Error  *ToolError      `json:"error,omitempty"`
}

// ToolError is a tool failure reported inside a result.
type ToolError struct {
	Kind    ErrorKind `json:"kind"`
	Message string    `json:"message"`
}

// DirectoryTreeArgs are the arguments of directory_tree.
type DirectoryTreeArgs struct {
	// Directory at the top of the tree. Default ".".
	Path string `json:"path,omitempty"`
	// How many levels below path to show; default unlimited.
	MaxDepth *int `json:"max_depth,omitempty" jsonschema:"minimum=1"`
}

// DirectoryTreeResult is the result of directory_tree.
type DirectoryTreeResult struct {
	// Exactly what the model should see.
	Text string `json:"text"`
	// The path relative to the working directory.
	Path string `json:"path"`
	// Entries in depth-first order, siblings sorted by name.
	Entries []DirEntry `json:"entries"`
	// True when entries were dropped at max_list_results or at the max_output_chars budget.
	Truncated bool `json:"truncated"`
	// Entries left out, counted by reason; the text ends with a notice for each nonzero count.
	Hidden *HiddenCounts `json:"hidden,omitempty"`
}

// RemoveDirectoryArgs are the arguments of remove_directory.
type RemoveDirectoryArgs struct {
	// Empty directory to remove; never the root.
	Path string `json:"path"`
}

// RemoveDirectoryResult is the result of remove_directory.
type RemoveDirectoryResult struct {
	// Exactly what the model should see.
	Text string `json:"text"`
	// The path relative to the working directory.
	Path string `json:"path"`
	ChangeOutcome
}

// DeleteArgs are the arguments of delete.
type DeleteArgs struct {
	// File, symlink (removed as a link, never followed) or, with recursive, directory to delete;
	// never the root.
	Path string `json:"path"`
	// Required to delete a directory: removes it with everything in it, but only if every entry of
	// the tree may be written (any denied or protected entry refuses the whole delete and nothing is
	// removed). At most 10000 entries per call. Default false.
	Recursive bool `json:"recursive,omitempty"`
}

// DeleteResult is the result of delete.
type DeleteResult struct {
	// Exactly what the model should see.
	Text string `json:"text"`
	// The path relative to the working directory.
	Path string `json:"path"`
	// Entries removed, the target included (0 when the change was refused).
	Removed int `json:"removed"`
	ChangeOutcome
}

// MoveFileArgs are the arguments of move_file.
type MoveFileArgs struct {
	// File, directory or symlink (moved as a link) to move.
	Source string `json:"source"`
	// New path; its parent directory must exist. Both ends are checked as writes.
	Destination string `json:"destination"`
	// Replace an existing destination file (never a directory). Default false: an existing
	// destination is refused with already_exists.
	Overwrite bool `json:"overwrite,omitempty"`
}

// MoveFileResult is the result of move_file.
type MoveFileResult struct {
	// Exactly what the model should see.
	Text string `json:"text"`
	// The source relative to the working directory.
	Source string `json:"source"`
	// The destination relative to the working directory.
	Destination string `json:"destination"`
	// True when an existing destination file was replaced.
	Overwritten bool `json:"overwritten"`
	ChangeOutcome
}
