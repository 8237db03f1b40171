package engine

import (
	"fmt"
	"os"
	"testing"
)

// TestRestoreSwapRace exchanges (RENAME_EXCHANGE, so the name never goes missing) the directory
// dir with a symlink to the outside, and with one to another directory of the root, while checkpoint/restore puts dir's files back: the restore
// never writes outside the root, never follows the swapped link, and every path it does not
// restore is reported, never silently skipped.
func TestRestoreSwapRace(t *testing.T) {
	fx := makeFixture(t, "dir/sub/", "$OUTSIDE/sub/")
	const files = 16
	for i := 0; i < files; i++ {
		fx.add(fmt.Sprintf("dir/f%d.txt: orig %d\n", i, i), fmt.Sprintf("dir/sub/g%d.txt: orig %d\n", i, i))
	}
	fx.add("link => $OUTSIDE", "other/keep.txt: keep\n", "inlink => other")
	e, _ := journalEngine(t, fx, nil, nil)
	outsideBefore, otherBefore := snapshot(t, fx.outside), snapshot(t, fx.abs("other"))
	id := checkpoint(t, e, "")
	swapped, reported := 0, 0
	for round := 0; round < 12; round++ {
		for i := 0; i < files; i++ {
			mustCall(t, e, "write_file", map[string]any{"path": fmt.Sprintf("dir/f%d.txt", i), "content": fmt.Sprintf("round %d\n", round)}, Hooks{})
		}
		mustCall(t, e, "delete", map[string]any{"path": "dir/sub", "recursive": true}, Hooks{})
		stopSwaps := swapRacer(fx.abs("dir"), fx.abs("link"), fx.abs("inlink"))
		res := restore(t, e, id, false)
		swapped += stopSwaps()
		if fi, err := os.Lstat(fx.abs("dir")); err != nil || !fi.IsDir() {
			t.Fatal("the racer left dir swapped")
		}
		if after := snapshot(t, fx.outside); after != outsideBefore {
			t.Fatalf("round %d: the restore wrote outside the root:\n%s", round, after)
		}
		if after := snapshot(t, fx.abs("other")); after != otherBefore {
			t.Fatalf("round %d: the restore followed the swapped link into other/:\n%s", round, after)
		}
		accounted := map[string]bool{}
		for _, p := range append(append([]string{}, res.Restored...), res.Unchanged...) {
			accounted[p] = true
		}
		for _, f := range res.NotRestored {
			accounted[f.Path] = true
			reported++
			if f.Kind == "internal" {
				t.Errorf("round %d: %s: internal error %s", round, f.Path, f.Reason)
			}
		}
		for i := 0; i < files; i++ {
			p := fmt.Sprintf("dir/f%d.txt", i)
			if !accounted[p] {
				t.Errorf("round %d: %s neither restored nor reported", round, p)
			}
		}
		// Without the racer the same restore finishes the job.
		if again := restore(t, e, id, false); !again.Complete {
			t.Fatalf("round %d: restore after the race: %+v", round, again.NotRestored)
		}
		for i := 0; i < files; i++ {
			if got, want := fx.read(fmt.Sprintf("dir/f%d.txt", i)), fmt.Sprintf("orig %d\n", i); got != want {
				t.Fatalf("round %d: f%d.txt = %q", round, i, got)
			}
		}
	}
	t.Logf("%d swaps; %d paths reported not restored during the races", swapped, reported)
	if swapped == 0 {
		t.Skip("the racer never swapped")
	}
}
