//go:build !linux

package fsmonitor

import "errors"

// ErrAlreadyRunning is returned by Serve when another monitor watches the tree.
var ErrAlreadyRunning = errors.New("a file-system monitor already watches this working tree")

// Token: without inotify there is no monitor, and the hook reads the whole tree.
func Token(string) (string, error) { return "", ErrUnsupported }

// Serve: without inotify there is no monitor.
func Serve(string, Options) error { return ErrUnsupported }

// Capacity: without inotify there is nothing to count.
func Capacity(string) (int, int, error) { return 0, 0, ErrUnsupported }

// ErrRefsNotWatched is returned by RefsToken when no monitor watches the refs.
var ErrRefsNotWatched = errors.New("the file-system monitor does not watch these refs")

// RefsToken: without inotify there is no monitor, and the hook stamps the refs itself.
func RefsToken(string, string) (string, error) { return "", ErrUnsupported }
