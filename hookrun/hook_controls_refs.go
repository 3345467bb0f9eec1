package hookrun

// The controls' watch of the workflow refs (hook_controls.go), made to cost little with a thousand
// loose refs. With every ref file's stamp a line of the stamps file (stat of its whole path,
// formatted by fmt) and every ref read again and kept as a JSON object whenever one moved, the
// watch was a third of the CPU of a session's calls with 1,000 loose refs: PostToolUse went from
// 2.3x to 4–5.5x `git rev-parse` and SessionStart after a ref moved from 8x to 21–24x
// (BENCHMARKS.md, "The controls' watch of a thousand refs"). Now:
//   - the common path stamps the loose refs by a stat relative to their directory
//     (gitrepo.StampsIn), each kept by its name under one line naming the directory;
//   - a look at the refs reads only the files whose settled stamp moved since the last look
//     (gitrepo.ScanRefsKnown, with the stamps kept in the state);
//   - the refs and their stamps are kept in the state as one string of lines, not a JSON object.

import (
	"encoding/json"
	"os"
	"strings"

	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/gitstore"
)

// refFilesLine starts the stamps file's block of loose ref files: "=\t<refs directory>", then
// "<stamp>\t<file name>" lines, stamped by gitrepo.StampsIn.
const refFilesLine = "="

// lineMap is a map of names to values that hold no space or newline (ref names, commits, stamps),
// kept in JSON as one string of "<name> <value>" lines: a thousand refs as a JSON object took
// longer to encode and decode than everything else the watch does. An object (the state as an
// older version wrote it) is read too.
type lineMap map[string]string

func (m lineMap) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.Grow(len(m) * 96)
	for k, v := range m {
		if strings.ContainsAny(k, " \n") || strings.ContainsAny(v, " \n") {
			continue // no ref name, commit or stamp holds one; a ref left out is read again next time
		}
		b.WriteString(k)
		b.WriteByte(' ')
		b.WriteString(v)
		b.WriteByte('\n')
	}
	return json.Marshal(b.String())
}

func (m *lineMap) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '{' {
		var old map[string]string
		if err := json.Unmarshal(b, &old); err != nil {
			return err
		}
		*m = old
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	out := make(lineMap, strings.Count(s, "\n"))
	for line := range strings.Lines(s) {
		k, v, _ := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
		out[k] = v
	}
	*m = out
	return nil
}

// workflowRefs are the workflow refs and their commits (loose and packed, no git process), with
// the settled stamps of the loose files they were read from: a file whose stamp is the one prev
// kept is not read again.
func (r *Repo) workflowRefs(prev *controlState) (commits, stamps lineMap) {
	known := map[string]gitrepo.StampedRef{}
	if prev != nil {
		for name, s := range prev.RefStamps {
			if h, ok := gitrepo.ParseHash([]byte(prev.Refs[name])); ok && s != "" {
				known[name] = gitrepo.StampedRef{Hash: h, Stamp: s}
			}
		}
	}
	commits, stamps = lineMap{}, lineMap{}
	refs, _, settled, err := gitrepo.ScanRefsKnown(r.Store.Loc.CommonDir, gitstore.RefPrefix, func(f string) bool { return gitstore.ValidateFeature(f) == nil }, known)
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
// the stamp kept for it.
func refFilesHold(dir string, names, kept []string) bool {
	for i, s := range gitrepo.StampsIn(dir, names) {
		if s != kept[i] {
			return false
		}
	}
	return true
}
