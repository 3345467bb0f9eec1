// Package fsmonitor tells the PostToolUse hook, without reading the whole working tree, that nothing
// in it changed since it last looked.
//
// The hook's effects check compares the working tree with what the phase may change. `git status`
// does it by lstat-ing every tracked file, which costs 20–60 ms at 10,000 files on a small machine,
// on every tool call. A monitor process watches the working tree with inotify and keeps a counter
// of the changes it has seen; a caller reads the monitor's token (its identity and that counter),
// runs `git status` once, and keeps the answer under the token. While the token stays the same,
// nothing under the working tree changed, and the kept answer still holds. git's own monitor
// (core.fsmonitor) is not available on Linux in git 2.39. Measured: PostToolUse in a restricted
// phase at 10,000 files went from 28–30 ms to 6.4–6.6 ms (BENCHMARKS.md, "PostToolUse under a
// file-system monitor, packed-refs mapped", second stop).
//
// A token is read only after the monitor has drained every event the kernel queued, and the kernel
// queues an event while the write that makes it is still in its system call, so a change made before
// a token is read is counted in it. A directory created in the tree is watched (with everything
// under it) while the event of its creation is drained, before the token that counts it is given
// out; whatever was written in it before that is seen by the `git status` the changed token calls
// for. A queue overflow or a moved directory makes the monitor walk the tree again and count a
// change.
//
// What inotify cannot see: writes through a shared memory map, and writes to a file through a hard
// link that lives outside the tree. The monitor re-reads every file's status (ctime, mtime, size,
// inode) on a timer (Options.Rescan) and counts a change when one differs, so such a write is
// noticed within that period; the paths-allowed guard at the next transition and `git exarchos
// verify` read the branch itself whatever the hook saw.
//
// The monitor listens on an abstract unix socket named after the user and the working tree, so no
// file under .git/ is needed, and two monitors of one tree cannot both bind it. A caller accepts a
// token only from a process of its own user.
//
// It may import the standard library, golang.org/x/sys/unix (inotify) and the internal helpers.
package fsmonitor

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"time"
)

// ErrNotRunning is returned by Token when no monitor watches the tree.
var ErrNotRunning = errors.New("no file-system monitor watches this working tree")

// ErrUnsupported is returned where the platform has no inotify.
var ErrUnsupported = errors.New("file-system monitor not supported on this platform")

// Options tune a monitor; the zero value is what the hook starts.
type Options struct {
	// Idle ends the monitor when no caller has asked for this long (default 30 minutes).
	Idle time.Duration
	// Rescan is how often every file's status is compared with the last seen (default 5 s; negative: never).
	Rescan time.Duration
	// Pause stops the timed rescans when nobody asked for this long (default 1 minute); the next
	// question then rescans first.
	Pause time.Duration
	// Ready, when set, is called once the tree is watched and the socket listens.
	Ready func()
}

func (o Options) withDefaults() Options {
	if o.Idle == 0 {
		o.Idle = 30 * time.Minute
	}
	if o.Rescan == 0 {
		o.Rescan = 5 * time.Second
	}
	if o.Pause == 0 {
		o.Pause = time.Minute
	}
	return o
}

// socketName is the abstract socket of root's monitor: one per user and working tree.
func socketName(root string) string {
	sum := sha256.Sum256([]byte(root))
	return fmt.Sprintf("@git-exarchos-fsmonitor/%d/%s", os.Getuid(), hex.EncodeToString(sum[:12]))
}
