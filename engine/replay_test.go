package engine

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// The replay corpus: commits of this repository's own history, each turned into one V4A patch
// (every text file the commit adds, deletes or modifies) and applied through apply_patch on the
// parent's files; every touched file must then equal the child's byte for byte. The test runs a
// small sample; scripts/replay-corpus.sh runs the full corpus and prints the counts:
//
//	go test ./engine -run TestReplayCorpus -replay.commits 400 -v
var replayCommits = flag.Int("replay.commits", 25, "commits of the repository's history TestReplayCorpus replays")

// TestReplayCorpus replays the last -replay.commits commits. Commits whose change the V4A format
// cannot express (a binary file, a changed final newline, a mode-only change) are counted as
// such, never as failures; any other miss fails the test.
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
	var commits, exact, cannot, files int
	var misses []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		commits++
		n, why, miss := replayCommit(t, repo, f[1], f[0])
		files += n
		switch {
		case miss != "":
			misses = append(misses, f[0][:10]+": "+miss)
		case why != "":
			cannot++
		default:
			exact++
		}
	}
	t.Logf("replay corpus: %d commits (%d files): %d replayed exactly, %d the format cannot express, %d fsbox misses", commits, files, exact, cannot, len(misses))
	for _, m := range misses {
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

// replayCommit builds the parent's touched files in a fresh root, applies the commit's V4A patch
// and compares. It returns the files touched, why the format cannot express the commit ("" if it
// can) and the miss ("" when replayed exactly).
func replayCommit(t *testing.T, repo, parent, child string) (int, string, string) {
	names, err := gitOut(repo, "diff", "--no-renames", "--numstat", parent, child)
	if err != nil {
		return 0, "git diff failed", ""
	}
	type change struct {
		path, old, new string
		oldOK, newOK   bool
	}
	var changes []change
	for _, l := range strings.Split(strings.TrimSpace(names), "\n") {
		f := strings.SplitN(l, "\t", 3)
		if len(f) != 3 {
			continue
		}
		if f[0] == "-" {
			return 0, "binary file " + f[2], ""
		}
		c := change{path: f[2]}
		if s, err := gitOut(repo, "show", parent+":"+c.path); err == nil {
			c.old, c.oldOK = s, true
		}
		if s, err := gitOut(repo, "show", child+":"+c.path); err == nil {
			c.new, c.newOK = s, true
		}
		changes = append(changes, c)
	}
	if len(changes) == 0 {
		return 0, "no text change", ""
	}
	if len(changes) > maxPatchFiles {
		return len(changes), "more files than one patch takes", ""
	}
	fx := makeFixture(t)
	var patch strings.Builder
	patch.WriteString("*** Begin Patch\n")
	for _, c := range changes {
		if c.oldOK {
			p := filepath.Join(fx.root, c.path)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(c.old), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		switch {
		case !c.oldOK:
			if c.new != "" && !strings.HasSuffix(c.new, "\n") {
				return len(changes), "added file without a final newline", ""
			}
			os.MkdirAll(filepath.Dir(filepath.Join(fx.root, c.path)), 0o755)
			patch.WriteString("*** Add File: " + c.path + "\n")
			for _, l := range splitKeep(c.new) {
				patch.WriteString("+" + l + "\n")
			}
		case !c.newOK:
			patch.WriteString("*** Delete File: " + c.path + "\n")
		default:
			if strings.HasSuffix(c.old, "\n") != strings.HasSuffix(c.new, "\n") && c.old != "" && c.new != "" {
				return len(changes), "final newline changed", ""
			}
			hunks, err := v4aHunks(c.old, c.new)
			if err != "" {
				return len(changes), err, ""
			}
			patch.WriteString("*** Update File: " + c.path + "\n" + hunks)
		}
	}
	patch.WriteString("*** End Patch\n")
	e := patchEngine(fx, schema.Config{ProtectedPatterns: &[]string{}, DeniedPatterns: &[]string{}})
	raw, _ := json.Marshal(map[string]any{"input": patch.String()})
	if _, err := e.Call(t.Context(), schema.ToolApplyPatch, raw, Hooks{}); err != nil {
		return len(changes), "", "apply_patch failed: " + err.Error()
	}
	for _, c := range changes {
		got, err := os.ReadFile(filepath.Join(fx.root, c.path))
		switch {
		case !c.newOK && err == nil:
			return len(changes), "", c.path + " still exists"
		case c.newOK && (err != nil || string(got) != c.new):
			return len(changes), "", fmt.Sprintf("%s differs from the child", c.path)
		}
	}
	return len(changes), "", ""
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
