//go:build unix

package gitrepo

import (
	"os"
	"syscall"
)

// mapFile maps a file read-only: pages are read on first touch, so looking one id up in a large
// pack index costs a few page faults, not a read of the whole index. Mapping packed-refs instead of
// copying it (660 KB at 10,000 workflows), with its binary search, took PreToolUse from 9.01 to
// 7.71 ms (BENCHMARKS.md,
// second stop of 2026-11-23).
func mapFile(f *os.File, size int64) ([]byte, func(), error) {
	if size == 0 {
		return nil, func() {}, nil
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return b, func() { syscall.Munmap(b) }, nil
}
