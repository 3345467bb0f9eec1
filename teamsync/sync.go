// Package teamsync is sync between teammates: pull fetches the workflows of a remote into
// refs/exarchos-remotes/<remote>/* and integrates each (fast-forward, or a merge of both logs),
// push sends them without force (a rejected ref is pulled, merged and pushed again), sync does
// both, and remote setup makes a plain `git fetch` bring them (remote.go). A deleted workflow is
// kept here as a tombstone until pull --prune.
//
// It may import hookrun (the hooks' controls, for remote setup's config write), trust (a
// decision from their side counts while it is integrated), gitstore, gitrepo, workflow
// and the internal helpers; never app or cmd. internal/archtest holds the rule.
package teamsync

import (
	"fmt"
	"sort"

	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/trust"
	"github.com/exarchos/git-exarchos/workflow"
)

// Pull actions: gitstore's integration actions a result shows without reaching into the store, and
// pull's own.
const (
	Created     = gitstore.Created     // only on the remote: the ref now points at its tip
	FastForward = gitstore.FastForward // the local tip was an ancestor of the remote's
	Merged      = gitstore.Merged      // both sides had events the other lacked: a merge commit
	UpToDate    = gitstore.UpToDate    // same tip
	Ahead       = gitstore.Ahead       // the remote's is an ancestor of the local tip: nothing to take

	DeletedUpstream = "deleted-upstream" // gone on the remote, kept here (pull --prune deletes it)
	Pruned          = "pruned"           // gone on the remote and deleted here
	Failed          = "error"            // this workflow could not be integrated; the others were
)

// Repo is an opened repository with trust (app.Repo's; hookrun.Repo's too): pull and push fold
// what they integrate with trust's verdicts.
type Repo = trust.Repo

// PullOptions are the inputs of `git exarchos pull`.
type PullOptions struct {
	Remote string // empty: the current branch's upstream remote, else origin
	Prune  bool   // delete local workflows deleted on the remote (unless they have local changes)
}

// WorkflowPull is what pull did to one workflow.
type WorkflowPull struct {
	Feature string `json:"feature"`
	Action  string `json:"action"`
	Head    string `json:"head,omitempty"`
	Added   int64  `json:"added,omitempty"`
	// Conflicts are the conflicts this pull brought in (the fold settled them; `status` lists all).
	Conflicts []workflow.Conflict `json:"conflicts,omitempty"`
	Message   string              `json:"message,omitempty"`
	// Moved is the move of the local ref this made (integrated, pruned); nil when none.
	Moved *gitstore.Move `json:"-"`
}

// PullResult is what `pull` prints.
type PullResult struct {
	Remote    string         `json:"remote"`
	Workflows []WorkflowPull `json:"workflows"`
	Counts    map[string]int `json:"counts"`
}

// Failures counts workflows that could not be integrated.
func (r *PullResult) Failures() int { return r.Counts[Failed] }

// RefMoves are the moves of local workflow refs the pull made, for the caller to hand to whatever
// keeps in step with the refs (the hook runtime: engine.Follow).
func (r *PullResult) RefMoves() []*gitstore.Move {
	if r == nil {
		return nil
	}
	var out []*gitstore.Move
	for _, w := range r.Workflows {
		out = append(out, w.Moved)
	}
	return out
}

// Pull fetches a remote's workflows to refs/exarchos-remotes/<remote>/* and brings each into the
// local ref: create, fast-forward or merge. A workflow that fails (e.g. a damaged remote log) is
// reported and the others still go through.
func Pull(r *Repo, o PullOptions) (*PullResult, error) {
	remote, err := r.Store.ResolveRemote(o.Remote)
	if err != nil {
		return nil, err
	}
	before, err := r.Store.RemoteWorkflows(remote)
	if err != nil {
		return nil, err
	}
	if err := r.Store.Fetch(remote); err != nil {
		return nil, err
	}
	after, err := r.Store.RemoteWorkflows(remote)
	if err != nil {
		return nil, err
	}
	local, err := r.Store.LocalWorkflows()
	if err != nil {
		return nil, err
	}
	res := &PullResult{Remote: remote, Workflows: []WorkflowPull{}, Counts: map[string]int{}}
	for _, f := range sortedKeys(after) {
		if local[f] == after[f] {
			res.add(WorkflowPull{Feature: f, Action: gitstore.UpToDate, Head: after[f].String()})
			continue
		}
		res.add(integrate(r, f, after[f], gitstore.TrackingRef(remote, f)))
	}
	if err := deletedUpstream(r, res, remote, before, after, o.Prune); err != nil {
		return nil, err
	}
	return res, nil
}

func (res *PullResult) add(w WorkflowPull) {
	res.Workflows = append(res.Workflows, w)
	res.Counts[w.Action]++
}

// integrate brings one fetched tip into the local workflow and names the conflicts it brought in.
func integrate(r *Repo, feature string, theirs gitrepo.Hash, label string) WorkflowPull {
	w := WorkflowPull{Feature: feature}
	known := map[string]bool{}
	if st, _, err := r.State(feature); err == nil {
		for _, c := range st.Conflicts {
			known[c.ID] = true
		}
	}
	// A decision made on their side names a head in their history: it counts while it is integrated.
	var in *gitstore.Integration
	err := r.Integrating(theirs.String(), func() (err error) {
		in, err = r.Store.Integrate(feature, r.Projector(), theirs, label)
		return err
	})
	if err != nil {
		w.Action, w.Message = Failed, err.Error()
		return w
	}
	w.Action, w.Head, w.Added, w.Moved = in.Action, in.New.String(), in.Added, in.Moved()
	if in.Action == gitstore.UpToDate || in.Action == gitstore.Ahead {
		return w
	}
	st, _, err := r.State(feature)
	if err != nil {
		w.Action, w.Message = Failed, err.Error()
		return w
	}
	for _, c := range st.Conflicts {
		if !known[c.ID] {
			w.Conflicts = append(w.Conflicts, c)
		}
	}
	return w
}

// deletedUpstream handles workflows whose tracking ref the fetch pruned, and those tombstoned by
// an earlier pull: keep them (and remember, so push does not recreate them) or, with prune, delete
// them when nothing local would be lost.
func deletedUpstream(r *Repo, res *PullResult, remote string, before, after map[string]gitrepo.Hash, prune bool) error {
	tombs, err := r.Store.Tombstones(remote)
	if err != nil {
		return err
	}
	gone := map[string]gitrepo.Hash{}
	for f, h := range tombs {
		if _, back := after[f]; back {
			if err := r.Store.ClearTombstone(remote, f); err != nil {
				return err
			}
			continue
		}
		gone[f] = h
	}
	for f, h := range before {
		if _, ok := after[f]; !ok {
			gone[f] = h
		}
	}
	local, err := r.Store.LocalWorkflows()
	if err != nil {
		return err
	}
	for _, f := range sortedKeys(gone) {
		tip, ok := local[f]
		if !ok {
			if err := r.Store.ClearTombstone(remote, f); err != nil {
				return err
			}
			continue
		}
		w := WorkflowPull{Feature: f, Action: DeletedUpstream, Head: tip.String(),
			Message: fmt.Sprintf("deleted on %s; kept here (`git exarchos pull %s --prune` deletes it)", remote, remote)}
		if prune {
			contained, err := r.Store.ContainedIn(tip, gone[f])
			if err != nil {
				return err
			}
			if contained {
				deleted, err := r.Store.DeleteIfUnchanged(f, tip)
				if err != nil {
					return err
				}
				if deleted != nil {
					w.Action, w.Message, w.Moved = Pruned, "deleted on "+remote+" and here", deleted
					if err := r.Store.ClearTombstone(remote, f); err != nil {
						return err
					}
					res.add(w)
					continue
				}
			}
			w.Message = fmt.Sprintf("deleted on %s but has changes made here since; kept (push it back with `git push %s %s`, or delete it with `git update-ref -d %s`)", remote, remote, gitstore.RefName(f), gitstore.RefName(f))
		}
		if err := r.Store.SetTombstone(remote, f, gone[f]); err != nil {
			return err
		}
		res.add(w)
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Push results beyond git's.
const (
	PushedNew   = "created"    // the remote did not have it
	Pushed      = "pushed"     // fast-forwarded on the remote
	PushedAfter = "merged"     // rejected, pulled, merged and pushed again
	Rejected    = "rejected"   // still rejected after the retries
	Behind      = "behind"     // the remote has more: run pull
	SkippedGone = "skipped"    // deleted on the remote (tombstone): not recreated
	InSync      = "up-to-date" // nothing to push
)

// PushOptions are the inputs of `git exarchos push`.
type PushOptions struct {
	Remote string
	// Retries bounds how often a rejected ref is pulled, merged and pushed again (0: 3).
	Retries int
}

// WorkflowPush is what push did to one workflow.
type WorkflowPush struct {
	Feature   string              `json:"feature"`
	Result    string              `json:"result"`
	Head      string              `json:"head,omitempty"`
	Attempts  int                 `json:"attempts,omitempty"`
	Conflicts []workflow.Conflict `json:"conflicts,omitempty"` // brought in by a merge before a retry
	Message   string              `json:"message,omitempty"`
	// Moved are the moves of the local ref the merges before its retries made.
	Moved []*gitstore.Move `json:"-"`
}

// PushResult is what `push` prints.
type PushResult struct {
	Remote    string         `json:"remote"`
	Workflows []WorkflowPush `json:"workflows"`
	Counts    map[string]int `json:"counts"`
}

// Failures counts workflows that did not reach the remote.
func (r *PushResult) Failures() int { return r.Counts[Rejected] + r.Counts[Failed] }

// RefMoves are the moves of local workflow refs the push made (its merges before a retry).
func (r *PushResult) RefMoves() []*gitstore.Move {
	if r == nil {
		return nil
	}
	var out []*gitstore.Move
	for _, w := range r.Workflows {
		out = append(out, w.Moved...)
	}
	return out
}

// Push pushes every local workflow that is ahead of the remote's (as last fetched), never forced.
// A ref the remote rejects (someone pushed meanwhile) is fetched, merged and pushed again, at most
// Retries times.
func Push(r *Repo, o PushOptions) (*PushResult, error) {
	remote, err := r.Store.ResolveRemote(o.Remote)
	if err != nil {
		return nil, err
	}
	return push(r, remote, o.Retries, nil)
}

// push pushes every local workflow but those in skip.
func push(r *Repo, remote string, retries int, skip map[string]bool) (*PushResult, error) {
	if retries <= 0 {
		retries = 3
	}
	local, err := r.Store.LocalWorkflows()
	if err != nil {
		return nil, err
	}
	tracking, err := r.Store.RemoteWorkflows(remote)
	if err != nil {
		return nil, err
	}
	tombs, err := r.Store.Tombstones(remote)
	if err != nil {
		return nil, err
	}
	res := &PushResult{Remote: remote, Workflows: []WorkflowPush{}, Counts: map[string]int{}}
	done := map[string]WorkflowPush{}
	todo := map[string]gitrepo.Hash{}
	for _, f := range sortedKeys(local) {
		if skip[f] {
			continue
		}
		tip := local[f]
		theirs, known := tracking[f]
		switch {
		case tombs[f] != gitrepo.ZeroHash && !known:
			done[f] = WorkflowPush{Feature: f, Result: SkippedGone, Head: tip.String(),
				Message: fmt.Sprintf("deleted on %s: not recreated (`git push %s %s` would; `git exarchos pull --prune` deletes it here)", remote, remote, gitstore.RefName(f))}
		case known && theirs == tip:
			done[f] = WorkflowPush{Feature: f, Result: InSync, Head: tip.String()}
		case known:
			behind, err := r.Store.ContainedIn(tip, theirs)
			if err != nil {
				return nil, err
			}
			if behind {
				done[f] = WorkflowPush{Feature: f, Result: Behind, Head: tip.String(), Message: fmt.Sprintf("%s has more: run `git exarchos pull %s`", remote, remote)}
				continue
			}
			todo[f] = tip
		default:
			todo[f] = tip
		}
	}
	for attempt := 1; len(todo) > 0; attempt++ {
		verdicts, err := r.Store.Push(remote, todo)
		if err != nil {
			return nil, err
		}
		var rejected []string
		for _, v := range verdicts {
			w := done[v.Feature]
			w.Feature, w.Head, w.Attempts = v.Feature, todo[v.Feature].String(), attempt
			switch {
			case !v.OK:
				w.Result, w.Message = Rejected, v.Summary
				rejected = append(rejected, v.Feature)
			case v.Flag == '=':
				w.Result = InSync
			case attempt > 1:
				w.Result = PushedAfter
			case v.Flag == '*':
				w.Result = PushedNew
			default:
				w.Result = Pushed
			}
			done[v.Feature] = w
		}
		todo = map[string]gitrepo.Hash{}
		if len(rejected) == 0 || attempt > retries {
			break
		}
		// Someone pushed meanwhile: bring their events in and try again with the merge.
		if err := r.Store.Fetch(remote, rejected...); err != nil {
			return nil, err
		}
		fetched, err := r.Store.RemoteWorkflows(remote)
		if err != nil {
			return nil, err
		}
		for _, f := range rejected {
			w := done[f]
			theirs, ok := fetched[f]
			if !ok {
				continue // rejected for another reason (hook, permissions): the message says why
			}
			in := integrate(r, f, theirs, gitstore.TrackingRef(remote, f))
			w.Conflicts, w.Moved = append(w.Conflicts, in.Conflicts...), append(w.Moved, in.Moved)
			done[f] = w
			if in.Action == Failed {
				w.Result, w.Message = Failed, in.Message
				done[f] = w
				continue
			}
			tip, err := r.Store.LocalWorkflows()
			if err != nil {
				return nil, err
			}
			if tip[f] != theirs {
				todo[f] = tip[f]
			} else {
				w.Result, w.Message = InSync, ""
				done[f] = w
			}
		}
	}
	for _, f := range sortedKeys(done) {
		res.Workflows = append(res.Workflows, done[f])
		res.Counts[done[f].Result]++
	}
	return res, nil
}

// SyncOptions are the inputs of `git exarchos sync`.
type SyncOptions struct {
	Remote  string
	Prune   bool
	Retries int
}

// SyncResult is what `sync` prints: the pull, then the push.
type SyncResult struct {
	Remote string      `json:"remote"`
	Pull   *PullResult `json:"pull"`
	Push   *PushResult `json:"push"`
}

// RefMoves are the moves of local workflow refs the pull and the push made.
func (r *SyncResult) RefMoves() []*gitstore.Move {
	if r == nil {
		return nil
	}
	return append(r.Pull.RefMoves(), r.Push.RefMoves()...)
}

// Sync is pull then push.
func Sync(r *Repo, o SyncOptions) (*SyncResult, error) {
	remote, err := r.Store.ResolveRemote(o.Remote)
	if err != nil {
		return nil, err
	}
	pull, err := Pull(r, PullOptions{Remote: remote, Prune: o.Prune})
	if err != nil {
		return nil, err
	}
	// A workflow the pull could not integrate (e.g. started separately on both sides) would only
	// be rejected and fail the same way again: the pull's report says it once.
	failed := map[string]bool{}
	for _, w := range pull.Workflows {
		if w.Action == Failed {
			failed[w.Feature] = true
		}
	}
	push, err := push(r, remote, o.Retries, failed)
	if err != nil {
		return nil, err
	}
	return &SyncResult{Remote: remote, Pull: pull, Push: push}, nil
}
