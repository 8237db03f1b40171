// Package engine implements the fsbox file tools inside one root directory, independent of any
// transport: [New] validates a [schema.Config] and opens the root, [Engine.Call] runs one tool
// call and returns its *schema.XxxResult or an [*Error]. The server package binds it to JSON-RPC;
// nothing here knows about the wire.
//
// # Security model
//
// The rules every call follows, in order (tests cite the numbers):
//
//  1. One root. The root is resolved (symlinks included) and opened once, as an [os.Root], in
//     [New]. Every file-system operation afterwards goes through that os.Root or a sub-root of
//     it; no call ever opens a host path by name.
//  2. Resolution. A model path is resolved by the engine itself in one descriptor walk from the
//     root, component by component with fstatat, readlinkat and O_NOFOLLOW opens
//     ([Engine.resolve]; linear in depth, at most 4096 bytes and 2048 components, else
//     path_too_long): ".." is applied to the components
//     reached so far, relative link targets continue from the link's directory, absolute ones
//     must lie in the root, more than 40 links is symlink_loop. Anything leading out of the root
//     is outside_root. The result is a root-relative path with no symlink in it.
//  3. Policy on the resolved path. Access patterns and permission rules are matched against the
//     resolved path and the model's spelling (see accessPolicy for their precedence), so an
//     in-root link cannot alias a denied or protected file ("envlink -> .env" is protected).
//  4. Containment at I/O time. All I/O uses the resolved path through the os.Root, which refuses
//     any escape even if a component is swapped for a symlink after step 2.
//  5. Identity at I/O time. After opening, the descriptor is checked with fstat against the
//     Lstat of step 2 (os.SameFile); a write opens the parent directory as a sub-root and checks
//     it the same way, and checks the target again right before the rename. A swap between check
//     and use therefore fails (changed_during_request) instead of redirecting the call to another
//     file in the root.
//  6. Non-regular files never block. Files are opened O_NONBLOCK|O_NOFOLLOW and refused by fstat
//     unless regular; FIFOs, sockets and devices are never read or written (not_regular_file).
//  7. Crash-atomic writes. write_file and edit_file write a hidden temporary file in the target's
//     directory, fsync it, and rename it over the target (a create hard-links it into place, so
//     a file that appeared meanwhile is never overwritten); the directory is fsynced. A kill at
//     any point leaves the old content or the new. Mode bits are kept; a symlink in the root is
//     written through to its (contained) target and stays a symlink. A temporary file a kill
//     left behind (".fsbox-<pid>-<16 hex>.tmp") is removed by the first write of a later session
//     into its directory, only when provably stale: exact name, a regular file of this user,
//     found under the directory's lock (rule 8), its pid dead or the file an hour old
//     ([commit.Sweeper]); each directory is swept once per session.
//  8. Serialised changes. Changes to one resolved path are serialised inside one Engine, and
//     every fsbox process holds an exclusive flock on the target's directory from the content
//     check to the rename ([commit.Lock]; for a change nobody is asked about, from the read it is
//     computed from). The content guard (expected_hash, or the hash of what was announced) is
//     checked under both right before the rename, so of two writers with the same expected_hash
//     exactly one wins, in one process or in several, and no update another fsbox process
//     reported as written is lost. The flock is never held while a client decides about a
//     change request, and waiting for it honours cancellation.
//  9. No host paths in model text. Messages and results name paths as the model spelled them or
//     root-relative; an OS error's file name is never shown, an absolute symlink target outside
//     the root is "<outside-workspace>". Only events and change requests carry RootDir, which is
//     for the host. A post_edit hook's output has the root's and mounts' host directories
//     replaced by their root-relative form (hooks_scrub.go).
//  10. The kernel behind the rules (sandbox.go, engine/internal/confine). When the host chose it
//     ([ConfigureSandbox]), the first engine of the process confines the whole process with
//     Landlock right after New opened the root and mounts: from then on the kernel refuses any
//     file outside the root, the mounts and what the process needs to run, so a bug in rules
//     1-9 cannot reach it. Every post_edit hook runs under a nested ruleset of its own, started
//     from the root's descriptor (hooks.go), whatever the mode.
//
// Paths are POSIX: "\" is an ordinary character, so "C:\x" or "..\x" is a single relative name
// in the root, never a drive or a parent.
//
// What it does not protect against:
//
//   - bind mounts and other mount points inside the root, which os.Root crosses;
//   - hard links to outside files that someone created inside the root by other means (a hard
//     link is the file itself; there is nothing to resolve);
//   - special files such as /proc or device nodes mounted or linked inside the root beyond the
//     regular-file check of rule 6;
//   - metadata races by other processes: between the identity checks of rule 5 and the rename (or
//     a Mkdir of create_directory) a concurrent process can still swap a component; os.Root keeps
//     the operation inside the root, but it may land on a different in-root directory than the
//     one checked. A directory opened as a sub-root that is then moved elsewhere is followed;
//   - writers that take no lock (an editor, git, a script): rule 8 excludes fsbox processes
//     only. Such a writer's change is detected (stale_hash, changed_during_request) when it lands
//     before fsbox's content check, or, for a replacement by rename or an in-place write that
//     changes size or modification time, before the identity check right before the rename. One
//     that lands inside the remaining window (in place within the check's clock tick, or any
//     write between that last check and the rename) is overwritten by the rename and lost. Where
//     the file system refuses flock (NFS on directories) or on Windows, rule 8 holds within one
//     process only and no temporary file is swept;
//   - the cost of rule 7: a replaced file gets a new inode, so hard links to it and its owner
//     (when the server is not the owner) are not preserved, and a crash leaves a hidden
//     ".fsbox-<pid>-<16 hex>.tmp" file until a later session writes into that directory
//     (temporary files of fsbox versions without the pid, ".fsbox-<16 hex>.tmp", are never
//     swept).
//
// # Encoding
//
// One rule for every tool: bytes on disk are the truth, text is a view.
//
//   - Hashes are SHA-256 over the raw bytes (first 12 lowercase hex digits), whatever the
//     encoding; read_file, file_info, write_file, edit_file and the events agree on them.
//   - read_file and search_files decode leniently for display: every invalid UTF-8 sequence
//     (maximal subpart) becomes U+FFFD, as Python's "replace" does. Lines split on "\n" only;
//     "\r\n" stays part of the line.
//   - edit_file matches old_text against the raw bytes and keeps every byte outside the replaced
//     spans exactly, so a file that is not valid UTF-8 can still be edited around its invalid
//     bytes (pydantic-ai-harness issue #1046). An old_text containing U+FFFD that does not match
//     in such a file is invalid_encoding: the model copied a replacement character read_file
//     showed for bytes that are not text.
//   - write_file writes the UTF-8 of content, no BOM handling, no newline translation. JSON
//     strings reach Go as valid UTF-8: a lone surrogate escape (\ud800) is decoded by
//     encoding/json to U+FFFD and written as such (EF BF BD), and the reported hash is of those
//     bytes; content is fully known before anything on disk changes.
//   - A file is binary when a NUL byte occurs in its first 8192 bytes; read_file reports only its
//     size, edit_file refuses it (binary_file).
//
// # Change requests
//
// write_file, edit_file and create_directory (when it would create) go through one flow:
//
//  1. resolve and check the path (write level), and everything the change needs: target type,
//     parent, expected_hash, the replacements; a change that cannot happen is refused here and
//     never announced;
//  2. if Hooks.ChangeRequest is set, or an interrupt permission rule matches, announce the change
//     as a [schema.FileChangeRequest] with a bounded unified diff (reason "listener", or
//     "permission_rule" with the rule); an interrupt rule without a ChangeRequest hook is
//     permission_denied;
//  3. a refusal is a normal result with Cancelled set and text "['<path>' was not written:
//     <reason>]" (edited, created); a hook error is change_request_failed, which is fatal, and
//     nothing is applied;
//  4. after approval, under the path's lock, the path is resolved and checked again (a different
//     resolved path is changed_during_request, never a redirection), and the content guard is
//     checked on the file itself: the announced hash for an overwrite or an edit, "absent" for a
//     create (stale_hash otherwise); an edit never recreates a file deleted meanwhile
//     (not_found);
//  5. the change lands, then its event is delivered through Hooks.Event, before Call returns.
//     Failed, refused and denied calls emit no event.
//
// The answer may also approve the reviewer's edit (see [schema.ChangeRequestResult]): a write's
// or an edit's whole new content is written in step 4 instead of the model's, under the same lock
// and guard;
// replacement arguments are a [reviewerEdit] the approval returns ([Engine.ask] records it on the
// call), and once the handler has returned Call runs the tool again on them from step 1, every
// check included, without asking again (the reviewer's change is approved by definition), pinned to the announced content when it targets the announced path. Either way
// the result and the event say modified_by_reviewer. delete and remove_directory take no edit.
//
// # For the tool files
//
// Each tool has one line in toolTable (tools.go), through the generic adapter tool, which
// decodes arguments strictly; its handler lives in the file named after it. A change tool asks
// about its change with [Engine.ask], which settles a refusal and a reviewer's replacement
// arguments the same way for every tool. A tool resolves its path with resolveFor (or resolve plus
// one of checkRead, checkWalkRoot, checkWrite), opens files with openRegular and directories with
// openDir (both verify identity, rule 5), filters walk entries with resolveRel and canRead,
// shows paths with display/displayOf, and emits events with call.emit and Engine.base.
//
// # The rooms below
//
// What needs neither an Engine nor a call lives in engine/internal, one package per concern,
// imported only downwards (layout_test.go, rules 13-20, 24 and 25): relpath (path algebra and
// limits), ignore (the walkers' gitignore rules and their index), fserr (the error type and
// message wording), fnmatch (the access lists' pattern language), text (decoding, sniffing,
// hashes, the output budget), scan (read_file's streaming line scan and column piece, search's
// line matcher), commit (the directory lock, temporary files and their sweep), posthook
// (compiling and running post_edit hooks), and the leaves confine (the kernel's confinement) and
// textdiff (unified diffs). Each package's doc comment says what it protects against and what it
// leaves to the engine.
package engine
