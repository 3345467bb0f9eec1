package teamsync

// The text form of a pull and a push, as cmd prints it when --json is not given.

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/exarchos/git-exarchos/workflow"
)

// WritePull writes what a pull did, as `git exarchos pull` prints it.
func WritePull(w io.Writer, res *PullResult, bold func(string) string) {
	fmt.Fprintf(w, "pull from %s: %s\n", res.Remote, counts(res.Counts))
	for _, wf := range res.Workflows {
		if wf.Action != UpToDate && wf.Action != Ahead {
			more := ""
			if wf.Added > 0 {
				more = fmt.Sprintf(" (+%d events)", wf.Added)
			}
			writeSynced(w, bold(wf.Feature)+" "+string(wf.Action)+more, wf.Message, wf.Conflicts)
		}
	}
}

// WritePush writes what a push did, as `git exarchos push` prints it.
func WritePush(w io.Writer, res *PushResult, bold func(string) string) {
	fmt.Fprintf(w, "push to %s: %s\n", res.Remote, counts(res.Counts))
	for _, wf := range res.Workflows {
		if wf.Result != InSync {
			more := ""
			if wf.Attempts > 1 {
				more = fmt.Sprintf(" (attempt %d)", wf.Attempts)
			}
			writeSynced(w, bold(wf.Feature)+" "+string(wf.Result)+more, wf.Message, wf.Conflicts)
		}
	}
}

// writeSynced is one workflow's line of a pull or a push, and its conflicts.
func writeSynced(w io.Writer, what, message string, cs []workflow.Conflict) {
	if message != "" {
		what += ": " + message
	}
	fmt.Fprintf(w, "  %s\n", what)
	WriteConflicts(w, cs)
}

// WriteConflicts lists conflicts a merge of two logs recorded, one a line.
func WriteConflicts(w io.Writer, cs []workflow.Conflict) {
	for _, c := range cs {
		fmt.Fprintf(w, "    conflict at #%d %s: %s\n", c.Seq, c.Type, c.Reason)
	}
}

// counts renders {"merged":2,"up-to-date":5} as "2 merged, 5 up-to-date".
func counts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d %s", m[k], k)
	}
	if len(parts) == 0 {
		return "no workflows"
	}
	return strings.Join(parts, ", ")
}
