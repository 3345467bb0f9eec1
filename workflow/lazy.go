package workflow

import (
	"regexp"
	"sync"
)

// lazyRegexp compiles a pattern on first use: every hook call starts a process, and compiling
// patterns it never uses at start-up would be paid on each one.
func lazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}
