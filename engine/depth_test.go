package engine

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/engine/internal/relpath"
	"github.com/fsbox/fsbox/schema"
)

// deepPath is "d/d/…/d", depth components.
func deepPath(depth int) string { return strings.TrimSuffix(strings.Repeat("d/", depth), "/") }

// stepsOf runs one call and returns how many per-component steps (opens, stats, mkdirs of a
// single name) the engine took for it.
func stepsOf(t *testing.T, e *Engine, tool string, args map[string]any) int64 {
	t.Helper()
	before := componentSteps.Load()
	mustCall(t, e, tool, args, Hooks{})
	return componentSteps.Load() - before
}

// TestDeepPathsLinear creates and then reads paths 250, 500, 1000 and 2000 directories deep and checks
// that the engine's per-component steps grow linearly with the depth: a bounded number of steps
// per component (a re-walk of every prefix would be depth²/2, 500 000 at depth 1000). It counts
// steps instead of timing the calls.
func TestDeepPathsLinear(t *testing.T) {
	if !componentStepsCounted {
		t.Skip("per-component steps are counted by the Linux descriptor walk only")
	}
	for _, depth := range []int{250, 500, 1000, 2000} {
		fx := makeFixture(t)
		e := fx.engine(schema.Config{})
		p := deepPath(depth)
		create := stepsOf(t, e, "create_directory", map[string]any{"path": p})
		if _, err := os.Stat(fx.abs(p)); err != nil {
			t.Fatalf("depth %d: not created: %v", depth, err)
		}
		fx.add(p + "/f.txt: deep\n")
		read := stepsOf(t, e, "read_file", map[string]any{"path": p + "/f.txt"})
		t.Logf("depth %d: create %d steps, read %d steps", depth, create, read)
		const perComponent = 8
		if create > perComponent*int64(depth) || read > perComponent*int64(depth) {
			t.Errorf("depth %d: create took %d steps, read %d; want at most %d (linear)", depth, create, read, perComponent*depth)
		}
		if create < int64(depth) {
			t.Errorf("depth %d: create took %d steps, fewer than one per component: not counted", depth, create)
		}
	}
}

// TestPathTooLong refuses paths past relpath.MaxBytes or relpath.MaxComponents, spelled or reached
// through symlinks, with path_too_long (a retry kind) and creates nothing.
func TestPathTooLong(t *testing.T) {
	fx := makeFixture(t, "a/")
	// The link (4000 bytes) expands to 1600 components; with 500 more that exceeds
	// relpath.MaxComponents.
	fx.add("big => " + strings.TrimSuffix(strings.Repeat("a/../", 800), "/"))
	e := fx.engine(schema.Config{})
	cases := []struct{ tool, path string }{
		{"create_directory", deepPath(3000)},                              // 6000 bytes
		{"create_directory", strings.Repeat("./", 1000) + deepPath(1100)}, // 4199 bytes
		{"read_file", strings.Repeat("x", relpath.MaxBytes+1)},            // one long name
		{"create_directory", "big/" + deepPath(500)},                      // 600 + 500 components after expansion
	}
	for _, c := range cases {
		_, err := tryCall(t, e, c.tool, map[string]any{"path": c.path}, Hooks{})
		if err == nil || err.Kind != schema.KindPathTooLong || !err.Retry() {
			t.Errorf("%s(%d bytes) = %v, want path_too_long", c.tool, len(c.path), err)
			continue
		}
		if len(err.Msg) > 300 {
			t.Errorf("message is %d bytes long: %q", len(err.Msg), err.Msg)
		}
	}
	if _, err := os.Stat(fx.abs("d")); err == nil {
		t.Errorf("a refused path created d/")
	}
}

// TestDeepCreateCancelled cancels the call's context once the change is approved: the deep
// create must stop (the call ends as cancelled) instead of creating the whole chain.
func TestDeepCreateCancelled(t *testing.T) {
	fx := makeFixture(t)
	e := fx.engine(schema.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := Hooks{ChangeRequest: func(context.Context, *schema.FileChangeRequest) (schema.ChangeRequestResult, error) {
		cancel()
		return Approve(), nil
	}}
	raw, _ := json.Marshal(map[string]any{"path": deepPath(1000)})
	_, err := e.Call(ctx, "create_directory", raw, h)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("create_directory = %v, want the call cancelled", err)
	}
	if _, err := os.Stat(fx.abs(deepPath(cancelCheckEvery + 1))); err == nil {
		t.Errorf("the cancelled create went on past %d components", cancelCheckEvery)
	}
}
