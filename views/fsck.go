package views

import (
	"errors"
	"fmt"

	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/hookrun"
	"github.com/exarchos/git-exarchos/project"
)

// FsckOptions names the workflow to check; empty checks all.
type FsckOptions struct{ Feature string }

// FsckResult is what `fsck` prints.
type FsckResult struct {
	Checked  []string  `json:"checked"`
	Problems []Problem `json:"problems"`
	// Refused counts human decisions without effect (unsigned, bad or foreign signatures) in
	// signed mode; they are not damage, so they do not make the check fail.
	Refused int `json:"refused"`
}

// Problem is one thing fsck found wrong: where, what, and the command that repairs it when one
// is known. The command's own type: the store's findings (gitstore.Problem) are converted to it.
type Problem struct {
	Feature string `json:"feature"`
	Commit  string `json:"commit"`
	Path    string `json:"path"`
	Message string `json:"message"`
	Fix     string `json:"fix,omitempty"`
}

// fromStore converts the store's findings.
func fromStore(ps []gitstore.Problem) []Problem {
	out := make([]Problem, len(ps))
	for i, p := range ps {
		out[i] = Problem(p)
	}
	return out
}

// OK reports a clean check.
func (r *FsckResult) OK() bool { return len(r.Problems) == 0 }

// Fsck verifies one workflow, or every workflow.
func Fsck(r *Repo, o FsckOptions) (*FsckResult, error) {
	var features []string
	if o.Feature != "" {
		if err := gitstore.ValidateFeature(o.Feature); err != nil {
			return nil, &project.UsageError{Msg: err.Error()}
		}
		features = []string{o.Feature}
	} else {
		all, err := r.Store.List()
		if err != nil {
			return nil, err
		}
		for _, s := range all {
			features = append(features, s.Feature)
		}
	}
	res := &FsckResult{Checked: []string{}, Problems: []Problem{}}
	rewritten := map[string]hookrun.HeldRef{}
	for _, h := range r.DetectRefRewrites() {
		rewritten[h.Feature] = h
	}
	if o.Feature == "" {
		bad, err := r.Store.BadRefs()
		if err != nil {
			return nil, err
		}
		for _, b := range bad {
			res.Problems = append(res.Problems, Problem{Path: b.Name, Message: b.Reason, Fix: b.Fix})
		}
		stale, err := r.Store.StaleFiles()
		if err != nil {
			return nil, err
		}
		for _, f := range stale {
			res.Problems = append(res.Problems, Problem{Path: f.Name, Message: f.Reason, Fix: f.Fix})
		}
	}
	// Objects first, the way git checks them, over all history; then each head's log.
	objProblems, err := r.Store.CheckObjects(features)
	if err != nil {
		return nil, err
	}
	res.Problems = append(res.Problems, fromStore(objProblems)...)
	for _, f := range features {
		problems, err := r.Store.Verify(f, r.Projector())
		if err != nil {
			if errors.Is(err, gitstore.ErrNotFound) {
				return nil, err
			}
			// One unreadable workflow is one problem; the others are still checked.
			problems = []gitstore.Problem{{Feature: f, Path: gitstore.RefName(f), Message: err.Error()}}
		}
		res.Checked = append(res.Checked, f)
		if h, ok := rewritten[f]; ok {
			res.Problems = append(res.Problems, Problem{Feature: f, Commit: h.To, Path: h.Ref,
				Message: fmt.Sprintf("moved from %s to %s by something other than git exarchos (seen %s): its log may have been rewritten, and the hook holds the workflow", hookrun.OrNone(h.From), hookrun.OrNone(h.To), h.Seen),
				Fix:     h.Undo() + "  # or, if it was you: git exarchos hooks accept " + f})
		}
		if st, _, err := r.State(f); err == nil {
			res.Refused += len(st.Refused)
		}
		res.Problems = append(res.Problems, fromStore(problems)...)
		if evs, _, err := r.Store.Events(f, gitstore.EventFilter{}); err == nil {
			for _, l := range hookrun.JournalLosses(evs) {
				res.Problems = append(res.Problems, Problem{Feature: f, Path: gitstore.RefName(f),
					Message: "denials lost: " + l.Message + "; they cannot be recovered: git exarchos audit " + f + " shows what was recorded"})
			}
		}
	}
	return res, nil
}
