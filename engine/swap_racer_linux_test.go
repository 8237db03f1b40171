//go:build linux && (amd64 || arm64)

package engine

import (
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// The racer of the swap tests: a directory exchanged with symlinks, atomically (the name is
// never missing), while the engine works beneath it.

const atFDCWD = -100

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

// swapRacer exchanges dir with each of links in turn and back again, over and over, until the
// returned stop is called; stop waits for the racer and returns how many swaps it made, so a
// test can check the race was real. The racer always swaps back, so dir is a directory again
// once stop returns.
func swapRacer(dir string, links ...string) (stop func() int) {
	var done atomic.Bool
	var swaps atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; !done.Load(); i++ {
			link := links[i%len(links)]
			if renameExchange(dir, link) == nil {
				renameExchange(dir, link)
				swaps.Add(1)
			}
		}
	}()
	return func() int {
		done.Store(true)
		wg.Wait()
		return int(swaps.Load())
	}
}
