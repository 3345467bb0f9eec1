package hookrun

// The controls' watch of the workflow refs (hook_controls.go), made to cost little with a thousand
// loose refs. With every ref file's stamp a line of the stamps file (stat of its whole path,
// formatted by fmt) and every ref read again and kept as a JSON object whenever one moved, the
// watch was a third of the CPU of a session's calls with 1,000 loose refs: PostToolUse went from
// 2.4–2.6x to 4.1–4.7x `git rev-parse` and SessionStart after a ref moved from 6.4–8.4x to
// 18.3–19.8x (BENCHMARKS.md, "The controls' watch of a thousand refs"). Now:
//   - the common path stamps the loose refs by a stat relative to their directory
//     (gitrepo.StampsIn), each kept by its name under one line naming the directory;
//   - a look at the refs reads only the files whose settled stamp moved since the last look
//     (gitrepo.ScanRefsKnown, with the stamps kept in the state);
//   - the refs and their stamps are kept as lines after the state's JSON, not as JSON objects.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/exarchos/git-exarchos/fsmonitor"
	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/internal/atomicfile"
	"github.com/exarchos/git-exarchos/project"
)

// refFilesLine starts the stamps file's block of loose ref files: "=\t<refs directory>", then
// "<stamp>\t<file name>" lines, stamped by gitrepo.StampsIn.
const refFilesLine = "="

// encodeControls is the state as it is kept: its JSON on one line, then one line a workflow ref,
// "<ref> <commit> <stamp of its file, or ->". A thousand refs as JSON objects took longer to
// encode and decode than everything else the watch does.
func encodeControls(st *controlState) ([]byte, error) {
	st.OldRefs = nil
	head, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(head)+1+len(st.Refs)*128)
	b = append(append(b, head...), '\n')
	for name, commit := range st.Refs {
		if strings.ContainsAny(name, " \n") || strings.ContainsAny(commit, " \n") {
			continue // no ref name or commit holds one (git refuses such names)
		}
		stamp := st.RefStamps[name]
		if stamp == "" || strings.ContainsAny(stamp, " \n") {
			stamp = "-"
		}
		b = append(append(append(append(append(append(b, name...), ' '), commit...), ' '), stamp...), '\n')
	}
	return b, nil
}

// decodeControls reads what encodeControls kept, or the JSON alone an older version kept (its refs
// an object, no stamps).
func decodeControls(b []byte) (*controlState, error) {
	head, rest, _ := bytes.Cut(b, []byte{'\n'})
	var st controlState
	if err := json.Unmarshal(head, &st); err != nil {
		return nil, err
	}
	st.Refs, st.RefStamps = st.OldRefs, map[string]string{}
	st.OldRefs = nil
	if st.Refs == nil {
		st.Refs = make(map[string]string, bytes.Count(rest, []byte{'\n'}))
	}
	for len(rest) > 0 {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte{'\n'})
		name, line, ok1 := bytes.Cut(line, []byte{' '})
		commit, stamp, ok2 := bytes.Cut(line, []byte{' '})
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("a ref line without its commit and stamp")
		}
		st.Refs[string(name)] = string(commit)
		if string(stamp) != "-" {
			st.RefStamps[string(name)] = string(stamp)
		}
	}
	return &st, nil
}

// workflowRefs are the workflow refs and their commits (loose and packed, no git process), with
// the settled stamps of the loose files they were read from: a file whose stamp is the one prev
// kept is not read again.
func (r *Repo) workflowRefs(prev *controlState) (commits, stamps map[string]string) {
	known := map[string]gitrepo.StampedRef{}
	if prev != nil {
		for name, s := range prev.RefStamps {
			if h, ok := gitrepo.ParseHash([]byte(prev.Refs[name])); ok && s != "" {
				known[name] = gitrepo.StampedRef{Hash: h, Stamp: s}
			}
		}
	}
	commits, stamps = map[string]string{}, map[string]string{}
	refs, _, settled, err := gitrepo.ScanRefsKnown(r.CommonDir(), gitstore.RefPrefix, func(f string) bool { return gitstore.ValidateFeature(f) == nil }, known)
	if err != nil {
		return commits, stamps
	}
	for name, h := range refs {
		commits[name] = h.String()
		if s := settled[name]; s != "" {
			stamps[name] = s
		}
	}
	return commits, stamps
}

// stampRefFiles stamps every entry of the loose refs' directory for the stamps file (before the
// refs are read: a write after it shows as another stamp on the next call).
func (r *Repo) stampRefFiles() map[string]string {
	d, err := os.Open(r.refsDir())
	if err != nil {
		return nil
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil
	}
	files := make(map[string]string, len(names))
	for i, s := range gitrepo.StampsIn(r.refsDir(), names) {
		files[names[i]] = s
	}
	return files
}

// refFilesHold reports whether every loose ref file named in the stamps file's block still has
// the stamp kept for it; one kept as "<stamp>@<commit>" (this process's own move,
// hook_controls_moves.go) must also hold that commit.
func refFilesHold(dir string, names, kept []string) bool {
	for i, s := range gitrepo.StampsIn(dir, names) {
		stamp, commit, own := strings.Cut(kept[i], "@")
		if s != stamp {
			return false
		}
		if own {
			b, err := os.ReadFile(filepath.Join(dir, names[i]))
			if err != nil || string(bytes.TrimSpace(b)) != commit {
				return false
			}
		}
	}
	return true
}

// The ref files under the file-system monitor. Stamping every loose ref file is O(refs): with
// 10,000 loose refs it cost PostToolUse 10,000 fstatat and the hook's 15 ms (BENCHMARKS.md, "The
// controls' refs under the monitor"). The monitor the effects check starts also watches the refs
// (fsmonitor.RefsToken): once a full stamp of the ref files held, the refs token read before it is
// kept with a checksum of the stamps file's content, and while both are unchanged the ref files are not stamped
// again. No monitor, another one (restarted), a queue overflow, any change to refs/exarchos/,
// packed-refs or reftable/, or a stamps file rewritten since: the files are stamped, as before.

// refsToken is the monitor's token of the refs, "" when none answers for them.
func (r *Repo) refsToken(root string) string {
	if root == "" || r.HookMonitorOff() {
		return ""
	}
	tok, err := fsmonitor.RefsToken(root, r.CommonDir())
	if err != nil {
		return ""
	}
	return tok
}

func (r *Repo) refsTokenPath(root string) string {
	return filepath.Join(r.CommonDir(), filepath.FromSlash(controlsDir), "refstoken-"+project.HashHex(root)[:16])
}

// stampsSum names the stamps file's content (CRC-32C, a few microseconds at 10,000 refs).
func stampsSum(b []byte) string {
	return strconv.Itoa(len(b)) + "-" + strconv.FormatUint(uint64(crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli))), 16)
}

// refsUnchanged reports whether the last full stamp of the ref files held under this refs token
// and this very stamps file.
func (r *Repo) refsUnchanged(root, token, stampsSum string) bool {
	if token == "" || stampsSum == "" {
		return false
	}
	b, err := os.ReadFile(r.refsTokenPath(root))
	return err == nil && string(b) == token+"\n"+stampsSum+"\n"
}

// refFilesHoldUnder stamps the ref files, and keeps the refs token when they hold.
func (r *Repo) refFilesHoldUnder(root, token, stampsSum, dir string, names, kept []string) bool {
	if !refFilesHold(dir, names, kept) {
		return false
	}
	if token != "" && stampsSum != "" {
		_ = atomicfile.Write(r.refsTokenPath(root), []byte(token+"\n"+stampsSum+"\n"), 0o644)
	}
	return true
}
