// Package posthook compiles and runs the host's post_edit hooks: Compile validates the
// configuration (a doublestar glob, a non-empty argument vector, positive timeouts), Hook.Matches
// and Hook.Argv pick a hook for a changed file and put "./<path>" in place of "${file}", and
// Runner.Run starts one hook confined by the kernel (engine/internal/confine), in a process
// group of its own, with a timeout, keeping at most OutputBytes of its output with host paths
// scrubbed; Warning words a failed run for the result.
//
// It protects against shell injection through file names (no shell: one argument vector),
// against a hang, a flood or an orphan (timeout, process-group kill, bounded output, the
// launcher's parent-death signal) and, with confinement, against a hook led outside the root by a
// swapped directory: it may change only what Runner.Write lists. It does not decide which hooks
// may run (the host's configuration alone supplies them; the engine refuses them from a client)
// nor re-read the file after them, and it does not hold a hook to fsbox's access rules inside the
// root. The engine's hooks.go gives the whole account.
package posthook
