package schema

// The argument and result types of the two provider-shaped edit tools: apply_patch (OpenAI's V4A
// patch format) and str_replace_based_edit_tool (Anthropic's text editor, text_editor_20250728).
// Their argument names are the providers' own, so a provider tool call passes straight through.

// ApplyPatchArgs are the arguments of apply_patch: exactly one of input (a whole V4A patch, the
// Codex form) and operation (one file operation, the Responses API form).
type ApplyPatchArgs struct {
	// A whole V4A patch, from "*** Begin Patch" to "*** End Patch", with any number of
	// "*** Add File:", "*** Delete File:" and "*** Update File:" sections (an update may carry
	// "*** Move to:").
	Input *string `json:"input,omitempty"`
	// One file operation, as the Responses API's apply_patch_call carries it.
	Operation *ApplyPatchOperation `json:"operation,omitempty"`
}

// ApplyPatchOperation is one file operation of the Responses API's apply_patch tool.
type ApplyPatchOperation struct {
	// "create_file", "update_file" or "delete_file".
	Type string `json:"type" jsonschema:"enum=create_file,enum=update_file,enum=delete_file"`
	// The file, relative to the working directory.
	Path string `json:"path"`
	// The V4A diff: for create_file every line of the new file prefixed with "+"; for
	// update_file the hunks ("@@" anchors, " " context, "-" and "+" lines); absent for
	// delete_file.
	Diff *string `json:"diff,omitempty"`
	// update_file: the file's new path, as "*** Move to:" in the envelope (the OpenAI Agents SDK
	// passes it along); absent for the other types.
	MoveTo *string `json:"move_to,omitempty"`
}

// ApplyPatchResult is the result of apply_patch.
type ApplyPatchResult struct {
	// Exactly what the model should see.
	Text string `json:"text"`
	// The files changed, in the patch's order; empty when the change was refused.
	Files []PatchedFile `json:"files"`
	PostEditOutcome
	ChangeOutcome
}

// PatchedFile is one file an apply_patch call changed.
type PatchedFile struct {
	// The path relative to the working directory (the new path of a moved file).
	Path string `json:"path"`
	// "add", "update" or "delete".
	Operation string `json:"operation" jsonschema:"enum=add,enum=update,enum=delete"`
	// For a moved file, the path it was moved from.
	MovedFrom string `json:"moved_from,omitempty"`
	// Hash of the new content, after the post_edit hooks; absent for a delete and when content
	// hashes are off.
	Hash string `json:"hash,omitempty"`
}

// StrReplaceBasedEditToolArgs are the arguments of str_replace_based_edit_tool, Anthropic's
// text editor commands and argument names.
type StrReplaceBasedEditToolArgs struct {
	// "view", "create", "str_replace" or "insert".
	Command string `json:"command" jsonschema:"enum=view,enum=create,enum=str_replace,enum=insert"`
	// The file or directory, relative to the working directory.
	Path string `json:"path"`
	// view of a file: [first, last] 1-based lines, last -1 for the end of the file.
	ViewRange []int `json:"view_range,omitempty"`
	// create: the new file's content.
	FileText *string `json:"file_text,omitempty"`
	// str_replace: the exact text to replace; must occur exactly once.
	OldStr *string `json:"old_str,omitempty"`
	// str_replace: the replacement text (absent: delete old_str).
	NewStr *string `json:"new_str,omitempty"`
	// insert: the line after which to insert, 0 for the top of the file.
	InsertLine *int `json:"insert_line,omitempty"`
	// insert: the text to insert.
	InsertText *string `json:"insert_text,omitempty"`
}

// StrReplaceBasedEditToolResult is the result of str_replace_based_edit_tool.
type StrReplaceBasedEditToolResult struct {
	// Exactly what the model should see.
	Text string `json:"text"`
	// The path relative to the working directory.
	Path string `json:"path"`
	// Hash of the file's content after the command (after post_edit hooks for a change); absent
	// for a directory and when content hashes are off.
	Hash string `json:"hash,omitempty"`
	// view: true when the view was cut at the read window; the text says how to continue.
	Truncated bool `json:"truncated,omitempty"`
	PostEditOutcome
	ChangeOutcome
}
