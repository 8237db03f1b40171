package commit

// TestHookCommit, when set by a test, runs at named points of the engine's commitFile
// ("open-parent", "before-rename") and apply_patch ("patch-next-file", "patch-move-written") so
// tests can swap files at exactly the moment a race would, and when a change starts waiting for
// a directory lock another holds ("lock-wait"). Tests only; nil otherwise.
var TestHookCommit func(stage string)

// Hook runs TestHookCommit at the named stage, when a test set it.
func Hook(stage string) {
	if TestHookCommit != nil {
		TestHookCommit(stage)
	}
}
