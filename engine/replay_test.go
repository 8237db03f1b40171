package engine

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// The replay corpus: commits of this repository's own history, each turned into (a) one V4A patch
// (every text file the commit adds, deletes or modifies) applied through apply_patch, and (b) a
// sequence of str_replace_based_edit_tool calls (create for an added file, str_replace with the
// least context that makes it unique for a change, insert for a pure insertion), both applied on
// the parent's files; every touched file must then equal the child's byte for byte. The test runs
// a small sample; scripts/replay-corpus.sh runs the full corpus and prints the counts:
//
//	go test ./engine -run TestReplayCorpus -replay.commits 400 -v
var (
	replayCommits = flag.Int("replay.commits", 12, "commits of the repository's history TestReplayCorpus replays")
	replayDump    = flag.String("replay.dump", "", "directory to write each updated file's old content, V4A diff and new content to (for the reference appliers)")
)

// replayChange is one text file a commit touches.
type replayChange struct {
	path         string
	old, new     string
	oldOK, newOK bool // the file exists in the parent, in the child
	dirOK        bool // its directory exists in the parent
}

// replayTally counts one format's outcomes: exact, the reasons the format cannot express a
// commit, and fsbox's misses (each a failure of the test).
type replayTally struct {
	exact  int
	cannot map[string]int
	misses []string
}

func (r *replayTally) add(commit, why, miss string) {
	switch {
	case miss != "":
		r.misses = append(r.misses, commit[:10]+": "+miss)
	case why != "":
		if r.cannot == nil {
			r.cannot = map[string]int{}
		}
		r.cannot[why]++
	default:
		r.exact++
	}
}

func (r *replayTally) String() string {
	n := 0
	var reasons []string
	for why, c := range r.cannot {
		n += c
		reasons = append(reasons, fmt.Sprintf("%s: %d", why, c))
	}
	slices.Sort(reasons)
	return fmt.Sprintf("%d replayed exactly, %d the format cannot express (%s), %d fsbox misses", r.exact, n, strings.Join(reasons, "; "), len(r.misses))
}

// TestReplayCorpus replays the last -replay.commits commits in both formats. A commit a format
// cannot express (a binary file, for V4A a changed final newline or an added file without one, for
// the text editor a deleted file) is counted with its reason, never as a failure; any other miss
// fails the test.
func TestReplayCorpus(t *testing.T) {
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	out, err := gitOut(repo, "log", "--no-merges", "--format=%H %P", "-n", strconv.Itoa(*replayCommits))
	if err != nil {
		t.Skipf("no git history: %v", err)
	}
	var commits, files int
	var v4a, editor replayTally
	dumped := 0
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		commits++
		changes, why := replayChanges(repo, f[1], f[0])
		files += len(changes)
		if why != "" {
			v4a.add(f[0], why, "")
			editor.add(f[0], why, "")
			continue
		}
		why, miss := replayV4A(t, changes, &dumped)
		v4a.add(f[0], why, miss)
		why, miss = replayEditor(t, changes)
		editor.add(f[0], why, miss)
	}
	t.Logf("replay corpus: %d commits (%d files)", commits, files)
	t.Logf("replay corpus, apply_patch: %s", &v4a)
	t.Logf("replay corpus, str_replace_based_edit_tool: %s", &editor)
	for _, m := range append(v4a.misses, editor.misses...) {
		t.Errorf("miss: %s", m)
	}
}

func gitOut(repo string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
	var b bytes.Buffer
	cmd.Stdout = &b
	err := cmd.Run()
	return b.String(), err
}

// replayChanges lists the text files a commit touches with their contents before and after, or
// why the commit is not replayed.
func replayChanges(repo, parent, child string) ([]replayChange, string) {
	names, err := gitOut(repo, "diff", "--no-renames", "--numstat", parent, child)
	if err != nil {
		return nil, "git diff failed"
	}
	var changes []replayChange
	for _, l := range strings.Split(strings.TrimSpace(names), "\n") {
		f := strings.SplitN(l, "\t", 3)
		if len(f) != 3 {
			continue
		}
		if f[0] == "-" {
			return nil, "a binary file"
		}
		c := replayChange{path: f[2]}
		if s, err := gitOut(repo, "show", parent+":"+c.path); err == nil {
			c.old, c.oldOK = s, true
		}
		if s, err := gitOut(repo, "show", child+":"+c.path); err == nil {
			c.new, c.newOK = s, true
		}
		c.dirOK = c.oldOK || !strings.Contains(c.path, "/")
		if !c.dirOK {
			kind, _ := gitOut(repo, "cat-file", "-t", parent+":"+c.path[:strings.LastIndexByte(c.path, '/')])
			c.dirOK = strings.TrimSpace(kind) == "tree"
		}
		changes = append(changes, c)
	}
	if len(changes) == 0 {
		return nil, "no text change (mode only)"
	}
	return changes, ""
}

// replayRoot builds the parent's versions of the touched files (and their directories) in a fresh
// root (only the directories the parent has: the patch creates the others) and opens an engine on
// it with no denied or protected patterns (the corpus edits .git-free source, but a file named
// like a secret must not skew the counts).
func replayRoot(t *testing.T, changes []replayChange) (*fixture, *Engine) {
	fx := makeFixture(t)
	for _, c := range changes {
		p := filepath.Join(fx.root, c.path)
		if c.dirOK {
			os.MkdirAll(filepath.Dir(p), 0o755)
		}
		if c.oldOK {
			if err := os.WriteFile(p, []byte(c.old), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return fx, patchEngine(fx, schema.Config{ProtectedPatterns: &[]string{}, DeniedPatterns: &[]string{}})
}

// replayCompare checks every touched file against the child.
func replayCompare(fx *fixture, changes []replayChange) string {
	for _, c := range changes {
		got, err := os.ReadFile(filepath.Join(fx.root, c.path))
		switch {
		case !c.newOK && err == nil:
			return c.path + " still exists"
		case c.newOK && (err != nil || string(got) != c.new):
			return fmt.Sprintf("%s differs from the child", c.path)
		}
	}
	return ""
}

// replayV4A applies the commit as V4A patches: one, or one per maxPatchFiles files for a commit
// that touches more (as a model splits a patch fsbox refuses as too big).
func replayV4A(t *testing.T, changes []replayChange, dumped *int) (string, string) {
	var patches []string
	var patch strings.Builder
	for i, c := range changes {
		if i%maxPatchFiles == 0 {
			if i > 0 {
				patch.WriteString("*** End Patch\n")
				patches = append(patches, patch.String())
				patch.Reset()
			}
			patch.WriteString("*** Begin Patch\n")
		}
		switch {
		case !c.oldOK:
			if c.new != "" && !strings.HasSuffix(c.new, "\n") {
				return "an added file without a final newline", ""
			}
			patch.WriteString("*** Add File: " + c.path + "\n")
			for _, l := range splitKeep(c.new) {
				patch.WriteString("+" + l + "\n")
			}
		case !c.newOK:
			patch.WriteString("*** Delete File: " + c.path + "\n")
		default:
			if strings.HasSuffix(c.old, "\n") != strings.HasSuffix(c.new, "\n") && c.old != "" && c.new != "" {
				return "a changed final newline", ""
			}
			hunks, err := v4aHunks(c.old, c.new)
			if err != "" {
				return err, ""
			}
			if *replayDump != "" {
				*dumped++
				base := filepath.Join(*replayDump, fmt.Sprintf("%05d", *dumped))
				os.MkdirAll(*replayDump, 0o755)
				os.WriteFile(base+".old", []byte(c.old), 0o644)
				os.WriteFile(base+".diff", []byte(hunks), 0o644)
				os.WriteFile(base+".new", []byte(c.new), 0o644)
			}
			patch.WriteString("*** Update File: " + c.path + "\n" + hunks)
		}
	}
	patch.WriteString("*** End Patch\n")
	patches = append(patches, patch.String())
	fx, e := replayRoot(t, changes)
	for _, p := range patches {
		raw, _ := json.Marshal(map[string]any{"input": p})
		if _, err := e.Call(t.Context(), schema.ToolApplyPatch, raw, Hooks{}); err != nil {
			return "", "apply_patch failed: " + err.Error()
		}
	}
	return "", replayCompare(fx, changes)
}

// replayEditor applies the commit as text editor calls: create for an added file; for a changed
// file, each run of changed lines from the bottom up, as str_replace of the old lines widened by
// context lines until they occur once (insert for a pure insertion).
func replayEditor(t *testing.T, changes []replayChange) (string, string) {
	for _, c := range changes {
		if c.oldOK && !c.newOK {
			return "a deleted file (the editor has no delete)", ""
		}
	}
	fx, e := replayRoot(t, changes)
	call := func(args map[string]any) string {
		raw, _ := json.Marshal(args)
		if _, err := e.Call(t.Context(), schema.ToolStrReplaceBasedEditTool, raw, Hooks{}); err != nil {
			return fmt.Sprintf("%s of %s failed: %v", args["command"], args["path"], err)
		}
		return ""
	}
	for _, c := range changes {
		if !c.oldOK {
			if miss := call(map[string]any{"command": "create", "path": c.path, "file_text": c.new}); miss != "" {
				return "", miss
			}
			continue
		}
		a, b := splitLinesKeep(c.old), splitLinesKeep(c.new)
		ops := lineDiff(a, b)
		if ops == nil {
			return "file too big for the corpus' line diff", ""
		}
		// The runs of changes: [aStart, aEnd) of old replaced by the '+' lines.
		type run struct {
			a0, a1 int
			ins    []string
		}
		var runs []run
		for i := 0; i < len(ops); {
			if ops[i].op == ' ' {
				i++
				continue
			}
			r := run{a0: ops[i].aIdx, a1: ops[i].aIdx}
			for i < len(ops) && ops[i].op != ' ' {
				if ops[i].op == '-' {
					r.a1++
				} else {
					r.ins = append(r.ins, ops[i].text)
				}
				i++
			}
			runs = append(runs, r)
		}
		cur := a
		for k := len(runs) - 1; k >= 0; k-- {
			r := runs[k]
			content := strings.Join(cur, "")
			if r.a0 == r.a1 {
				if miss := call(map[string]any{"command": "insert", "path": c.path, "insert_line": r.a0, "insert_text": strings.Join(r.ins, "")}); miss != "" {
					return "", miss
				}
			} else {
				lo, hi := r.a0, r.a1
				for strings.Count(content, strings.Join(cur[lo:hi], "")) != 1 {
					if lo > 0 {
						lo--
					}
					if hi < len(cur) {
						hi++
					}
				}
				old := strings.Join(cur[lo:hi], "")
				repl := strings.Join(cur[lo:r.a0], "") + strings.Join(r.ins, "") + strings.Join(cur[r.a1:hi], "")
				if miss := call(map[string]any{"command": "str_replace", "path": c.path, "old_str": old, "new_str": repl}); miss != "" {
					return "", miss
				}
			}
			next := append([]string{}, cur[:r.a0]...)
			next = append(next, r.ins...)
			cur = append(next, cur[r.a1:]...)
		}
	}
	return "", replayCompare(fx, changes)
}

// splitLinesKeep splits text into lines that keep their "\n" (the last may have none).
func splitLinesKeep(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// splitKeep splits text into lines without terminators (a final "\n" ends the last line).
func splitKeep(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// v4aHunks writes the V4A hunks turning old into new: the changed runs of lines with 3 lines of
// context, each hunk anchored by the nearest line above it that makes its match unique, as a
// model would anchor it.
func v4aHunks(old, new string) (string, string) {
	a, b := splitKeep(old), splitKeep(new)
	ops := lineDiff(a, b)
	if ops == nil {
		return "", "file too big for the corpus' line diff"
	}
	var out strings.Builder
	const ctx = 3
	// Group the edit script into hunks.
	type hunk struct {
		lines []patchLine
		start int
	}
	var hunks []hunk
	i := 0
	for i < len(ops) {
		if ops[i].op == ' ' {
			i++
			continue
		}
		lo := max(i-ctx, 0)
		for lo < i && ops[lo].op != ' ' {
			lo++
		}
		j := i
		for j < len(ops) {
			if ops[j].op != ' ' {
				j++
				continue
			}
			k := j
			for k < len(ops) && ops[k].op == ' ' {
				k++
			}
			if k == len(ops) || k-j > 2*ctx {
				break
			}
			j = k
		}
		hi := min(j+ctx, len(ops))
		h := hunk{start: ops[lo].aIdx}
		// Hunks never overlap: runs closer than 2*ctx lines of context are one hunk.
		for _, o := range ops[lo:hi] {
			h.lines = append(h.lines, patchLine{op: o.op, text: o.text})
		}
		hunks = append(hunks, h)
		i = hi
	}
	cursor := 0
	for _, h := range hunks {
		old := []string{}
		for _, l := range h.lines {
			if l.op != '+' {
				old = append(old, l.text)
			}
		}
		anchor := ""
		if len(old) > 0 {
			if at, f := seekOld(a, cursor, old, false, false, 0, 0, ""); f != nil || at != h.start {
				// Anchor on the nearest line above whose first occurrence from the cursor is it,
				// and below which the hunk's first match is the one meant.
				for p := h.start - 1; p >= cursor; p-- {
					if q, ok := seekAnchor(a, cursor, a[p]); ok && q == p {
						if at, f := seekOld(a, p+1, old, false, true, 0, 0, ""); f == nil && at == h.start {
							anchor = a[p]
							break
						}
					}
				}
				if anchor == "" {
					return "", "no anchor makes a hunk unique"
				}
			}
		}
		out.WriteString("@@")
		if anchor != "" {
			out.WriteString(" " + anchor)
		}
		out.WriteString("\n")
		for _, l := range h.lines {
			out.WriteString(string(l.op) + l.text + "\n")
		}
		cursor = h.start + len(old)
	}
	return out.String(), ""
}

func countOld(ls []patchLine) int {
	n := 0
	for _, l := range ls {
		if l.op != '+' {
			n++
		}
	}
	return n
}

type diffOp struct {
	op   byte
	text string
	aIdx int // index in a of this line (for '+', the index of the next old line)
}

// lineDiff is a plain LCS edit script from a to b; nil when the table would be too big.
func lineDiff(a, b []string) []diffOp {
	// Trim the common prefix and suffix first.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if (len(ma)+1)*(len(mb)+1) > 16<<20 {
		return nil
	}
	dp := make([][]int32, len(ma)+1)
	for i := range dp {
		dp[i] = make([]int32, len(mb)+1)
	}
	for i := len(ma) - 1; i >= 0; i-- {
		for j := len(mb) - 1; j >= 0; j-- {
			if ma[i] == mb[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	var ops []diffOp
	for k := 0; k < pre; k++ {
		ops = append(ops, diffOp{' ', a[k], k})
	}
	i, j := 0, 0
	for i < len(ma) || j < len(mb) {
		switch {
		case i < len(ma) && j < len(mb) && ma[i] == mb[j]:
			ops = append(ops, diffOp{' ', ma[i], pre + i})
			i, j = i+1, j+1
		case j < len(mb) && (i == len(ma) || dp[i][j+1] >= dp[i+1][j]):
			ops = append(ops, diffOp{'+', mb[j], pre + i})
			j++
		default:
			ops = append(ops, diffOp{'-', ma[i], pre + i})
			i++
		}
	}
	for k := len(a) - suf; k < len(a); k++ {
		ops = append(ops, diffOp{' ', a[k], k})
	}
	return ops
}
