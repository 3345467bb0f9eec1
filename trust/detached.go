package trust

// A human decision run detached (issue 38 item 8's last case): `nohup`, `setsid` or a double fork
// left by an agent's tool call, landing after the call returned, its shell reparented to pid 1 and
// its environment cleared, so nothing in its process tree says an agent started it. It is not
// refused (a person's backgrounded command, a service and a CI runner look the same, and refusing
// those refused people): it is noted, and the hook holds the workflow at its next call in an
// agent's session until the user accepts it (`git exarchos hooks accept <feature>`,
// hookrun/hook_controls.go). Only a process that left its chain after an agent session was first
// bound in this repository is noted: a long-lived runner or service started before.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/internal/agentenv"
	"github.com/exarchos/git-exarchos/internal/atomicfile"
)

// DetachedNote is a human decision run by a detached process, as the deciding process saw itself.
type DetachedNote struct {
	Feature string `json:"feature"`
	Command string `json:"command"`        // the decision as the user types it (`approve login`)
	Pid     int    `json:"pid"`            // the process through which it runs detached
	Process string `json:"process"`        // its name
	Started string `json:"started"`        // when that process started (RFC 3339)
	Noted   string `json:"noted"`          // when the decision ran
	Head    string `json:"head,omitempty"` // the workflow's commit before it ("": none yet)
}

// Undo is what puts the workflow's log back where it was before the decision.
func (n DetachedNote) Undo() string {
	ref := gitstore.RefName(n.Feature)
	if n.Head == "" {
		return "git update-ref -d " + ref
	}
	return "git update-ref " + ref + " " + n.Head
}

// SessionsMirror is the directory where the hook keeps, in the repository at commonDir, a copy of
// each agent session's binding (hookrun/binding.go).
func SessionsMirror(commonDir string) string {
	return filepath.Join(commonDir, "exarchos", "sessions")
}

func detachedPath(commonDir, feature string) string {
	return filepath.Join(commonDir, "exarchos", "controls", "detached", feature+".json")
}

// RefuseDecision refuses command (a human decision on feature, as the user types it) in an
// agent's environment, as RefuseInAgent does; let through, it notes a decision run detached.
func (r *Repo) RefuseDecision(feature, command string) error {
	if err := RefuseInAgent(r.Environ, command); err != nil {
		return err
	}
	r.noteDetached(feature, command)
	return nil
}

// noteDetached keeps a note of this decision when this process runs detached from a process that
// started after an agent session was first bound here.
func (r *Repo) noteDetached(feature, command string) {
	d, ok := r.runsDetached()
	if !ok {
		return
	}
	common := r.CommonDir()
	head, _, _ := r.Store.Head(feature)
	n := DetachedNote{Feature: feature, Command: command, Pid: d.Pid, Process: d.Command,
		Started: d.Started.UTC().Format(time.RFC3339), Noted: time.Now().UTC().Format(time.RFC3339), Head: head}
	if old, ok := DetachedDecision(common, feature); ok {
		n.Head = old.Head // noted already: the first head it left is the one to go back to
	}
	b, _ := json.Marshal(n)
	_ = os.MkdirAll(filepath.Dir(detachedPath(common, feature)), 0o755)
	_ = atomicfile.Write(detachedPath(common, feature), b, 0o644)
	r.notify(fmt.Sprintf("this decision runs detached (through %s, pid %d: no terminal, left to pid 1), as one an agent's tool call left behind would: an agent's session here is held until you accept it with `git exarchos hooks accept %s`", d.Command, d.Pid, feature))
}

// runsDetached reports whether this process (when Environ is its own) runs detached through a
// process that started after an agent session was first bound in this repository.
func (r *Repo) runsDetached() (agentenv.Detached, bool) {
	if r.Environ != nil && !r.Environ.IsProcess() {
		return agentenv.Detached{}, false
	}
	d, ok := agentenv.DetachedTop()
	if !ok {
		return d, false
	}
	first, ok := firstBinding(r.CommonDir())
	return d, ok && !d.Started.Before(first.Add(-startSlack))
}

// startSlack is how far a start time read from /proc may fall before the clock's: it is counted
// from the boot time, which /proc gives in whole seconds and which drifts from the wall clock
// (0.5 s measured on a VM); a binding's time is kept in whole seconds too.
const startSlack = 3 * time.Second

// firstBinding is when an agent session was first bound in the repository at commonDir (the
// bindings the hook keeps there), and whether there is one.
func firstBinding(commonDir string) (time.Time, bool) {
	entries, err := os.ReadDir(SessionsMirror(commonDir))
	if err != nil {
		return time.Time{}, false
	}
	var first time.Time
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(SessionsMirror(commonDir), e.Name()))
		if err != nil {
			continue
		}
		var rec struct {
			Bound string `json:"bound"`
		}
		if json.Unmarshal(b, &rec) != nil {
			continue
		}
		if t, err := time.Parse(time.RFC3339, rec.Bound); err == nil && (first.IsZero() || t.Before(first)) {
			first = t
		}
	}
	return first, !first.IsZero()
}

// DetachedDecision is the note of a human decision on feature run detached and not yet accepted.
// One stat when there is none (the hook's path).
func DetachedDecision(commonDir, feature string) (DetachedNote, bool) {
	b, err := os.ReadFile(detachedPath(commonDir, feature))
	if err != nil {
		return DetachedNote{}, false
	}
	var n DetachedNote
	if json.Unmarshal(b, &n) != nil {
		return DetachedNote{Feature: feature, Command: "(a damaged note)"}, true // damaged: still held
	}
	n.Feature = feature
	return n, true
}

// AcceptDetached is the user's acceptance of feature's detached decision. A process that itself
// runs detached does not lift the note: the acceptance would be as unattended as the decision.
func (r *Repo) AcceptDetached(feature string) (accepted bool, err error) {
	if _, ok := DetachedDecision(r.CommonDir(), feature); !ok {
		return false, nil
	}
	if _, detached := r.runsDetached(); detached {
		return false, nil
	}
	return true, os.Remove(detachedPath(r.CommonDir(), feature))
}

// DetachedFeatures are the workflows with a note of a decision run detached.
func DetachedFeatures(commonDir string) []string {
	entries, err := os.ReadDir(filepath.Dir(detachedPath(commonDir, "x")))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if f, ok := strings.CutSuffix(e.Name(), ".json"); ok && gitstore.ValidateFeature(f) == nil {
			out = append(out, f)
		}
	}
	return out
}
