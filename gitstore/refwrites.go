package gitstore

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/exarchos/git-exarchos/gitrepo"
)

// The ref-write log says which moves of refs/exarchos/* git exarchos made itself, so the hook can
// tell them from a ref moved by anything else (git update-ref, fast-import --force, a script):
// one line "<ref> <new commit><TAB><seal>" per write (gitrepo/seal.go: a line without a valid
// seal is not believed), appended with a single O_APPEND write before the ref
// moves. A line whose write then lost its race names a commit the ref never took, which only
// makes that commit look like the CLI's own: harmless. Anything may delete the file; a reader
// that finds it shorter than where it stopped reads it from the start.
const refWritesPath = "exarchos/ref-writes"

// RefWritesFile is the log's path in a repository's common git directory.
func RefWritesFile(commonDir string) string {
	return filepath.Join(commonDir, filepath.FromSlash(refWritesPath))
}

// Move is one move of a workflow ref this store made, reported in the result of the call that
// made it (Result.Moved, Integration.Moved, a deletion's caller): the store calls nobody about
// it. Whoever keeps something in step with the refs (the hooks' branch index and controls,
// hookrun.Repo.Moved) is handed the moves by the caller of the write.
type Move struct {
	Feature string
	// From is the commit the compare-and-swap replaced (zero: the ref was created).
	From gitrepo.Hash
	// To is the commit the ref holds after the move (zero: deleted).
	To gitrepo.Hash
}

// logRefWrite logs that this process is about to move ref to h (zero: delete it).
func (s *Store) logRefWrite(ref string, h gitrepo.Hash) {
	p := RefWritesFile(s.loc.CommonDir)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if errors.Is(err, fs.ErrNotExist) {
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		f, err = os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	}
	if err != nil {
		return // the hook will hold the workflow as moved from outside: fail closed, a human accepts
	}
	defer f.Close()
	key, err := gitrepo.SealKey(gitrepo.RepoSealDir(s.loc.CommonDir), true)
	if err != nil {
		return // unsealed, the line would not be believed: the same as none
	}
	line := ref + " " + h.String()
	_, _ = f.WriteString(line + "\t" + gitrepo.Seal(key, []byte(line)) + "\n")
}

// RefWritesSince reads the log from offset: the last commit git exarchos wrote to each ref since
// then, and the offset of the log's end.
func RefWritesSince(commonDir string, offset int64) (map[string]string, int64, error) {
	f, err := os.Open(RefWritesFile(commonDir))
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() < offset {
		offset = 0 // rewritten or truncated: what is there is all there is
	}
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return nil, 0, err
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, 0, err
	}
	end := offset + int64(len(b))
	if i := bytes.LastIndexByte(b, '\n'); i+1 < len(b) {
		end -= int64(len(b) - i - 1) // a line being written: read it next time
		b = b[:i+1]
	}
	last := map[string]string{}
	if len(b) == 0 {
		return last, end, nil
	}
	key, _ := gitrepo.SealKey(gitrepo.RepoSealDir(commonDir), false) // none: no line is believed
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line, seal, sealed := strings.Cut(sc.Text(), "\t")
		if !sealed || !gitrepo.Sealed(key, []byte(line), seal) {
			continue // not written by git exarchos (issue 38 item 10): its move stays one from outside
		}
		if ref, h, ok := strings.Cut(line, " "); ok {
			last[ref] = h
		}
	}
	return last, end, nil
}
