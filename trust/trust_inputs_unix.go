//go:build unix

package trust

import (
	"fmt"
	"io/fs"
	"syscall"
)

// fileIdentity names a file's version: a rename over it changes its inode, a write its size or
// modification time.
func fileIdentity(info fs.FileInfo) string {
	ino := uint64(0)
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		ino = uint64(st.Ino)
	}
	return fmt.Sprintf("%d:%d:%d", info.Size(), info.ModTime().UnixNano(), ino)
}
