// Package fnmatch is the pattern language of the allowed, denied and protected lists and of
// search_files' include_glob: Python fnmatch's dialect, where "*" and "?" cross "/" (see
// Pattern), with "!" exceptions, "**/" prefixes that also match at the top, optional case
// folding (FoldCase, as case-insensitive file systems fold), and an Index that answers a list's
// first match without trying every pattern on every name, as walkers ask for every entry.
//
// It protects against a pattern costing more than linear time: patterns are translated to Go
// regular expressions (RE2, linear in the name) or matched as plain strings, never backtracked.
// It does not bound a pattern's length or count; the configuration that supplies the lists is
// validated by the engine, and the model's own globs and regexes (find_files, grep, list_files)
// use other dialects whose cost the engine bounds separately (engine/budget_pattern.go). It does
// not decide what a match means: allow, deny or protect is the engine's access policy.
package fnmatch
