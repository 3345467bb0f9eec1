package saga

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/workflow"
)

// PruneOptions selects stale workflows (`git exarchos prune`).
type PruneOptions struct {
	OlderThan time.Duration // idle for longer than this (default 14 days)
	Apply     bool          // cancel them; without it, only say what would be cancelled
	Now       time.Time     // the clock (zero: time.Now)
}

// DefaultPruneAge is how long a workflow and its branch stay quiet before prune calls it idle.
const DefaultPruneAge = 14 * 24 * time.Hour

// PruneItem is one active workflow prune looked at, and what it decided.
type PruneItem struct {
	Feature string `json:"feature"`
	Type    string `json:"type"`
	Phase   string `json:"phase"`
	Branch  string `json:"branch"`
	// Action is cancel (gone or idle), skip (stale but protected) or keep (in use).
	Action string `json:"action"`
	Reason string `json:"reason"`
	// Cancelled is set with --apply once the cancel saga finished; Error when it did not.
	Cancelled bool   `json:"cancelled,omitempty"`
	Error     string `json:"error,omitempty"`
}

// PruneResult is what `prune` prints.
type PruneResult struct {
	Apply     bool        `json:"apply"`
	DryRun    bool        `json:"dryRun"` // !Apply: nothing was changed
	OlderThan string      `json:"olderThan"`
	Workflows []PruneItem `json:"workflows"`
}

// ParseAge reads an age such as 14d, 36h or 90m (a number of days, or a Go duration).
func ParseAge(s string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err == nil && n > 0 {
			return time.Duration(n) * 24 * time.Hour, nil
		}
	} else if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return d, nil
	}
	return 0, project.Usagef("--older-than %q: give a positive age such as 14d, 36h or 90m", s)
}

// Prune finds the active workflows whose branch is gone, or that (with their branch) have been
// idle for longer than OlderThan, and with Apply cancels them through the cancel saga, so nothing
// they created is left behind and no work is lost. A workflow with an open pull request, or whose
// branch has recent commits on a remote, is skipped: someone is still on it.
func Prune(r *Repo, o PruneOptions) (*PruneResult, error) {
	if o.OlderThan <= 0 {
		o.OlderThan = DefaultPruneAge
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	cutoff := o.Now.Add(-o.OlderThan)
	list, err := r.Store.List()
	if err != nil {
		return nil, err
	}
	res := &PruneResult{Apply: o.Apply, DryRun: !o.Apply, OlderThan: o.OlderThan.String(), Workflows: []PruneItem{}}
	for _, sum := range list {
		if !r.IsActive(sum) {
			continue
		}
		st, _, err := r.State(sum.Feature)
		if err != nil {
			return nil, err
		}
		it := PruneItem{Feature: sum.Feature, Type: sum.Type, Phase: sum.Phase, Branch: sum.Branch}
		it.Action, it.Reason, err = r.judgeStale(st, sum.Updated, cutoff)
		if err != nil {
			return nil, fmt.Errorf("prune %s: %w", sum.Feature, err)
		}
		if it.Action == "cancel" && o.Apply {
			_, err := Cancel(r, CancelOptions{Feature: sum.Feature, Reason: "pruned: " + it.Reason})
			var inc *CancelIncompleteError
			switch {
			case errors.As(err, &inc):
				it.Error = inc.Error()
			case err != nil:
				it.Error = err.Error()
			default:
				it.Cancelled = true
			}
		}
		res.Workflows = append(res.Workflows, it)
	}
	return res, nil
}

// judgeStale decides one active workflow: cancel (branch gone, or idle since before cutoff), skip
// (stale, but a pull request is open or a remote has recent commits), or keep.
func (r *Repo) judgeStale(st workflow.State, updated, cutoff time.Time) (action, reason string, err error) {
	local, hasLocal, err := r.commitTime("refs/heads/" + st.Branch)
	if err != nil {
		return "", "", err
	}
	remote, remoteRef, err := r.newestRemote(st.Branch)
	if err != nil {
		return "", "", err
	}
	switch {
	case !hasLocal && remoteRef == "":
		reason = fmt.Sprintf("branch %s is gone (no local or remote branch)", st.Branch)
	case updated.Before(cutoff) && (!hasLocal || local.Before(cutoff)):
		reason = fmt.Sprintf("idle: no event since %s and no commit on %s since %s", updated.UTC().Format(time.DateOnly), st.Branch, cutoff.UTC().Format(time.DateOnly))
	default:
		return "keep", "active", nil
	}
	if pr := st.PR; pr != nil && !pr.Merged && pr.State != "closed" {
		return "skip", reason + fmt.Sprintf("; but pull request %s is open (or not observed closed: git exarchos pr refresh %s)", pr.URL, st.Feature), nil
	}
	if remoteRef != "" && !remote.Before(cutoff) {
		return "skip", reason + fmt.Sprintf("; but %s has a commit from %s", remoteRef, remote.UTC().Format(time.DateOnly)), nil
	}
	return "cancel", reason, nil
}

// commitTime is the committer time of the commit a ref points at; ok is false when it does not exist.
func (r *Repo) commitTime(ref string) (time.Time, bool, error) {
	out, err := r.Location().Git(nil, "for-each-ref", "--format=%(committerdate:unix)", ref)
	if err != nil {
		return time.Time{}, false, err
	}
	return unixLine(strings.TrimSpace(out))
}

// newestRemote is the newest commit time among the remote-tracking branches named branch.
func (r *Repo) newestRemote(branch string) (time.Time, string, error) {
	out, err := r.Location().Git(nil, "for-each-ref", "--format=%(committerdate:unix) %(refname:short)", "refs/remotes/*/"+branch)
	if err != nil {
		return time.Time{}, "", err
	}
	var newest time.Time
	var name string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		secs, ref, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		t, _, err := unixLine(secs)
		if err != nil {
			return time.Time{}, "", err
		}
		if name == "" || t.After(newest) {
			newest, name = t, ref
		}
	}
	return newest, name, nil
}

func unixLine(s string) (time.Time, bool, error) {
	if s == "" {
		return time.Time{}, false, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("commit time %q: %w", s, err)
	}
	return time.Unix(n, 0), true, nil
}
