//go:build linux && (amd64 || arm64)

package engine

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// TestCreateDirectorySwapRace exchanges (renameat2 RENAME_EXCHANGE, so the name is never missing)
// the in-root directory work with in-root symlinks to the denied secret/ and the protected .git/,
// while create_directory work/xN/a/…/h runs over and over. A swap may fail a call but must never
// redirect it: nothing may ever appear inside secret/ or .git/.
func TestCreateDirectorySwapRace(t *testing.T) {
	fx := makeFixture(t, "work/", "secret/keep: s\n", ".git/HEAD: ref\n", "to-secret => secret", "to-git => .git")
	e := fx.engine(schema.Config{DeniedPatterns: &[]string{"secret/**"}})
	secretBefore, gitBefore := snapshot(t, fx.abs("secret")), snapshot(t, fx.abs(".git"))

	stopSwaps := swapRacer(fx.abs("work"), fx.abs("to-secret"), fx.abs("to-git"))
	const rounds = 3000
	ok := 0
	for i := 0; i < rounds; i++ {
		_, err := tryCall(t, e, "create_directory", map[string]any{"path": fmt.Sprintf("work/x%d/a/b/c/d/e/f/g/h", i)}, Hooks{})
		if err == nil {
			ok++
		} else if err.Kind == "internal" {
			t.Errorf("create_directory: %s: %s", err.Kind, err.Msg)
		}
	}
	swaps := stopSwaps()
	t.Logf("%d swaps, %d of %d creations succeeded", swaps, ok, rounds)
	if after := snapshot(t, fx.abs("secret")); after != secretBefore {
		t.Errorf("created inside the denied directory: %d entries", strings.Count(after, ";")-strings.Count(secretBefore, ";"))
	}
	if after := snapshot(t, fx.abs(".git")); after != gitBefore {
		t.Errorf("created inside the protected .git: %d entries", strings.Count(after, ";")-strings.Count(gitBefore, ";"))
	}
}

// TestSwapNeverInvalidPath exchanges the directory dir with an in-root symlink (to another
// directory) while file_info and list_directory run on it: a call caught mid-swap (a name that
// was a symlink at the lstat and a directory at the readlink, EINVAL) is changed_during_request,
// never invalid_path with an OS error text.
func TestSwapNeverInvalidPath(t *testing.T) {
	fx := makeFixture(t, "dir/f.txt: x\n", "other/f.txt: y\n", "lnk => other")
	e := fx.engine(schema.Config{})
	var done atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !done.Load() {
			renameExchange(fx.abs("dir"), fx.abs("lnk"))
		}
	}()
	kinds := map[string]int{}
	for i := 0; i < 4000; i++ {
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{"file_info", map[string]any{"path": "dir/f.txt"}},
			{"list_directory", map[string]any{"path": "dir"}},
			{"find_files", map[string]any{"pattern": "*", "path": "dir"}},
		} {
			_, err := tryCall(t, e, c.tool, c.args, Hooks{})
			if err == nil {
				continue
			}
			kinds[string(err.Kind)]++
			if err.Kind == schema.KindInvalidPath || strings.Contains(err.Msg, "Errno") {
				t.Errorf("%s mid-swap: %s: %s", c.tool, err.Kind, err.Msg)
			}
		}
	}
	done.Store(true)
	wg.Wait()
	t.Logf("error kinds: %v", kinds)
}
