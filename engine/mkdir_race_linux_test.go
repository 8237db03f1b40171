//go:build linux && (amd64 || arm64)

package engine

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"unsafe"

	"github.com/fsbox/fsbox/schema"
)

// renameExchange swaps two names atomically (renameat2 with RENAME_EXCHANGE).
func renameExchange(a, b string) error {
	pa, err := syscall.BytePtrFromString(a)
	if err != nil {
		return err
	}
	pb, err := syscall.BytePtrFromString(b)
	if err != nil {
		return err
	}
	const renameExchangeFlag = 1 << 1
	fdcwd := atFDCWD
	_, _, errno := syscall.Syscall6(sysRenameat2, uintptr(fdcwd), uintptr(unsafe.Pointer(pa)),
		uintptr(fdcwd), uintptr(unsafe.Pointer(pb)), renameExchangeFlag, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

const atFDCWD = -100

// TestCreateDirectorySwapRace exchanges (renameat2 RENAME_EXCHANGE, so the name is never missing)
// the in-root directory work with in-root symlinks to the denied secret/ and the protected .git/,
// while create_directory work/xN/a/…/h runs over and over. A swap may fail a call but must never
// redirect it: nothing may ever appear inside secret/ or .git/.
func TestCreateDirectorySwapRace(t *testing.T) {
	fx := makeFixture(t, "work/", "secret/keep: s\n", ".git/HEAD: ref\n", "to-secret => secret", "to-git => .git")
	e := fx.engine(schema.Config{DeniedPatterns: []string{"secret/**"}})
	secretBefore, gitBefore := snapshot(t, fx.abs("secret")), snapshot(t, fx.abs(".git"))

	var done atomic.Bool
	var swaps atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; !done.Load(); i++ {
			link := fx.abs([]string{"to-secret", "to-git"}[i%2])
			if renameExchange(fx.abs("work"), link) == nil {
				renameExchange(fx.abs("work"), link)
				swaps.Add(1)
			}
		}
	}()
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
	done.Store(true)
	wg.Wait()
	t.Logf("%d swaps, %d of %d creations succeeded", swaps.Load(), ok, rounds)
	if after := snapshot(t, fx.abs("secret")); after != secretBefore {
		t.Errorf("created inside the denied directory: %d entries", strings.Count(after, ";")-strings.Count(secretBefore, ";"))
	}
	if after := snapshot(t, fx.abs(".git")); after != gitBefore {
		t.Errorf("created inside the protected .git: %d entries", strings.Count(after, ";")-strings.Count(gitBefore, ";"))
	}
}
