// Package ignore holds the ignore rules (Config.IgnoreVCS, default on): what the walkers skip the way rg --files and
// git ls-files --exclude-standard do. Matching is go-git's gitignore package (the matcher Docker
// cagent uses; nested files by domain, negation, "**", anchoring); fsbox supplies which files are
// read, in which order, and how they are read. Precedence, lowest first (a later match wins):
//
//  1. the global excludes file: core.excludesFile of the host's ~/.gitconfig, else
//     $XDG_CONFIG_HOME/git/ignore (~/.config/git/ignore), read once when the engine starts;
//  2. .git/info/exclude of the root;
//  3. for each directory from the root down, its .gitignore, then .ignore, then .rgignore (rg's
//     order); a deeper directory's rules win over a shallower one's.
//
// Further rules:
//
//   - An entry named ".git" is always skipped.
//   - A walk rooted at an ignored path (the model named it) shows what is below it: ignore rules
//     hide entries the model did not ask for, never a path it named. The same holds for a
//     directory find_files reaches through a literal component of its pattern.
//   - Ignore files in the root are read by the engine (engine/ignore.go) through the walk's
//     directory descriptor like any entry: a symlinked or special ignore file, or one access
//     rules deny, is not read; at most MaxFileBytes of one are read. Ignore files above the root
//     are never read (nothing outside the root is). This package opens only the host's global
//     excludes file and ~/.gitconfig (GlobalExcludes), by host path, when the engine starts.
//   - .gitignore files apply whether or not the root is a git repository (rg needs a .git
//     directory for them; a workspace copied without its .git still skips its node_modules).
//
// Cost. go-git's patterns are matched one at a time, and a walk checks every entry against every
// pattern of every level: three nested 1 MiB .gitignore files over 600 files took 55.8 s in one
// list_directory. So each level is compiled into an index, the way ripgrep's
// globset groups globs by strategy: every pattern component must match some component of the
// path, so a pattern with a literal component (node_modules, vendor/**) is keyed by it in a hash
// set, one whose component has a literal prefix or suffix (*.log, [Bb]uild, tmp*) by that, and
// only the rest (*, */*.tmp) is tried for every entry. An entry is then checked against the
// patterns its own names select, highest precedence first, with go-git's Match, so the result is
// exactly go-git's (TestIgnore_IndexAgreesWithGoGit). And what is read is bounded:
//
//   - at most MaxPatternsPerFile patterns of one file and MaxPatternsPerCall of one
//     call are applied; the walk's text then ends with "[N ignore patterns not applied: ...]";
//   - every pattern an entry is checked against spends a unit of the call's work budget
//     (Load.Work, the engine's budget_work.go), which ends a walk that checks too many.
//
// Ignore rules are not access rules: read_file, write_file and the other path tools reach an
// ignored path as before, and hidden counts say how many entries they left out (hidden.ignored).
// They protect nothing; they keep vendored and generated trees out of the model's context. The
// package does not decide access, open the root or know which walk asks: the engine builds a
// Level per directory (Root, Below, Add, Finish) and asks it about each entry (EntryIgnored).
package ignore
