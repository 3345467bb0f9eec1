//go:build !linux

package gitrepo

import (
	"errors"
	"fmt"
)

// DirInodes is not implemented here: callers read the files instead.
func DirInodes(dir string) (map[string]uint64, error) {
	return nil, fmt.Errorf("list %s with inode numbers: %w", dir, errors.ErrUnsupported)
}
