//go:build !linux

package atomicfile

import (
	"errors"
	"io/fs"
	"os"
)

func createUnnamed(string, fs.FileMode) (*os.File, error) { return nil, errors.ErrUnsupported }

func linkUnnamed(*os.File, string, string) (string, error) { return "", errors.ErrUnsupported }
