package engine

import "syscall"

// fstatat is fstatat(2).
func fstatat(dirfd int, name string, st *syscall.Stat_t, flags int) error {
	return syscall.Fstatat(dirfd, name, st, flags)
}
