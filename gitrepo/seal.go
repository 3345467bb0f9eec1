package gitrepo

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Seals on the hook's own state files (issue 38 items 6 and 10): the installers' record, the
// ref-write log, the session bindings and the caller tickets were plain text that anything could
// append to or rewrite, so one forged line made a changed settings file count as installed or a
// rewritten workflow ref as git exarchos's own. Each line or record now carries an HMAC-SHA256
// under a random key kept beside it (a repository's under its common git directory, the session
// store's in that store), which the hook refuses the agent's file tools and the Bash commands it
// can read to write. A record without a valid seal is not believed.
//
// What it does not stop, said plainly: the key is a file of the user's, so a process that reads
// it first (python opening .git/exarchos/key) can seal what it forges. The seal turns "append a
// line" into "read a secret, compute an HMAC, write the line": a determined attempt the hook does
// not see, which only signed mode (signed decisions, verify in CI) stops.

// SealKeyFile is the key of the seals kept under dir.
func SealKeyFile(dir string) string { return filepath.Join(dir, "key") }

// SealKey reads the key kept under dir, creating it (32 random bytes, mode 0600) when create is
// set and there is none. Two processes creating it at once agree: the key is linked into place,
// never renamed over one already there.
func SealKey(dir string, create bool) ([]byte, error) {
	p := SealKeyFile(dir)
	b, err := os.ReadFile(p)
	if err == nil && len(b) >= 32 {
		return b, nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) || !create {
		if err == nil {
			err = errors.New("the seal key " + p + " is too short")
		}
		return nil, err
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	tmp := p + ".tmp" + strconv.Itoa(os.Getpid()) + strconv.FormatInt(time.Now().UnixNano(), 36)
	if err := os.WriteFile(tmp, key, 0o600); err != nil {
		return nil, err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, p); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	return SealKey(dir, false)
}

// Seal is the seal of data under key: 32 hex digits (128 bits of HMAC-SHA256).
func Seal(key, data []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write(data)
	return hex.EncodeToString(m.Sum(nil)[:16])
}

// Sealed reports whether seal is data's under key (a nil key seals nothing).
func Sealed(key, data []byte, seal string) bool {
	if len(key) == 0 {
		return false
	}
	return hmac.Equal([]byte(Seal(key, data)), []byte(seal))
}

// RepoSealDir is where a repository keeps its seal key: <common git dir>/exarchos.
func RepoSealDir(commonDir string) string { return filepath.Join(commonDir, "exarchos") }
