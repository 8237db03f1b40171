//go:build linux && amd64

// The raw-fstatat case names SYS_NEWFSTATAT, which linux/arm64 does not have (it is fstatat
// there), so this file is built on linux/amd64 only.

package engine

import (
	"path/filepath"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// BenchmarkStatPerFile measures the system calls a listing with sizes is made of, per regular
// file of GOROOT/src/net (the kit's list_dir): the fstatat the walkers use, statx with the
// smallest mask that still gives the size and with the basic one, a raw fstatat (no scheduler
// hand-off, which the walkers do not use: a hung filesystem would stall the runtime), and per
// directory the open + getdents64 + close that lists it. Directories and links are never
// stat'ed (getdents64's d_type tells them apart), so only regular files count. bench/README.md
// (issue 25) explains what these numbers decided.
func BenchmarkStatPerFile(b *testing.B) {
	dir := filepath.Join(goSrc(b), "net")
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer syscall.Close(fd)
	ents, err := dirHandle{fd: fd}.list()
	if err != nil {
		b.Fatal(err)
	}
	var files []string
	for _, de := range ents {
		if de.Type().IsRegular() {
			files = append(files, de.Name())
		}
	}
	perFile := func(b *testing.B, stat func(name string) error) {
		for b.Loop() {
			for _, n := range files {
				if err := stat(n); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(files)), "ns/file")
	}
	var st syscall.Stat_t
	var sx unix.Statx_t
	b.Run("fstatat", func(b *testing.B) {
		perFile(b, func(n string) error { return fstatat(fd, n, &st, atSymlinkNoFollow) })
	})
	for _, m := range []struct {
		name string
		mask int
	}{{"statx-type-size", unix.STATX_TYPE | unix.STATX_SIZE}, {"statx-basic", unix.STATX_BASIC_STATS}} {
		b.Run(m.name, func(b *testing.B) {
			perFile(b, func(n string) error {
				return unix.Statx(fd, n, unix.AT_SYMLINK_NOFOLLOW|unix.AT_STATX_DONT_SYNC, m.mask, &sx)
			})
		})
	}
	b.Run("raw-fstatat", func(b *testing.B) {
		perFile(b, func(n string) error {
			p, err := syscall.BytePtrFromString(n)
			if err != nil {
				return err
			}
			if _, _, errno := syscall.RawSyscall6(syscall.SYS_NEWFSTATAT, uintptr(fd), uintptr(unsafe.Pointer(p)),
				uintptr(unsafe.Pointer(&st)), atSymlinkNoFollow, 0, 0); errno != 0 {
				return errno
			}
			return nil
		})
	})
	b.Run("open-getdents-close", func(b *testing.B) {
		for b.Loop() {
			d, err := openat(fd, ".", syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := (dirHandle{fd: d}).list(); err != nil {
				b.Fatal(err)
			}
			syscall.Close(d)
		}
	})
}
