package schema

// The journal, checkpoints and restore (docs/protocol.md §4.7): the checkpoint/* methods are the
// host's, never the model's; undo_last_change is the one opt-in model tool over the journal.

// ToolUndoLastChange names the opt-in model tool that reverts the latest change (a journal is
// required).
const ToolUndoLastChange = "undo_last_change"

// JournalConfig turns the journal of before-images on. Host configuration for dir; a client may
// turn the journal on (a private per-session directory) and lower max_bytes.
type JournalConfig struct {
	// Host directory the journal is kept in, outside the root and every mount (refused inside or
	// around them); made 0700 when missing, kept after the session, and read again by the next
	// session of the same root, so a restore can finish after a restart. Omitted: a private
	// per-session directory under the system's temporary directory, removed at exit. The host's
	// (the --config file or --journal-dir): refused from a client of a host that fixed the
	// policy, accepted from one that configures everything (an SDK that spawned fsbox).
	Dir string `json:"dir,omitempty"`
	// Bound of the journal in bytes (contents and index). Past it the oldest checkpoints are
	// dropped, whole, with a checkpoint/dropped notification; a file bigger than the bound is
	// recorded as not restorable. Default 268435456 (256 MiB).
	MaxBytes *int64 `json:"max_bytes,omitempty"`
}

// UndoLastChangeArgs are the arguments of undo_last_change: none.
type UndoLastChangeArgs struct{}

// UndoLastChangeResult is the result of undo_last_change.
type UndoLastChangeResult struct {
	// Exactly what the model should see.
	Text string `json:"text"`
	// The paths put back, relative to the root.
	Paths []string `json:"paths"`
	ChangeOutcome
}

// CheckpointCreateParams are the params of checkpoint/create.
type CheckpointCreateParams struct {
	// A label for the host's own use (at most 200 characters).
	Label string `json:"label,omitempty"`
}

// Checkpoint describes one checkpoint of the session's journal.
type Checkpoint struct {
	// The checkpoint's id ("cp-1", "cp-2", …), for checkpoint/diff and checkpoint/restore.
	ID    string `json:"id"`
	Label string `json:"label"`
	// When it was made: RFC 3339, UTC, milliseconds.
	Created string `json:"created"`
	// Paths changed since it (checkpoint/list only).
	Changed int `json:"changed"`
}

// CheckpointListResult is the result of checkpoint/list.
type CheckpointListResult struct {
	// The checkpoints kept, oldest first.
	Checkpoints []Checkpoint `json:"checkpoints"`
	// Bytes the journal holds and its bound (journal.max_bytes).
	JournalBytes int64 `json:"journal_bytes"`
	MaxBytes     int64 `json:"max_bytes"`
}

// CheckpointIDParams name one checkpoint (checkpoint/diff).
type CheckpointIDParams struct {
	ID string `json:"id"`
}

// CheckpointDiffResult is the result of checkpoint/diff: what restoring the checkpoint would
// undo.
type CheckpointDiffResult struct {
	// Unified diffs from the checkpoint to now, one per changed file, in path order; directories
	// and files that cannot be shown (binary, too big, not restorable) as headers with a note.
	// At most max_output_chars characters.
	Diff string `json:"diff"`
	// The paths changed since the checkpoint, relative to the root.
	Paths []string `json:"paths"`
	// True when diff was cut at max_output_chars; the note at its end says so.
	Truncated bool `json:"truncated,omitempty"`
}

// CheckpointRestoreParams are the params of checkpoint/restore.
type CheckpointRestoreParams struct {
	ID string `json:"id"`
	// Overwrite paths someone else changed since fsbox last wrote them (listed in overwritten);
	// without it they are left alone and listed in not_restored.
	Force bool `json:"force,omitempty"`
}

// CheckpointRestoreResult is the result of checkpoint/restore.
type CheckpointRestoreResult struct {
	// The paths put back, relative to the root.
	Restored []string `json:"restored"`
	// Paths already as they were at the checkpoint.
	Unchanged []string `json:"unchanged"`
	// Paths someone else had changed since fsbox last wrote them, overwritten because of force.
	Overwritten []string `json:"overwritten,omitempty"`
	// Paths that were not put back, with why; empty when the restore is complete.
	NotRestored []Unrestored `json:"not_restored"`
	// True when every path is as it was at the checkpoint.
	Complete bool `json:"complete"`
}

// Unrestored is one path checkpoint/restore did not put back, and why.
type Unrestored struct {
	Path string `json:"path"`
	// "conflict" (someone else changed it; force overwrites), "not_restorable" (the journal
	// could not keep it), or the error kind of the change that failed.
	Kind   string `json:"kind"`
	Reason string `json:"reason"`
}

// CheckpointDroppedParams are the params of the checkpoint/dropped notification.
type CheckpointDroppedParams struct {
	ID     string `json:"id"`
	Label  string `json:"label"`
	Reason string `json:"reason"`
}
