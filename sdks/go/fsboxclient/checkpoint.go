package fsboxclient

import "context"

// The host's checkpoint methods (docs/protocol.md §4.7). They need the session's journal:
// start with Config.Journal set (&JournalConfig{} keeps it in a private per-session directory).
// They are the host's, never tools the model calls.

// CreateCheckpoint marks the present moment and returns its id for DiffCheckpoint and
// RestoreCheckpoint.
func (c *Client) CreateCheckpoint(ctx context.Context, label string) (*Checkpoint, error) {
	var r Checkpoint
	if err := c.call(ctx, methodCheckpointCreate, CheckpointCreateParams{Label: &label}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// ListCheckpoints lists the checkpoints the journal keeps, oldest first.
func (c *Client) ListCheckpoints(ctx context.Context) (*CheckpointListResult, error) {
	var r CheckpointListResult
	if err := c.call(ctx, methodCheckpointList, nil, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// DiffCheckpoint returns the unified diff of everything changed since the checkpoint id.
func (c *Client) DiffCheckpoint(ctx context.Context, id string) (*CheckpointDiffResult, error) {
	var r CheckpointDiffResult
	if err := c.call(ctx, methodCheckpointDiff, CheckpointIDParams{ID: id}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// RestoreCheckpoint puts every path changed since the checkpoint id back. Paths someone else
// changed since fsbox last wrote them are left alone and listed in NotRestored, unless force.
func (c *Client) RestoreCheckpoint(ctx context.Context, id string, force bool) (*CheckpointRestoreResult, error) {
	p := CheckpointRestoreParams{ID: id}
	if force {
		p.Force = &force
	}
	var r CheckpointRestoreResult
	if err := c.call(ctx, methodCheckpointRestore, p, &r); err != nil {
		return nil, err
	}
	return &r, nil
}
