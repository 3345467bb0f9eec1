package app

import (
	"fmt"
	"io"
	"os"

	"github.com/exarchos/git-exarchos/project"
)

// MaxSubmission bounds a completion payload (`submit`).
const MaxSubmission = 1 << 20

// readBounded reads what the caller hands in (a file, or stdin when name is "-" or r is given),
// reading at most limit+1 bytes, so that /dev/zero or a runaway pipe costs nothing: more than
// limit is a usage error naming the limit.
func readBounded(name string, r io.Reader, limit int, what string) ([]byte, error) {
	if r == nil {
		f, err := os.Open(name)
		if err != nil {
			return nil, project.Usagef("read %s: %v", name, err) // a file the caller named: bad input
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if len(b) > limit {
		return nil, project.Usagef("%s is over the limit of %d KiB for %s", name, limit>>10, what)
	}
	return b, nil
}
