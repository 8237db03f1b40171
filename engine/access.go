package engine

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/fsbox/fsbox/engine/internal/relpath"
	"github.com/fsbox/fsbox/schema"
)

// fnPattern is one allowed/denied/protected pattern in Python fnmatch's dialect:
//   - "*" matches any run of characters, "/" included; "?" matches one character, "/" included;
//   - "[abc]", "[a-z]" and "[!abc]" are classes ("^" first is a literal member, "]" first is a
//     member, an unclosed "[" is a literal, a reversed range like "[z-a]" matches nothing);
//   - everything else is literal (no "\" escapes, no "{a,b}");
//   - a pattern starting with "**/" is also tried without that prefix, so "**/secrets*" matches a
//     top-level "secrets.yaml";
//   - a pattern starting with "!" is an exception (see patternList.first), not a match;
//   - matching is against the whole name; it is case-sensitive unless the pattern folds case
//     (denied and protected patterns do, see accessPolicy): then the pattern and the name are
//     both lowered with foldCase before matching, so ".ENV" matches ".env" and "[A-Z]"
//     matches what "[a-z]" matches (a class range that spans letters and non-letters, like
//     "[Z-a]", is lowered too and may match differently).
//
// doublestar has a different dialect ("*" stops at "/"), which is why this is translated by hand.
type fnPattern struct {
	src    string
	re     *regexp.Regexp
	top    *regexp.Regexp // the pattern without its leading "**/", or nil
	except bool           // an exception ("!…"): names it matches are not matched by the list
	// Most patterns (every default one but **/secrets*) are a literal, "*literal" or
	// "literal*"; those are matched with string operations, equivalent to re (FuzzFnmatch), since
	// walkers match every entry against every pattern.
	shape    shape
	lit      string
	slashLit string // "/" + lit
	depth    bool
	fold     bool // case-insensitive: lit and re are lowered, and names are lowered before matching
}

// shape is the form of a pattern that string operations can match.
type shape int

const (
	shapeRegexp shape = iota // anything else: use re (and top)
	shapeExact               // "lit"
	shapeSuffix              // "*lit"
	shapePrefix              // "lit*"
)

// shapeOf classifies a pattern body; lit is its literal part.
func shapeOf(body string) (shape, string) {
	if strings.HasPrefix(body, "**/") {
		return shapeRegexp, ""
	}
	meta := func(s string) bool { return strings.ContainsAny(s, "*?[") }
	switch {
	case !meta(body):
		return shapeExact, body
	case strings.HasPrefix(body, "*") && !meta(strings.TrimLeft(body, "*")):
		return shapeSuffix, strings.TrimLeft(body, "*")
	case strings.HasSuffix(body, "*") && !meta(strings.TrimRight(body, "*")):
		return shapePrefix, strings.TrimRight(body, "*")
	}
	return shapeRegexp, ""
}

// compileFnmatch translates an fnmatch pattern to an anchored regexp; with depth it also matches
// every trailing sub-path of a name (what follows any "/").
func compileFnmatch(pat string, depth bool) (*regexp.Regexp, error) {
	src := translateFnmatch(pat)
	if depth {
		src = `(?s)^(?:.*/)?` + strings.TrimPrefix(src, `(?s)^`)
	}
	return regexp.Compile(src)
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

// newFnPattern compiles src, matching case exactly; depth makes it bite at any depth (see
// accessPolicy). A leading "!" makes it an exception.
func newFnPattern(src string, depth bool) (fnPattern, error) {
	return newFnPatternCase(src, depth, false)
}

// newFnPatternCase is newFnPattern that, with fold, matches regardless of letter case.
func newFnPatternCase(src string, depth, fold bool) (fnPattern, error) {
	body, except := strings.CutPrefix(src, "!")
	if fold {
		body = foldCase(body)
	}
	re, err := compileFnmatch(body, depth)
	if err != nil {
		return fnPattern{}, err
	}
	p := fnPattern{src: src, re: re, except: except, depth: depth, fold: fold}
	p.shape, p.lit = shapeOf(body)
	p.slashLit = "/" + p.lit
	if rest, ok := strings.CutPrefix(body, "**/"); ok {
		if p.top, err = compileFnmatch(rest, depth); err != nil {
			return fnPattern{}, err
		}
	}
	return p, nil
}

// match reports whether name (root-relative, no trailing "/") matches the pattern, also at any
// depth when the pattern is a depth pattern.
func (p *fnPattern) match(name string) bool {
	if p.fold {
		name = foldCase(name)
	}
	return p.matchFolded(name)
}

// matchFolded is match for a name already lowered when the pattern folds case.
func (p *fnPattern) matchFolded(name string) bool {
	switch p.shape {
	case shapeExact:
		return name == p.lit || p.depth && strings.HasSuffix(name, p.slashLit)
	case shapeSuffix:
		return strings.HasSuffix(name, p.lit)
	case shapePrefix:
		return strings.HasPrefix(name, p.lit) || p.depth && strings.Contains(name, p.slashLit)
	}
	return p.re.MatchString(name) || p.top != nil && p.top.MatchString(name)
}

// patternList is an ordered list of patterns; the first match is the one messages name.
type patternList []fnPattern

// first returns the first pattern matching one of names that no exception of the list matches.
// An exception thus clears a name, not a path: with ".ssh" and "!.ssh/known_hosts" listed,
// ".ssh/known_hosts" is still matched through its ancestor ".ssh".
//
// The patterns of a list all fold case or none does (newAccessPolicy), so names are lowered
// once here, not once per pattern.
func (l patternList) first(names []string) (string, bool) {
	if len(l) > 0 && l[0].fold {
		names = lowerAll(names)
	}
	for i := range l {
		if l[i].except {
			continue
		}
		for _, n := range names {
			if l[i].matchFolded(n) && !l.excepted(n) {
				return l[i].src, true
			}
		}
	}
	return "", false
}

// patternIndex answers first for a list without trying every pattern on every name, as walkers
// ask it for every entry: a literal depth pattern without "/" (".env", "id_rsa") can only match
// a name whose last component is that literal, and "*.ext" only a name whose last "." starts
// that suffix, so those are looked up by the name's base and extension; the rest are tried in
// order. The answer is the one first gives (TestPatternIndex_MatchesFirst).
type patternIndex struct {
	l    patternList
	base map[string]int // literal depth patterns without "/": literal → first index
	ext  map[string]int // "*.x" patterns whose suffix has one "." (at its start) and no "/": suffix → first index
	rest []int          // every other pattern that is not an exception, in order
}

func newPatternIndex(l patternList) *patternIndex {
	ix := &patternIndex{l: l, base: map[string]int{}, ext: map[string]int{}}
	for i := range l {
		p := &l[i]
		switch {
		case p.except:
		case p.shape == shapeExact && p.depth && !strings.Contains(p.lit, "/"):
			if _, dup := ix.base[p.lit]; !dup {
				ix.base[p.lit] = i
			}
		case p.shape == shapeSuffix && strings.LastIndexByte(p.lit, '.') == 0 && !strings.Contains(p.lit, "/"):
			if _, dup := ix.ext[p.lit]; !dup {
				ix.ext[p.lit] = i
			}
		default:
			ix.rest = append(ix.rest, i)
		}
	}
	return ix
}

// first is patternList.first.
func (ix *patternIndex) first(names []string) (string, bool) {
	l := ix.l
	if len(l) == 0 {
		return "", false
	}
	if l[0].fold {
		names = lowerAll(names)
	}
	best := -1
	try := func(i int, n string) {
		if (best < 0 || i < best) && l[i].matchFolded(n) && !l.excepted(n) {
			best = i
		}
	}
	for _, n := range names {
		base := n[strings.LastIndexByte(n, '/')+1:]
		if i, ok := ix.base[base]; ok {
			try(i, n)
		}
		if dot := strings.LastIndexByte(n, '.'); dot >= 0 {
			if i, ok := ix.ext[n[dot:]]; ok {
				try(i, n)
			}
		}
		for _, i := range ix.rest {
			if best >= 0 && i >= best {
				break
			}
			if l[i].matchFolded(n) && !l.excepted(n) {
				best = i
				break
			}
		}
	}
	if best < 0 {
		return "", false
	}
	return l[best].src, true
}

// excepted reports whether an exception of the list matches name (lowered if the list folds).
func (l patternList) excepted(name string) bool {
	for i := range l {
		if l[i].except && l[i].matchFolded(name) {
			return true
		}
	}
	return false
}

// foldCase lowers s for case-insensitive matching: strings.ToLower for ASCII, and for other
// text each rune upper-cased first, so that runes whose capital is an ASCII letter fold with it
// as case-insensitive file systems fold them (the long s "ſ" is "s", the dotless "ı" is "i",
// the Kelvin sign "k", the final sigma "σ"). Patterns and names go through the same function.
func foldCase(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return strings.Map(func(r rune) rune { return unicode.ToLower(unicode.ToUpper(r)) }, s)
		}
	}
	return strings.ToLower(s)
}

// lowerAll returns names lowered, names itself when none has an upper-case letter.
func lowerAll(names []string) []string {
	for i, n := range names {
		if lo := foldCase(n); lo != n {
			out := append([]string(nil), names...)
			out[i] = lo
			for j := i + 1; j < len(out); j++ {
				out[j] = foldCase(out[j])
			}
			return out
		}
	}
	return names
}

// matchers reports whether the list has a pattern that can match (an exception alone cannot).
func (l patternList) matchers() bool {
	for i := range l {
		if !l[i].except {
			return true
		}
	}
	return false
}

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
		name = foldCase(name)
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
// list (patternList.first).
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
	allowed, denied, protected patternList
	// deniedIx and protectedIx answer first for denied and protected, which walkers ask for
	// every entry.
	deniedIx, protectedIx *patternIndex
	rules                 []permRule
	// prefix is the session root relative to this layer's root ("" when they are the same).
	prefix string
}

// newAccessPolicy compiles the pattern lists and permission rules of cfg; an invalid entry is a
// configuration error naming the field. With defaults, an omitted denied or protected list is
// the default one; without (a session layered over the host's policy), it is empty.
func newAccessPolicy(cfg *schema.Config, defaults bool, prefix string) (*accessPolicy, *Error) {
	p := &accessPolicy{prefix: prefix}
	compile := func(field string, srcs []string, depth, fold bool) (patternList, *Error) {
		var out patternList
		for i, s := range srcs {
			fp, err := newFnPatternCase(s, depth, fold)
			if err != nil {
				return nil, configError("%s[%d]: invalid pattern %s: %v", field, i, pyRepr(s), err)
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
		dst   *patternList
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
		pr := permRule{index: i, mode: r.Mode, src: r, fold: r.Mode != "allow"}
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
			if pr.fold {
				g = foldCase(g)
			}
			pr.globs = append(pr.globs, g)
		}
		p.rules = append(p.rules, pr)
	}
	p.deniedIx, p.protectedIx = newPatternIndex(p.denied), newPatternIndex(p.protected)
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
		if pat, ok := p.protectedIx.first(withAnc); ok {
			return nil, refusal(op, r, kindProtected, "is protected (read-only)", fmt.Sprintf("Path '%s' is protected (matches '%s').", r.rel, pat))
		}
	}
	if pat, ok := p.deniedIx.first(withAnc); ok {
		return nil, refusal(op, r, kindDenied, "is denied", fmt.Sprintf("Path '%s' is denied by pattern '%s'.", r.rel, pat))
	}
	if a != accessWalkRoot && len(p.allowed) > 0 {
		for _, n := range p.names(r, false) {
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
			return nil, refusal(op, r, kindPermissionDenied, "is denied by a permission rule", fmt.Sprintf("Path '%s' is denied by permission rule %d.", r.rel, rule.index+1))
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
		return errorf(op, r.rel, kind, "%s", direct)
	}
	return errorf(op, r.lexical, kind, "Path %s %s.", pyRepr(r.spelling), what)
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
