//go:build !unix

package gitrepo

import (
	"io"
	"os"
)

// mapFile reads the whole file where memory mapping is not available.
func mapFile(f *os.File, size int64) ([]byte, func(), error) {
	b := make([]byte, size)
	if _, err := io.ReadFull(f, b); err != nil {
		return nil, nil, err
	}
	return b, func() {}, nil
}
