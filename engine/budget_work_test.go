package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fsbox/fsbox/schema"
)

// workTree is 40 directories of 10 files each, and flat/ with 400 files.
func workTree(t *testing.T) *fixture {
	var lines []string
	for d := range 40 {
		for f := range 10 {
			lines = append(lines, fmt.Sprintf("d%02d/f%02d.txt: x", d, f))
		}
	}
	for f := range 400 {
		lines = append(lines, fmt.Sprintf("flat/f%03d.txt: x", f))
	}
	return makeFixture(t, lines...)
}

// TestWorkBudget_CutsEveryWalker: with the work budget lowered, every walker stops where it is,
// returns what it found, marked truncated, and says so with a hint naming its own arguments
// (budget_work.go rule 2).
func TestWorkBudget_CutsEveryWalker(t *testing.T) {
	fx := workTree(t)
	e := fx.engine(schema.Config{Tools: allTools})
	defer func(n int) { maxWalkWork = n }(maxWalkWork)
	maxWalkWork = 300
	for _, tc := range []struct {
		tool string
		args map[string]any
		hint string
	}{
		{schema.ToolFindFiles, map[string]any{"pattern": "**/*.txt"}, "search from a path further down"},
		{schema.ToolFindFiles, map[string]any{"pattern": "{d0*,d1*,d2*,d3*}/**/f0*.txt"}, "fewer \"**\" components and alternatives"},
		{schema.ToolListFiles, map[string]any{}, "use a narrower glob"},
		{schema.ToolSearchFiles, map[string]any{"pattern": "x"}, "an include_glob"},
		{schema.ToolGrep, map[string]any{"pattern": "x"}, "a glob or a file_type"},
		{schema.ToolDirectoryTree, map[string]any{}, "a smaller max_depth"},
		{schema.ToolListDirectory, map[string]any{"path": "flat"}, "list a subdirectory"},
	} {
		res := mustCall(t, e, tc.tool, tc.args, Hooks{})
		text := resultText(res)
		var typed struct {
			Truncated bool `json:"truncated"`
		}
		b, _ := json.Marshal(res)
		json.Unmarshal(b, &typed)
		if !typed.Truncated || !strings.Contains(text, "[... walk cut short after 300 units of work (lookups and matches); ") || !strings.Contains(text, tc.hint) {
			t.Errorf("%s %v: truncated %v, text ends %q; want the work notice with %q", tc.tool, tc.args, typed.Truncated, text[max(0, len(text)-300):], tc.hint)
		}
	}
	// Within the budget nothing changes.
	maxWalkWork = 1_000_000
	res := mustCall(t, e, schema.ToolFindFiles, map[string]any{"pattern": "**/*.txt"}, Hooks{}).(*schema.FindFilesResult)
	if strings.Contains(res.Text, "walk cut short") {
		t.Errorf("find_files within the budget: %q", res.Text[max(0, len(res.Text)-200):])
	}
}

// TestWorkBudget_CancelStopsAlternatives: a find_files whose alternatives each walk the whole
// tree is answered within 2 s of a cancel. doublestar expands alternatives before it calls back
// with any match, so only the walk's own methods can see the cancel (budget_work.go rule 3);
// the same call, uncancelled, runs far longer.
func TestWorkBudget_CancelStopsAlternatives(t *testing.T) {
	var lines []string
	for d := range 60 {
		for s := range 10 {
			lines = append(lines, fmt.Sprintf("d%02d/s%d/f.txt: x", d, s))
		}
	}
	fx := makeFixture(t, lines...)
	e := fx.engine(schema.Config{Tools: allTools})
	// Only the cancel may stop it: neither the work budget nor the listing cap.
	defer func(n, m int) { maxWalkWork, maxFindDirReads = n, m }(maxWalkWork, maxFindDirReads)
	maxWalkWork, maxFindDirReads = 1<<40, 1<<40
	alts := make([]string, 250)
	for i := range alts {
		alts[i] = fmt.Sprintf("**/n%d", i)
	}
	args, _ := json.Marshal(map[string]any{"pattern": "{" + strings.Join(alts, ",") + "}"})

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := e.Call(ctx, schema.ToolFindFiles, args, Hooks{})
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	cancel()
	cancelled := time.Now()
	select {
	case err := <-done:
		if err == nil {
			t.Logf("find_files finished before the cancel took effect")
		}
		t.Logf("answered %v after the cancel: %v", time.Since(cancelled).Round(time.Millisecond), err)
	case <-time.After(2 * time.Second):
		t.Fatal("find_files of 250 tree-wide alternatives: no answer within 2 s of the cancel")
	}
}

// TestWorkBudget_SeesDeadline: the same counter stops a walk at the call's deadline.
func TestWorkBudget_SeesDeadline(t *testing.T) {
	w := newWorkBudget(context.Background())
	if !w.Spend(workTick) || !w.live() {
		t.Fatal("a fresh budget refused work")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	w = newWorkBudget(ctx)
	<-ctx.Done()
	spent := 0
	for w.Spend(1) {
		spent++
	}
	if spent >= workTick || !w.ended || w.over {
		t.Errorf("after the deadline: %d units spent, ended %v, over %v; want under %d, ended", spent, w.ended, w.over, workTick)
	}
}
