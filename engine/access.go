package engine

import (
	"fmt"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/fsbox/fsbox/engine/internal/fnmatch"
	"github.com/fsbox/fsbox/engine/internal/fserr"
	"github.com/fsbox/fsbox/engine/internal/relpath"
	"github.com/fsbox/fsbox/schema"
)

// permRule is a compiled config.permissions entry.
type permRule struct {
	index int
	read  bool
	write bool
	globs []string // doublestar patterns anchored at "/", lowered when fold
	mode  string   // "allow", "deny", "interrupt"
	fold  bool     // match regardless of letter case (deny and interrupt rules)
	src   schema.PermissionRule
}

// matches reports whether one of the rule's globs matches the root-anchored form of a
// root-relative path ("/" for the root).
func (r *permRule) matches(rel string) bool {
	name := "/"
	if rel != "." {
		name = "/" + rel
	}
	if r.fold {
		name = fnmatch.FoldCase(name)
	}
	for _, g := range r.globs {
		if ok, _ := doublestar.Match(g, name); ok {
			return true
		}
	}
	return false
}

// accessPolicy decides which resolved paths a call may touch. The rules, in the order they apply
// (tests cite the numbers):
//
//  1. Containment: resolve already refused anything outside the root (outside_root).
//  2. Protected (writes only): first the git rule (execprotect.go, unless the host set
//     allow_git_dirs): a .git entry at any depth in the resolved path or the spelling, in any
//     spelling git or a file system takes for it, refuses the write (protected). Then the first
//     protected pattern matching the resolved path, the spelling (lexical path), or any ancestor
//     directory of either refuses it. The default protected patterns (used when
//     config.protected_patterns is omitted) also match every trailing sub-path of those names,
//     so they bite at any depth: "apps/.envrc", "web/.vscode/tasks.json" and
//     "config/secrets.yaml" are protected, "apps/envrc" and "docs/git/config.md" are not.
//     checkWrite adds the git rule's checks that ask the file system: no git directory above
//     the path, and no member created that would complete one.
//  3. Denied (reads and writes; the only pattern gate of a walk root): the same names against
//     denied_patterns refuse the access (denied). The defaults (schema.DefaultDeniedPatterns, used
//     when config.denied_patterns is omitted) bite at any depth like the default protected ones:
//     "apps/api/.env", "home/.ssh/config" and "certs/server.pem" are denied,
//     "apps/api/.env.example" is not.
//  4. Allowed (reads and writes, not walk roots): when allowed_patterns is non-empty, both the
//     resolved path and the spelling must match one of them (not_allowed). Ancestors do not count.
//  5. Permission rules: the first rule whose operations include the access and one of whose
//     globs matches "/" + the resolved path or "/" + the spelling decides: allow stops the
//     checks, deny refuses (permission_denied), interrupt (writes only) asks the client through a
//     change request with reason "permission_rule". No matching rule allows.
//
// In every list an entry "!pattern" is an exception: a name it matches is not matched by that
// list (fnmatch.List.First).
//
// Case: denied and protected patterns (exceptions included) and the globs of deny and interrupt
// rules match regardless of letter case (both sides lowered with foldCase), so a refusal
// never depends on how the model cases a name: on a case-insensitive filesystem (APFS, NTFS,
// casefolded ext4) ".ENV" is the file ".env", and it is refused like it. Allowed patterns and
// allow rules match case exactly: they grant access, and an exact grant can only refuse more.
// This does not protect against other aliases a filesystem may fold (Unicode normalisation,
// NTFS short names).
//
// Walkers gate their root with 1, 3 and 5 and filter every entry (resolved through its
// symlinks) with 1, 3, 4 and 5 (canRead), so a listing never shows what read_file would refuse.
//
// An engine has one policy per layer (Engine.policies): the session's configuration, and below
// it, when the host fixed the policy, the host's (see Options.Host). Every layer must allow an
// access; a layer whose rules say interrupt makes the write ask. A layer matches its patterns
// and rules against paths relative to its own root (prefix), so a client that narrowed the root
// cannot step out of a host pattern by renaming the paths it matches.
type accessPolicy struct {
	allowed, denied, protected fnmatch.List
	// deniedIx and protectedIx answer first for denied and protected, which walkers ask for
	// every entry.
	deniedIx, protectedIx *fnmatch.Index
	rules                 []permRule
	// prefix is the session root relative to this layer's root ("" when they are the same).
	prefix string
}

// newAccessPolicy compiles the pattern lists and permission rules of cfg; an invalid entry is a
// configuration error naming the field. With defaults, an omitted denied or protected list is
// the default one; without (a session layered over the host's policy), it is empty.
func newAccessPolicy(cfg *schema.Config, defaults bool, prefix string) (*accessPolicy, *Error) {
	p := &accessPolicy{prefix: prefix}
	compile := func(field string, srcs []string, depth, fold bool) (fnmatch.List, *Error) {
		var out fnmatch.List
		for i, s := range srcs {
			fp, err := fnmatch.NewCase(s, depth, fold)
			if err != nil {
				return nil, fserr.Config("%s[%d]: invalid pattern %s: %v", field, i, fserr.PyRepr(s), err)
			}
			out = append(out, fp)
		}
		return out, nil
	}
	var err *Error
	if p.allowed, err = compile("allowed_patterns", cfg.AllowedPatterns, false, false); err != nil {
		return nil, err
	}
	for _, l := range []struct {
		field string
		dst   *fnmatch.List
		set   *[]string
		def   []string
	}{
		{"denied_patterns", &p.denied, cfg.DeniedPatterns, schema.DefaultDeniedPatterns},
		{"protected_patterns", &p.protected, cfg.ProtectedPatterns, schema.DefaultProtectedPatterns},
	} {
		switch {
		case l.set != nil:
			*l.dst, err = compile(l.field, *l.set, false, true)
		case defaults:
			*l.dst, err = compile(l.field, l.def, true, true)
		}
		if err != nil {
			return nil, err
		}
	}
	for i, r := range cfg.Permissions {
		pr, err := compileRule(i, r)
		if err != nil {
			return nil, err
		}
		p.rules = append(p.rules, pr)
	}
	p.deniedIx, p.protectedIx = fnmatch.NewIndex(p.denied), fnmatch.NewIndex(p.protected)
	return p, nil
}

// compileRule checks and compiles config.permissions[i]: a known mode, at least one known
// operation (interrupt for writes only), and at least one valid doublestar glob anchored at the
// root, lowered for a rule that folds case (deny and interrupt).
func compileRule(i int, r schema.PermissionRule) (permRule, *Error) {
	pr := permRule{index: i, mode: r.Mode, src: r, fold: r.Mode != "allow"}
	switch r.Mode {
	case "allow", "deny", "interrupt":
	default:
		return permRule{}, fserr.Config("permissions[%d].mode: unknown mode %s (want allow, deny or interrupt)", i, fserr.PyRepr(r.Mode))
	}
	if len(r.Operations) == 0 {
		return permRule{}, fserr.Config("permissions[%d].operations: must name at least one of read, write", i)
	}
	for _, op := range r.Operations {
		switch op {
		case "read":
			pr.read = true
		case "write":
			pr.write = true
		default:
			return permRule{}, fserr.Config("permissions[%d].operations: unknown operation %s (want read or write)", i, fserr.PyRepr(op))
		}
	}
	if pr.read && r.Mode == "interrupt" {
		// A change request describes a change; there is nothing to show for a read.
		return permRule{}, fserr.Config("permissions[%d]: mode interrupt applies to write operations only", i)
	}
	if len(r.Paths) == 0 {
		return permRule{}, fserr.Config("permissions[%d].paths: must name at least one glob", i)
	}
	for j, g := range r.Paths {
		if !strings.HasPrefix(g, "/") {
			return permRule{}, fserr.Config("permissions[%d].paths[%d]: %s must be anchored at the root with a leading /", i, j, fserr.PyRepr(g))
		}
		if !doublestar.ValidatePattern(g) {
			return permRule{}, fserr.Config("permissions[%d].paths[%d]: invalid glob %s", i, j, fserr.PyRepr(g))
		}
		if pr.fold {
			g = fnmatch.FoldCase(g)
		}
		pr.globs = append(pr.globs, g)
	}
	return pr, nil
}

// access is the kind of access being checked.
type access int

const (
	accessRead     access = iota // read a file or describe it
	accessWrite                  // create or change
	accessWalkRoot               // the root of a walk: containment, denied, permission rules
)

// names returns the names the layer p matches r against: the resolved path and the spelling,
// deduplicated and relative to p's root, optionally with every ancestor of each.
func (p *accessPolicy) names(r *resolved, withAncestors bool) []string {
	out := p.ownNames(nil, r)
	if withAncestors {
		base := out
		out = append([]string(nil), base...)
		for _, n := range base {
			out = append(out, relpath.Ancestors(n)...)
		}
	}
	return out
}

// ownNames appends to buf the names of r itself (no ancestors): its resolved path and, when it
// differs, its spelling, relative to p's root.
func (p *accessPolicy) ownNames(buf []string, r *resolved) []string {
	buf = append(buf, p.frame(r.rel))
	if r.lexical != "" && r.lexical != r.rel {
		buf = append(buf, p.frame(r.lexical))
	}
	return buf
}

// frame turns a session-root-relative name into one relative to the layer's root.
func (p *accessPolicy) frame(rel string) string {
	switch {
	case p.prefix == "":
		return rel
	case rel == ".":
		return p.prefix
	}
	return p.prefix + "/" + rel
}

// check applies the accessPolicy rules of every layer to r. For writes it returns the interrupt
// rule that matched, if any; the caller must then announce the change with reason
// "permission_rule".
func (e *Engine) check(op string, r *resolved, a access) (*schema.PermissionRule, *Error) {
	if a == accessWrite && !e.allowGitDirs {
		// The git rule's names (execprotect.go) come before every layer's patterns: a .git
		// entry is protected whatever protected_patterns says.
		if err := e.checkGitName(op, r); err != nil {
			return nil, err
		}
	}
	var interrupt *schema.PermissionRule
	for _, p := range e.policies {
		rule, err := p.check(op, r, a)
		if err != nil {
			return nil, err
		}
		if interrupt == nil {
			interrupt = rule
		}
	}
	// Below a read-only mount nothing changes, whatever the layers allow (checked after them, so
	// a denied path answers denied as everywhere else).
	if a == accessWrite && e.mounts != nil {
		if err := e.checkReadOnlyMount(op, r); err != nil {
			return nil, err
		}
	}
	return interrupt, nil
}

// check applies one layer's rules to r.
func (p *accessPolicy) check(op string, r *resolved, a access) (*schema.PermissionRule, *Error) {
	return p.checkNames(op, r, a, p.names(r, true))
}

// checkNames is check with the names the denied and protected patterns see: r's names and their
// ancestors, or (checkEntry) r's names alone when the ancestors are known to pass.
func (p *accessPolicy) checkNames(op string, r *resolved, a access, withAnc []string) (*schema.PermissionRule, *Error) {
	if a == accessWrite {
		if pat, ok := p.protectedIx.First(withAnc); ok {
			return nil, refusal(op, r, schema.KindProtected, "is protected (read-only)", fmt.Sprintf("Path '%s' is protected (matches '%s').", r.rel, pat))
		}
	}
	if pat, ok := p.deniedIx.First(withAnc); ok {
		return nil, refusal(op, r, schema.KindDenied, "is denied", fmt.Sprintf("Path '%s' is denied by pattern '%s'.", r.rel, pat))
	}
	if a != accessWalkRoot && len(p.allowed) > 0 {
		for _, n := range p.names(r, false) {
			if _, ok := p.allowed.First([]string{n}); !ok {
				return nil, refusal(op, r, schema.KindNotAllowed, "is not allowed", fmt.Sprintf("Path '%s' does not match any allowed pattern.", r.rel))
			}
		}
	}
	for i := range p.rules {
		rule := &p.rules[i]
		if a == accessWrite && !rule.write || a != accessWrite && !rule.read {
			continue
		}
		hit := false
		for _, n := range p.names(r, false) {
			if rule.matches(n) {
				hit = true
				break
			}
		}
		if !hit {
			continue
		}
		switch rule.mode {
		case "deny":
			return nil, refusal(op, r, schema.KindPermissionDenied, "is denied by a permission rule", fmt.Sprintf("Path '%s' is denied by permission rule %d.", r.rel, rule.index+1))
		case "interrupt":
			src := rule.src
			return &src, nil
		}
		return nil, nil
	}
	return nil, nil
}

// refusal is a policy error about r. A path the model spelled directly gets the direct message,
// which names the path and the pattern or rule (as pydantic-ai-harness does, so the model learns what to
// avoid). A path reached through a symlink gets only the model's own spelling and what was
// refused: neither the link's target (which may be a denied file's name) nor the host's pattern
// or rule, and data.path is the spelled (lexical) path, not the resolved one.
func refusal(op string, r *resolved, kind schema.ErrorKind, what, direct string) *Error {
	if r.lexical == r.rel {
		return fserr.Errorf(op, r.rel, kind, "%s", direct)
	}
	return fserr.Errorf(op, r.lexical, kind, "Path %s %s.", fserr.PyRepr(r.spelling), what)
}

// checkRead applies the read-level rules (1, 3, 4, 5) to r: for read_file, file_info and the
// entries of read_multiple_files.
func (e *Engine) checkRead(op string, r *resolved) *Error {
	_, err := e.check(op, r, accessRead)
	return err
}

// checkWalkRoot applies the walk-root rules (1, 3, 5) to r: for the path argument of
// list_directory, directory_tree, search_files and find_files.
func (e *Engine) checkWalkRoot(op string, r *resolved) *Error {
	_, err := e.check(op, r, accessWalkRoot)
	return err
}

// checkWrite applies the write-level rules (1–5) and the git rule (execprotect.go: .git names,
// and no git directory above r) to r and returns the interrupt rule that matched, if any.
func (e *Engine) checkWrite(op string, r *resolved) (*schema.PermissionRule, *Error) {
	rule, err := e.check(op, r, accessWrite)
	if err == nil && !e.allowGitDirs {
		err = e.checkGitDirAbove(op, r)
		if err == nil {
			err = e.checkGitDirCreate(op, r)
		}
	}
	if err != nil {
		return nil, err
	}
	return rule, nil
}

// canRead reports whether a walk entry may be shown: r is the entry resolved through its
// symlinks (resolveRel of its root-relative walk path), checked with the read-level rules.
// Walkers call it for every entry, after skipping dot-entries and entries that do not resolve.
func (e *Engine) canRead(r *resolved) bool {
	_, err := e.check("", r, accessRead)
	return err == nil
}

// canReadEntry is canRead for a walk entry that is not a symlink, in a directory the walk
// admitted: its ancestors are the walk's directories, each already checked (the walk root by
// checkWalkRoot, every directory below it by canRead or canReadEntry before it was descended), so
// a denied pattern can only match the entry's own names and those alone are matched.
func (e *Engine) canReadEntry(r *resolved) bool {
	var buf [2]string
	for _, p := range e.policies {
		if _, err := p.checkNames("", r, accessRead, p.ownNames(buf[:0], r)); err != nil {
			return false
		}
	}
	return true
}

// resolveFor resolves the model's path p and applies the access rules of a to it; for writes it
// also returns the interrupt rule that matched, if any. Tools call it first.
func (e *Engine) resolveFor(op, p string, a access) (*resolved, *schema.PermissionRule, *Error) {
	r, err := e.resolve(op, p)
	if err != nil {
		return nil, nil, err
	}
	var rule *schema.PermissionRule
	if a == accessWrite {
		rule, err = e.checkWrite(op, r)
	} else {
		rule, err = e.check(op, r, a)
	}
	if err != nil {
		return nil, nil, err
	}
	return r, rule, nil
}
