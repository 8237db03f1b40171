package engine

import (
	"errors"
	"os"
	"path"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/fsbox/fsbox/engine/internal/commit"
	"github.com/fsbox/fsbox/engine/internal/relpath"
	"github.com/fsbox/fsbox/schema"
)

// The git rule: what keeps a model from making git run a command on the user's next git status.
//
// Git finds a repository by walking up from the working directory. At each level it takes an
// entry named ".git" (a directory, or a file saying "gitdir: <path>"), and it also takes the
// directory itself when that looks like a git directory (a bare repository). A git directory is
// one that holds HEAD and, directly or through a "commondir" file naming another directory,
// objects and refs. Git then reads that directory's config, and several settings there name
// commands that run without the user asking: core.fsmonitor on every git status (shell prompts run
// it on every cd), core.hooksPath and the hooks directory on commit, checkout and merge,
// core.pager, core.sshCommand and others. So a model that can write a ".git" entry or assemble a
// git directory can run code as the user. Unless the host sets allow_git_dirs, the model
// therefore may not:
//
//  1. write, create, move, rename or delete any entry whose name is ".git" as git or a file
//     system sees it, at any depth, nor anything below one (gitName: any letter case, Unicode case
//     folding included; the code points HFS+ ignores; the trailing dots and spaces and the
//     alternate stream suffix NTFS ignores, and its short name GIT~1). This is checked before
//     the patterns, on the resolved path and the spelling, for every write and every entry of a
//     tree a delete or move changes (Engine.check); a root the host placed inside a .git entry
//     refuses every write.
//  2. change anything inside a directory that already looks like a git directory, at any depth
//     above the path (checkGitDirAbove, which asks the file system with git's own names, so its
//     case rules are the file system's), nor delete or move a tree containing one (treeScan).
//  3. complete one: create an entry that git would count as HEAD in a directory that holds
//     objects, refs or commondir, or one of those where HEAD is (gitDirCompleted). checkWrite
//     refuses it before anything is announced (checkGitDirCreate); the check that counts is
//     made at the moment of creation, through the descriptor of the directory the entry is
//     created in and during its turn (gitCreateTurn: that directory's fsbox lock, [commit.Lock],
//     and an engine-wide mutex), by write_file, create_directory (for every directory it
//     creates) and move_file (for the destination's name, whatever the moved entry is). So no
//     order of calls assembles one, concurrent calls included, from one server or several: two
//     calls that would each add the last member take their turns, and the second sees the
//     first's member. (Where the file system has no flock, as on Windows, servers in other
//     processes are not excluded.)
//
// Together these cover every way the model's tools can bring a git directory into being: writing
// a member file, creating a member directory (alone or as part of a deeper path), moving a file or
// directory to a member's name, moving a prepared directory in (its members were refused when it
// was assembled, or it is an existing git directory, which rule 2 refuses to move), and writing
// a ".git" file pointing at a directory elsewhere (rule 1). A config with core.fsmonitor planted in
// a directory that is not a git directory is inert: nothing can point git at it.
//
// What it does not protect against: a process other than fsbox (the user's tools, a script the
// model cannot run) that adds the missing member at the same moment; a config that the user's own
// git config includes by path (include.path naming a file in the tree; a ".gitconfig" is in the
// default protected patterns for that reason, other names are not); a git directory inside the
// root reached through a hard link or bind mount made outside; git run with GIT_DIR or
// --git-dir naming a directory the model could change. It is not a sandbox for the tree's own
// build scripts: Makefiles and package.json scripts run when the user runs make or npm, and the
// model may write them (docs/protocol.md §6 lists what the default protected patterns add).

// gitDirMembers are the names that make a directory a git directory: HEAD, with objects and refs
// directly or through commondir (git's is_git_directory). config is not needed for git to take
// the directory (hooks run without it), so it is not a member; without HEAD nothing is a git
// directory.
var gitDirMembers = [...]string{"HEAD", "objects", "refs", "commondir"}

// hfsIgnorable reports whether HFS+ leaves r out when it compares names (and so would git on a
// Mac, see git's is_hfs_dotgit): the zero-width joiners and direction marks, the deprecated
// formatting characters and the byte-order mark.
func hfsIgnorable(r rune) bool {
	return r >= 0x200c && r <= 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x206a && r <= 0x206f || r == 0xfeff
}

// gitComparable returns name as a file system that folds it would compare it: without the code
// points HFS+ ignores, cut at an NTFS alternate data stream (":"), without the trailing dots and
// spaces NTFS drops, and upper-cased as NTFS does (so the dotless ı is I and the long s is S).
// Callers compare the result with strings.EqualFold, which folds the rest of Unicode case (the
// Kelvin sign is K).
func gitComparable(name string) string {
	if !isASCII(name) {
		name = strings.Map(func(r rune) rune {
			if hfsIgnorable(r) {
				return -1
			}
			return r
		}, name)
	}
	if i := strings.IndexByte(name, ':'); i >= 0 {
		name = name[:i]
	}
	return strings.ToUpper(strings.TrimRight(name, ". "))
}

// isASCII reports whether s has only ASCII bytes.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// gitName reports whether a path component is ".git" to git or to some file system (rule 1).
// "git~1" is the NTFS short name a ".git" directory gets.
func gitName(name string) bool {
	// Fast path: every alias has "git" in it, in some case or spelling of its letters; a name
	// without "g"/"G" and without non-ASCII runes cannot be one.
	if isASCII(name) && strings.IndexAny(name, "gG") < 0 {
		return false
	}
	n := gitComparable(name)
	// ".git" once its trailing dots and spaces are gone; so is ".git." itself, which trims
	// to ".git".
	return strings.EqualFold(n, ".git") || strings.EqualFold(n, "git~1")
}

// gitDirMember returns the member of gitDirMembers that name is to a file system that folds
// names, if any.
func gitDirMember(name string) (string, bool) {
	n := gitComparable(name)
	for _, m := range gitDirMembers {
		if strings.EqualFold(n, m) {
			return m, true
		}
	}
	return "", false
}

// gitPathIn returns the first prefix of the root-relative rel whose last component is a gitName,
// if any.
func gitPathIn(rel string) (string, bool) {
	if rel == "" || rel == "." {
		return "", false
	}
	start := 0
	for i := 0; i <= len(rel); i++ {
		if i == len(rel) || rel[i] == '/' {
			if gitName(rel[start:i]) {
				return rel[:i], true
			}
			start = i + 1
		}
	}
	return "", false
}

// checkGitName applies rule 1 to r's resolved path and spelling, and to the root's own location
// (a root the host placed inside a .git directory is all inside it).
func (e *Engine) checkGitName(op string, r *resolved) *Error {
	if e.rootInGit != "" {
		return refusal(op, r, schema.KindProtected, "is protected (read-only)",
			"Path '"+r.rel+"' is protected (the root is inside a .git entry: git runs commands a repository's config names).")
	}
	for _, n := range []string{r.rel, r.lexical} {
		if g, ok := gitPathIn(n); ok {
			where := "a .git entry"
			if g != r.rel {
				where = "inside the .git entry '" + g + "'"
			}
			return refusal(op, r, schema.KindProtected, "is protected (read-only)",
				"Path '"+r.rel+"' is protected ("+where+": git runs commands a repository's config names).")
		}
	}
	return nil
}

// gitDirShaped reports whether a directory with the entries exists reports is a git directory:
// HEAD, and objects, refs or commondir (a bare HEAD with only config is not one).
func gitDirShaped(exists func(string) bool) bool {
	return exists("HEAD") && (exists("objects") || exists("refs") || exists("commondir"))
}

// gitDirCompleted reports whether creating name in a directory whose entries exists reports
// would make it a git directory (rule 3).
func gitDirCompleted(name string, exists func(string) bool) bool {
	m, ok := gitDirMember(name)
	switch {
	case !ok:
		return false
	case m == "HEAD":
		return exists("objects") || exists("refs") || exists("commondir")
	}
	return exists("HEAD")
}

// errGitDirCompleted is the refusal of creating name in dirRel under rule 3.
func errGitDirCompleted(op string, r *resolved) *Error {
	dirRel, _ := relpath.Parent(r.rel)
	return refusal(op, r, schema.KindProtected, "is protected (read-only)",
		"Path '"+r.rel+"' is protected: creating it would make '"+dirRel+"' a git directory (HEAD with objects, refs or commondir), which git would run commands from.")
}

// checkGitDirAbove applies rule 2 to r: the outermost directory above r's resolved path (the
// root included) that is a git directory now refuses it, asking the file system for git's own
// names. It walks down from the root by descriptor (one open and at most four lstats per
// directory), and stops where a directory is missing: nothing below a missing one exists to be
// inside (or is not a directory, which the tool's own checks report). A directory swapped for a
// link since r was resolved fails closed, changed_during_request.
func (e *Engine) checkGitDirAbove(op string, r *resolved) *Error {
	if r.rel == "." || r.rel == "" {
		return nil
	}
	h, err := openDirHandle(e, ".", nil)
	if err != nil {
		return e.writeError(op, r, err)
	}
	defer func() { h.close() }()
	dirRel, _ := relpath.Parent(r.rel)
	comps := relpath.Split(dirRel)
	for i := 0; ; i++ {
		if gitDirShaped(func(m string) bool { _, err := h.lstat(m); return err == nil }) {
			return refusal(op, r, schema.KindProtected, "is protected (read-only)",
				"Path '"+r.rel+"' is protected: it is inside '"+relpath.Join(comps[:i])+"', a git directory, whose config and hooks git runs.")
		}
		if i == len(comps) {
			return nil
		}
		next, err := h.child(comps[i])
		switch {
		case err == nil:
		case errorsIsErrno(err, syscall.ELOOP) || errors.Is(err, errDirSwapped):
			return errChanged(op, r)
		default:
			// Missing, or not a directory: the tool's own checks say so.
			return nil
		}
		h.close()
		h = next
	}
}

// listedGitDir reports whether a directory listing (a treeScan's) has a git directory's shape,
// comparing names as a file system that folds them would.
func listedGitDir(names []string) bool {
	var seen [len(gitDirMembers)]bool
	for _, n := range names {
		if m, ok := gitDirMember(n); ok {
			for i := range gitDirMembers {
				if gitDirMembers[i] == m {
					seen[i] = true
				}
			}
		}
	}
	return seen[0] && (seen[1] || seen[2] || seen[3])
}

// needsGitTurn reports whether creating name could complete a git directory: a gitDirMember
// name, and the host does not allow git directories.
func (e *Engine) needsGitTurn(name string) bool {
	if e.allowGitDirs {
		return false
	}
	_, member := gitDirMember(name)
	return member
}

// gitCreateTurn gives the creation of name its turn when needsGitTurn: the caller looks up the
// other members and creates the entry before calling unlock. Within this process the turn is
// one engine-wide mutex (member names are rare, so nothing else waits on it; where flock
// exists the directory lock below excludes this process's other calls too). Across processes it
// is the directory's fsbox lock, which the caller already holds (commitFile) or gitMemberLock
// takes; the lock is always taken before the mutex, never while holding it. ok is false, and
// unlock a no-op, for a name that needs no turn.
func (e *Engine) gitCreateTurn(name string) (unlock func(), ok bool) {
	if !e.needsGitTurn(name) {
		return func() {}, false
	}
	e.gitMu.Lock()
	return e.gitMu.Unlock, true
}

// gitMemberLock is gitCreateTurn for a creation in the directory h whose fsbox lock the caller
// does not hold (create_directory, move_file): it takes that lock first, on a new open of h's
// very directory, so the lookups and the creation through h are one turn whatever is renamed
// meanwhile. It returns a nil unlock, with no error, when name needs no turn.
func (e *Engine) gitMemberLock(c *call, h dirHandle, name string) (unlock func(), err error) {
	if !e.needsGitTurn(name) {
		return nil, nil
	}
	f, err := h.openSelf()
	if err != nil {
		return nil, err
	}
	l, err := commit.LockFile(c.ctx, f)
	if err != nil {
		return nil, err
	}
	e.gitMu.Lock()
	return func() { e.gitMu.Unlock(); l.Unlock() }, nil
}

// gitDirCompletedAt is gitDirCompleted for the directory h.
func gitDirCompletedAt(h dirHandle, name string) bool {
	return gitDirCompleted(name, func(m string) bool {
		_, err := h.lstat(m)
		return err == nil
	})
}

// gitDirCompletedIn is gitDirCompleted for the directory dir.
func gitDirCompletedIn(dir *os.Root, name string) bool {
	return gitDirCompleted(name, func(m string) bool { return lstatOK(dir, m) })
}

// checkGitDirCreate is rule 3 as checkWrite applies it, before anything is announced: every
// component of r's resolved path that does not exist yet (write_file's file, the directories
// create_directory would make, move_file's destination) and is a member name must not complete
// its parent. The check that counts is the one made at creation under the directory's lock
// (gitMemberLock); this one answers early and costs nothing for a path without a member name.
func (e *Engine) checkGitDirCreate(op string, r *resolved) *Error {
	comps := relpath.Split(r.rel)
	for i, name := range comps {
		if _, ok := gitDirMember(name); !ok {
			continue
		}
		p := relpath.Join(comps[:i+1])
		if root, sub, _ := e.rootFor(p); lstatOK(root, sub) {
			continue // exists: nothing is created here
		}
		d, _ := relpath.Parent(p)
		droot, dsub, _ := e.rootFor(d)
		if gitDirCompleted(name, func(m string) bool { return lstatOK(droot, path.Join(dsub, m)) }) {
			if p != r.rel {
				r = &resolved{rel: p, lexical: p, spelling: p}
			}
			return errGitDirCompleted(op, r)
		}
	}
	return nil
}

// lstatOK reports whether name exists below root (a link counts; it is not followed).
func lstatOK(root *os.Root, name string) bool {
	_, err := root.Lstat(name)
	return err == nil
}
