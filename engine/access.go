package engine

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/fsbox/fsbox/schema"
)

// fnPattern is one allowed/denied/protected pattern in Python fnmatch's dialect:
//   - "*" matches any run of characters, "/" included; "?" matches one character, "/" included;
//   - "[abc]", "[a-z]" and "[!abc]" are classes ("^" first is a literal member, "]" first is a
//     member, an unclosed "[" is a literal, a reversed range like "[z-a]" matches nothing);
//   - everything else is literal (no "\" escapes, no "{a,b}");
//   - a pattern starting with "**/" is also tried without that prefix, so "**/secrets*" matches a
//     top-level "secrets.yaml";
//   - matching is case-sensitive and against the whole name.
//
// doublestar has a different dialect ("*" stops at "/"), which is why this is translated by hand.
type fnPattern struct {
	src   string
	re    *regexp.Regexp
	top   *regexp.Regexp // the pattern without its leading "**/", or nil
	depth bool           // also match every trailing sub-path (the default protected patterns)
	// anc and topAnc match a name when the pattern (or top) matches the name or one of its
	// ancestors (and, for a depth pattern, any trailing sub-path of those): one linear regexp
	// pass over the whole name instead of one match per ancestor and sub-path, which made a
	// path of depth d cost d³.
	anc, topAnc *regexp.Regexp
}

// ancestorRegexp turns the anchored source of translateFnmatch into one that matches a name
// whose prefix ending at a "/" or at the end matches (with depth: any part starting at the
// beginning or after a "/" and ending before a "/" or at the end).
func ancestorRegexp(anchored string, depth bool) (*regexp.Regexp, error) {
	body := strings.TrimSuffix(strings.TrimPrefix(anchored, `(?s)^`), `$`)
	start := `^`
	if depth {
		start = `(?:^|/)`
	}
	return regexp.Compile(`(?s)` + start + `(?:` + body + `)(?:/|$)`)
}

// compileFnmatch translates an fnmatch pattern to an anchored regexp.
func compileFnmatch(pat string) (*regexp.Regexp, error) {
	return regexp.Compile(translateFnmatch(pat))
}

// translateFnmatch returns the RE2 source matching what fnmatch.fnmatchcase(name, pat) matches.
func translateFnmatch(pat string) string {
	var b strings.Builder
	b.WriteString(`(?s)^`)
	rs := []rune(pat)
	for i := 0; i < len(rs); i++ {
		switch c := rs[i]; c {
		case '*':
			for i+1 < len(rs) && rs[i+1] == '*' {
				i++
			}
			b.WriteString(`.*`)
		case '?':
			b.WriteString(`.`)
		case '[':
			j := i + 1
			if j < len(rs) && rs[j] == '!' {
				j++
			}
			if j < len(rs) && rs[j] == ']' {
				j++
			}
			for j < len(rs) && rs[j] != ']' {
				j++
			}
			if j >= len(rs) {
				b.WriteString(`\[`)
				continue
			}
			b.WriteString(translateClass(rs[i+1 : j]))
			i = j
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(`$`)
	return b.String()
}

// translateClass translates the inside of an fnmatch class ("!a-z" of "[!a-z]").
func translateClass(body []rune) string {
	negate := len(body) > 0 && body[0] == '!'
	if negate {
		body = body[1:]
	}
	var items strings.Builder
	for k := 0; k < len(body); k++ {
		lo := body[k]
		if k+2 < len(body) && body[k+1] == '-' {
			hi := body[k+2]
			k += 2
			if lo > hi {
				continue // Python drops empty ranges
			}
			items.WriteString(classRune(lo) + "-" + classRune(hi))
			continue
		}
		items.WriteString(classRune(lo))
	}
	switch {
	case items.Len() == 0 && negate:
		return `.`
	case items.Len() == 0:
		return `[^\x00-\x{10FFFF}]`
	case negate:
		return "[^" + items.String() + "]"
	default:
		return "[" + items.String() + "]"
	}
}

// classRune escapes r for use inside an RE2 character class.
func classRune(r rune) string {
	if r < 0x80 && !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
		return fmt.Sprintf(`\x{%x}`, r)
	}
	return string(r)
}

// newFnPattern compiles src; depth makes it bite at any depth (see accessPolicy).
func newFnPattern(src string, depth bool) (fnPattern, error) {
	re, err := compileFnmatch(src)
	if err != nil {
		return fnPattern{}, err
	}
	p := fnPattern{src: src, re: re, depth: depth}
	if p.anc, err = ancestorRegexp(translateFnmatch(src), depth); err != nil {
		return fnPattern{}, err
	}
	if rest, ok := strings.CutPrefix(src, "**/"); ok {
		if p.top, err = compileFnmatch(rest); err != nil {
			return fnPattern{}, err
		}
		if p.topAnc, err = ancestorRegexp(translateFnmatch(rest), depth); err != nil {
			return fnPattern{}, err
		}
	}
	return p, nil
}

// match reports whether name (root-relative, no trailing "/") matches the pattern, also at any
// depth when the pattern is a depth pattern.
func (p *fnPattern) match(name string) bool {
	if p.matchOne(name) {
		return true
	}
	if p.depth {
		for i := 0; i < len(name); i++ {
			if name[i] == '/' && p.matchOne(name[i+1:]) {
				return true
			}
		}
	}
	return false
}

func (p *fnPattern) matchOne(name string) bool {
	return p.re.MatchString(name) || p.top != nil && p.top.MatchString(name)
}

// matchAncestors reports whether the pattern matches name or one of its ancestors, as match
// would on each of them.
func (p *fnPattern) matchAncestors(name string) bool {
	return p.anc.MatchString(name) || p.topAnc != nil && p.topAnc.MatchString(name)
}

// patternList is an ordered list of patterns; the first match is the one messages name.
type patternList []fnPattern

// first returns the first pattern matching any of names.
func (l patternList) first(names []string) (string, bool) {
	for i := range l {
		for _, n := range names {
			if l[i].match(n) {
				return l[i].src, true
			}
		}
	}
	return "", false
}

// firstAncestors returns the first pattern matching any of names or any of their ancestors:
// first(names plus their ancestors), in time linear in the names' length.
func (l patternList) firstAncestors(names []string) (string, bool) {
	for i := range l {
		for _, n := range names {
			if l[i].matchAncestors(n) {
				return l[i].src, true
			}
		}
	}
	return "", false
}

// permRule is a compiled config.permissions entry.
type permRule struct {
	index int
	read  bool
	write bool
	globs []string // doublestar patterns anchored at "/"
	mode  string   // "allow", "deny", "interrupt"
	src   schema.PermissionRule
}

// matches reports whether one of the rule's globs matches the root-anchored form of a
// root-relative path ("/" for the root).
func (r *permRule) matches(rel string) bool {
	name := "/"
	if rel != "." {
		name = "/" + rel
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
//  2. Protected (writes only): the first protected pattern matching the resolved path, the
//     spelling (lexical path), or any ancestor directory of either refuses the write (protected).
//     The default protected patterns (used when config.protected_patterns is omitted) also match
//     every trailing sub-path of those names, so they bite at any depth: "apps/api/.env",
//     "sub/.git/config" and "config/secrets.yaml" are protected, "apps/env.example" and
//     "docs/git/config.md" are not.
//  3. Denied (reads and writes; the only pattern gate of a walk root): the same names against
//     denied_patterns refuse the access (denied).
//  4. Allowed (reads and writes, not walk roots): when allowed_patterns is non-empty, both the
//     resolved path and the spelling must match one of them (not_allowed). Ancestors do not count.
//  5. Permission rules: the first rule whose operations include the access and one of whose
//     globs matches "/" + the resolved path or "/" + the spelling decides: allow stops the
//     checks, deny refuses (permission_denied), interrupt (writes only) asks the client through a
//     change request with reason "permission_rule". No matching rule allows.
//
// Walkers gate their root with 1, 3 and 5 and filter every entry (resolved through its
// symlinks) with 1, 3, 4 and 5 (canRead), so a listing never shows what read_file would refuse.
type accessPolicy struct {
	allowed, denied, protected patternList
	rules                      []permRule
}

// newAccessPolicy compiles the pattern lists and permission rules of cfg; an invalid entry is a
// configuration error naming the field.
func newAccessPolicy(cfg *schema.Config) (*accessPolicy, *Error) {
	p := &accessPolicy{}
	compile := func(field string, srcs []string, depth bool) (patternList, *Error) {
		var out patternList
		for i, s := range srcs {
			fp, err := newFnPattern(s, depth)
			if err != nil {
				return nil, configError("%s[%d]: invalid pattern %s: %v", field, i, pyRepr(s), err)
			}
			out = append(out, fp)
		}
		return out, nil
	}
	var err *Error
	if p.allowed, err = compile("allowed_patterns", cfg.AllowedPatterns, false); err != nil {
		return nil, err
	}
	if p.denied, err = compile("denied_patterns", cfg.DeniedPatterns, false); err != nil {
		return nil, err
	}
	if cfg.ProtectedPatterns == nil {
		p.protected, err = compile("protected_patterns", schema.DefaultProtectedPatterns, true)
	} else {
		p.protected, err = compile("protected_patterns", *cfg.ProtectedPatterns, false)
	}
	if err != nil {
		return nil, err
	}
	for i, r := range cfg.Permissions {
		pr := permRule{index: i, mode: r.Mode, src: r}
		switch r.Mode {
		case "allow", "deny", "interrupt":
		default:
			return nil, configError("permissions[%d].mode: unknown mode %s (want allow, deny or interrupt)", i, pyRepr(r.Mode))
		}
		if len(r.Operations) == 0 {
			return nil, configError("permissions[%d].operations: must name at least one of read, write", i)
		}
		for _, op := range r.Operations {
			switch op {
			case "read":
				pr.read = true
			case "write":
				pr.write = true
			default:
				return nil, configError("permissions[%d].operations: unknown operation %s (want read or write)", i, pyRepr(op))
			}
		}
		if pr.read && r.Mode == "interrupt" {
			// A change request describes a change; there is nothing to show for a read.
			return nil, configError("permissions[%d]: mode interrupt applies to write operations only", i)
		}
		if len(r.Paths) == 0 {
			return nil, configError("permissions[%d].paths: must name at least one glob", i)
		}
		for j, g := range r.Paths {
			if !strings.HasPrefix(g, "/") {
				return nil, configError("permissions[%d].paths[%d]: %s must be anchored at the root with a leading /", i, j, pyRepr(g))
			}
			if !doublestar.ValidatePattern(g) {
				return nil, configError("permissions[%d].paths[%d]: invalid glob %s", i, j, pyRepr(g))
			}
			pr.globs = append(pr.globs, g)
		}
		p.rules = append(p.rules, pr)
	}
	return p, nil
}

// configError is the *Error New returns for a bad configuration.
func configError(format string, args ...any) *Error {
	return errorf("new", "", kindInvalidArguments, format, args...)
}

// access is the kind of access being checked.
type access int

const (
	accessRead     access = iota // read a file or describe it
	accessWrite                  // create or change
	accessWalkRoot               // the root of a walk: containment, denied, permission rules
)

// names returns the names patterns are matched against for r: the resolved path and the
// spelling, deduplicated, optionally with every ancestor of each.
func (r *resolved) names(withAncestors bool) []string {
	out := []string{r.rel}
	if r.lexical != "" && r.lexical != r.rel {
		out = append(out, r.lexical)
	}
	if withAncestors {
		base := out
		out = append([]string(nil), base...)
		for _, n := range base {
			out = append(out, ancestors(n)...)
		}
	}
	return out
}

// check applies the accessPolicy rules to r. For writes it returns the interrupt rule that
// matched, if any; the caller must then announce the change with reason "permission_rule".
func (e *Engine) check(op string, r *resolved, a access) (*schema.PermissionRule, *Error) {
	p := e.policy
	withAnc := r.names(false) // firstAncestors also tries their ancestors
	if a == accessWrite {
		if pat, ok := p.protected.firstAncestors(withAnc); ok {
			return nil, refusal(op, r, kindProtected, "is protected (read-only)", fmt.Sprintf("Path '%s' is protected (matches '%s').", r.rel, pat))
		}
	}
	if pat, ok := p.denied.firstAncestors(withAnc); ok {
		return nil, refusal(op, r, kindDenied, "is denied", fmt.Sprintf("Path '%s' is denied by pattern '%s'.", r.rel, pat))
	}
	if a != accessWalkRoot && len(p.allowed) > 0 {
		for _, n := range r.names(false) {
			if _, ok := p.allowed.first([]string{n}); !ok {
				return nil, refusal(op, r, kindNotAllowed, "is not allowed", fmt.Sprintf("Path '%s' does not match any allowed pattern.", r.rel))
			}
		}
	}
	for i := range p.rules {
		rule := &p.rules[i]
		if a == accessWrite && !rule.write || a != accessWrite && !rule.read {
			continue
		}
		hit := false
		for _, n := range r.names(false) {
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
			return nil, refusal(op, r, kindPermissionDenied, "is denied by a permission rule", fmt.Sprintf("Path '%s' is denied by permission rule %d.", r.rel, rule.index+1))
		case "interrupt":
			src := rule.src
			return &src, nil
		}
		return nil, nil
	}
	return nil, nil
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

// refusal is a policy error about r. A path the model spelled directly gets the direct message,
// which names the path and the pattern or rule (as the seed does, so the model learns what to
// avoid). A path reached through a symlink gets only the model's own spelling and what was
// refused: neither the link's target (which may be a denied file's name) nor the host's pattern
// or rule, and data.path is the spelled (lexical) path, not the resolved one.
func refusal(op string, r *resolved, kind schema.ErrorKind, what, direct string) *Error {
	if r.lexical == r.rel {
		return errorf(op, r.rel, kind, "%s", direct)
	}
	return errorf(op, r.lexical, kind, "Path %s %s.", pyRepr(r.spelling), what)
}

// checkWrite applies the write-level rules (1–5) to r and returns the interrupt rule that
// matched, if any.
func (e *Engine) checkWrite(op string, r *resolved) (*schema.PermissionRule, *Error) {
	return e.check(op, r, accessWrite)
}

// canRead reports whether a walk entry may be shown: r is the entry resolved through its
// symlinks (resolveRel of its root-relative walk path), checked with the read-level rules.
// Walkers call it for every entry, after skipping dot-entries and entries that do not resolve.
func (e *Engine) canRead(r *resolved) bool {
	_, err := e.check("", r, accessRead)
	return err == nil
}

// resolveFor resolves the model's path p and applies the access rules of a to it; for writes it
// also returns the interrupt rule that matched, if any. Tools call it first.
func (e *Engine) resolveFor(op, p string, a access) (*resolved, *schema.PermissionRule, *Error) {
	r, err := e.resolve(op, p)
	if err != nil {
		return nil, nil, err
	}
	rule, err := e.check(op, r, a)
	if err != nil {
		return nil, nil, err
	}
	return r, rule, nil
}
