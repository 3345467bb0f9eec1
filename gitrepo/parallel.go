package gitrepo

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Parallel runs f(0..n-1) on a few goroutines, or in turn when n is below sequentialBelow: the
// jobs it serves (reading or writing many small files, parsing segments) are independent and
// syscall- or CPU-bound, but a goroutine costs more than it overlaps when there are only a few.
func Parallel(n, sequentialBelow int, f func(int)) {
	if n < sequentialBelow || n < 2 {
		for i := 0; i < n; i++ {
			f(i)
		}
		return
	}
	workers := min(n, 2*runtime.GOMAXPROCS(0))
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				f(i)
			}
		}()
	}
	wg.Wait()
}
