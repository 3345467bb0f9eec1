//go:build !unix

package trust

import (
	"fmt"
	"io/fs"
)

// fileIdentity names a file's version by its size and modification time.
func fileIdentity(info fs.FileInfo) string {
	return fmt.Sprintf("%d:%d", info.Size(), info.ModTime().UnixNano())
}
