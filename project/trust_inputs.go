package project

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// What trust is read from must be out of the agent's reach: the base branch as it was fetched,
// and the user's own configuration. A remote-tracking branch is what the protected remote held at
// the last fetch only while nothing else moved it; `git push . HEAD:refs/remotes/origin/main` or
// `git update-ref` move it locally, and git's reflog says so: each entry records the command that
// moved the ref: "fetch: fast-forward", "pull", "clone: from …", and "update by push" (git's own
// update of the tracking ref after the remote accepted a push) copy what the remote holds;
// "push" (a push into the repository itself, `git push . X:refs/remotes/…`) or an empty message
// (`git update-ref`) do not. A determined process can forge a message (`update-ref -m`): this
// catches drift; CI's verify, in a fresh clone, is the boundary.
//
// So the base is the value the last fetch gave the tracking ref: its current value when the
// newest reflog entry is a fetch's (or there is no reflog: a fresh clone writes its tracking refs
// to packed-refs without one, and CI is a fresh clone), else the newest value a fetch wrote, else
// the value the ref had before its first logged move (it came from the clone). Moved reports the
// local move. A ref whose log names no value it could fall back to is no base at all.

// fetchedMessages are the reflog messages of commands that copy what the remote holds.
var fetchedMessages = []string{"fetch", "pull", "clone", "update by push"}

// maxReflog bounds what is read of a reflog: its newest entries.
const maxReflog = 256 << 10

type reflogEntry struct{ old, new, msg string }

// readReflog returns the newest entries of ref's reflog, oldest first; nil when it has none.
func readReflog(commonDir, ref string) []reflogEntry {
	f, err := os.Open(filepath.Join(commonDir, "logs", filepath.FromSlash(ref)))
	if err != nil {
		return nil
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil && info.Size() > maxReflog {
		_, _ = f.Seek(info.Size()-maxReflog, io.SeekStart)
	}
	b, _ := io.ReadAll(f)
	var out []reflogEntry
	for i, line := range bytes.Split(b, []byte{'\n'}) {
		head, msg, _ := strings.Cut(string(line), "\t")
		fields := strings.Fields(head)
		if len(fields) < 2 || (i == 0 && len(b) >= maxReflog) {
			continue // blank, torn, or cut by the seek
		}
		out = append(out, reflogEntry{old: fields[0], new: fields[1], msg: msg})
	}
	return out
}

func fetched(msg string) bool {
	for _, p := range fetchedMessages {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// fetchedValue returns the commit of a remote-tracking ref that a fetch gave it (see above), and,
// when that is not its current value, how it was moved since; problem when there is none.
func FetchedValue(commonDir, ref, current string) (commit, moved, problem string) {
	log := readReflog(commonDir, ref)
	if len(log) == 0 {
		return current, "", ""
	}
	last := log[len(log)-1]
	if last.new == current && fetched(last.msg) {
		return current, "", ""
	}
	how := fmt.Sprintf("%s was moved to %s by %q, not by a fetch", ref, Short(current), orWord(last.msg, "git update-ref"))
	if last.new != current {
		how = fmt.Sprintf("%s is at %s, which its reflog does not record (edited by hand)", ref, Short(current))
	}
	for i := len(log) - 1; i >= 0; i-- {
		if fetched(log[i].msg) && !zeroID(log[i].new) {
			return log[i].new, how, ""
		}
	}
	if !zeroID(log[0].old) {
		return log[0].old, how, ""
	}
	return "", how, fmt.Sprintf("%s: there is no fetched value to read the rules from; fetch it again: `git update-ref -d %s && git fetch %s`", how, ref, remoteOf(ref))
}

func zeroID(s string) bool { return strings.Trim(s, "0") == "" }

func orWord(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}

// remoteOf is the remote of refs/remotes/<remote>/<branch>.
func remoteOf(ref string) string {
	rest := strings.TrimPrefix(ref, "refs/remotes/")
	name, _, _ := strings.Cut(rest, "/")
	return name
}
