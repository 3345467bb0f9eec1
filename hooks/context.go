package hooks

import (
	"fmt"
	"sort"
	"strings"

	"github.com/exarchos/git-exarchos/workflow"
)

// MaxContext bounds the context document: it is read at every session start and after every
// compaction, so it says what matters and points at the commands that say the rest.
const MaxContext = 2000

// maxListed bounds the tasks named one by one.
const maxListed = 8

// ContextDocument is what a fresh session needs to pick a workflow up: where it stands, what is
// needed to move on (summary: workflow.Summary with the guards checked on the repository), the
// tasks in progress, and the rules the hooks enforce in this phase. At most MaxContext bytes.
func ContextDocument(w Bound, summary string) string {
	s := w.State
	var head strings.Builder
	fmt.Fprintf(&head, "git exarchos: workflow %s (%s) on branch %s is in phase %s", w.Feature, s.Type, orNone(s.Branch), s.Phase)
	if w.Def != nil {
		if p, ok := w.Def.Phase(s.Phase); ok && p.Description != "" {
			fmt.Fprintf(&head, ": %s", p.Description)
		}
	}
	head.WriteString(".\n")

	// What is needed to move on: the summary without its first line, which head replaces.
	_, next, _ := strings.Cut(summary, "\n")
	if strings.TrimSpace(next) != "" {
		next = "To move on:\n" + next
	}

	var facts strings.Builder
	if len(s.Artifacts) > 0 {
		names := make([]string, 0, len(s.Artifacts))
		for n := range s.Artifacts {
			names = append(names, n)
		}
		sort.Strings(names)
		for i, n := range names {
			a := s.Artifacts[n]
			if a.Inline {
				names[i] = n + " (inline)"
			} else {
				names[i] = n + " " + a.Path
			}
		}
		fmt.Fprintf(&facts, "Artifacts: %s.\n", strings.Join(names, ", "))
	}
	if sts := s.StageStatuses(w.Def); len(sts) > 0 {
		var each []string
		for _, st := range sts {
			each = append(each, st.Stage+" "+st.Status)
		}
		fmt.Fprintf(&facts, "Stages of %s, in parallel: %s (end each with git exarchos stage done|fail %s <stage>; the join waits for all).\n", s.Phase, strings.Join(each, ", "), w.Feature)
	}
	if len(s.Tasks) > 0 {
		count := map[string]int{}
		var inProgress []string
		for _, t := range s.Tasks {
			count[t.Status]++
			if t.Status == workflow.TaskInProgress {
				inProgress = append(inProgress, strings.TrimSpace(t.ID+" "+t.Title))
			}
		}
		fmt.Fprintf(&facts, "Tasks: %d in progress, %d pending, %d completed, %d failed.\n",
			count[workflow.TaskInProgress], count[workflow.TaskPending], count[workflow.TaskCompleted], count[workflow.TaskFailed])
		for i, t := range inProgress {
			if i == maxListed {
				fmt.Fprintf(&facts, "  … and %d more (git exarchos status %s)\n", len(inProgress)-i, w.Feature)
				break
			}
			fmt.Fprintf(&facts, "  in progress: %s\n", t)
		}
	}
	if blocking, rest := s.OpenFindings(w.Def); len(blocking)+len(rest) > 0 {
		// Review triage: what blocks is the fix cycle's work; the rest goes to the pull request.
		fmt.Fprintf(&facts, "Open review findings: %d blocking (%s and above: fix each in a task, then review again), %d for the pull request (git exarchos view findings %s).\n",
			len(blocking), w.Def.BlockingSeverity(), len(rest), w.Feature)
		for i, f := range blocking {
			if i == maxListed {
				fmt.Fprintf(&facts, "  … and %d more (git exarchos view findings %s)\n", len(blocking)-i, w.Feature)
				break
			}
			text, _, _ := strings.Cut(f.Text, "\n")
			if len(text) > 200 {
				text = strings.ToValidUTF8(text[:200], "") + "…"
			}
			fmt.Fprintf(&facts, "  blocking %s %s %s: %s\n", f.ID, f.Severity, f.Where(), text)
		}
	}

	var rules strings.Builder
	if w.Def != nil {
		if pol := w.Def.EnvelopeIn(s); len(pol.Deny) > 0 {
			fmt.Fprintf(&rules, "In this phase the hooks refuse %s", strings.Join(pol.Deny, ", "))
			if len(pol.ExceptArtifacts) > 0 {
				fmt.Fprintf(&rules, " except on the recorded %s artifact files (record a path first: git exarchos set %s artifacts.<name>=<path>)", strings.Join(pol.ExceptArtifacts, " and "), w.Feature)
			}
			rules.WriteString(".\n")
		}
	}
	rules.WriteString("Only a human runs approve, reject, unblock and guard overrides; workflow refs change only through git exarchos.\n")
	for _, r := range s.Refused {
		fmt.Fprintf(&rules, "Refused %s decision (seq %d, no effect): %s.\n", r.Kind, r.Seq, r.Reason)
	}
	for _, n := range w.Notes {
		fmt.Fprintf(&rules, "Note: %s.\n", n)
	}
	fmt.Fprintf(&rules, "More: git exarchos status %s, git exarchos transitions %s, git exarchos log %s.\n", w.Feature, w.Feature, w.Feature)

	// The head and the rules always fit; what is needed to move on gets the room, short of up to
	// a third kept for the artifacts and tasks.
	room := MaxContext - head.Len() - rules.Len()
	needs := clip(next, room-min(facts.Len(), room/3))
	return head.String() + needs + clip(facts.String(), room-len(needs)) + rules.String()
}

// clip cuts s at a line boundary to at most n bytes, saying where the rest is.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const more = "  … (cut: git exarchos status shows the rest)\n"
	if n < len(more) {
		return ""
	}
	cut := s[:n-len(more)]
	if i := strings.LastIndexByte(cut, '\n'); i >= 0 {
		cut = cut[:i+1]
	} else {
		cut = ""
	}
	return cut + more
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// StatusLine is the one-line status the git hooks print after a checkout or a merge.
func StatusLine(w Bound, summary string) string {
	line := fmt.Sprintf("git exarchos: %s (%s) is in %s", w.Feature, w.State.Type, w.State.Phase)
	if n := len(w.State.Tasks); n > 0 {
		done := 0
		for _, t := range w.State.Tasks {
			if t.Status == workflow.TaskCompleted {
				done++
			}
		}
		line += fmt.Sprintf(", %d/%d tasks done", done, n)
	}
	// The first way forward from the summary: "  → plan: needs" or "  → plan: ready: …".
	for _, l := range strings.Split(summary, "\n") {
		if t, ok := strings.CutPrefix(strings.TrimSpace(l), "→ "); ok {
			line += "; next " + strings.TrimSuffix(t, ": needs")
			if strings.HasSuffix(t, ": needs") {
				line += " needs work (git exarchos transitions " + w.Feature + ")"
			}
			break
		}
	}
	return line
}
