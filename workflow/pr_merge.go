package workflow

import "fmt"

// The merge of a workflow's pull request as a human decision (`git exarchos pr merge`): the
// user decides to merge pull request Number at HeadSHA with Method; the decision is recorded
// (signed in signed mode) before GitHub is asked to merge, and GitHub merges only that head.
// An unsigned or foreign decision is given no effect by the fold, like every human decision.

// EventPRMergeDecided records the user's decision to merge the workflow's pull request.
const EventPRMergeDecided = "pr.merge-decided"

// KindMerge is the decision kind (and role) of a pull request's merge.
const KindMerge = "merge"

// MergeMethods are GitHub's merge methods, the default first.
var MergeMethods = []string{"merge", "squash", "rebase"}

// MergeDecisionData is the payload of pr.merge-decided.
type MergeDecisionData struct {
	Number  int    `json:"number"`
	URL     string `json:"url"`
	HeadSHA string `json:"headSha"` // the head the user decided on: GitHub merges only this one
	Method  string `json:"method"`  // merge | squash | rebase
	Note    string `json:"note,omitempty"`
	Actor   string `json:"actor"`
}

// MergeDecision is the decision in effect: who decided, on what, in which event.
type MergeDecision struct {
	MergeDecisionData
	Seq int64  `json:"seq"`
	ID  string `json:"id"`
}

// DecideMerge is the user's decision to merge the linked pull request at HeadSHA (human only).
type DecideMerge struct {
	Number  int
	HeadSHA string
	Method  string
	Note    string
}

func (DecideMerge) command() {}

func (d decider) decideMerge(c DecideMerge) ([]NewEvent, *Rejection) {
	pr := d.s.PR
	if pr == nil || pr.URL == "" {
		return nil, reject(CodeBadInput, "no pull request is linked to %s: run git exarchos pr find %s first", d.s.Feature, d.s.Feature)
	}
	if c.Number != pr.Number {
		return nil, reject(CodeBadInput, "pull request #%d is not the one linked to %s (#%d)", c.Number, d.s.Feature, pr.Number)
	}
	if !validMethod(c.Method) {
		return nil, reject(CodeBadInput, "merge method must be merge, squash or rebase, not %q", c.Method)
	}
	if !isHexSHA(c.HeadSHA) {
		return nil, reject(CodeBadInput, "the head to merge must be a full commit id, not %q", c.HeadSHA)
	}
	if pr.Merged || pr.MergeVerified {
		return nil, reject(CodeBadInput, "pull request #%d is already merged: run git exarchos cleanup %s", pr.Number, d.s.Feature)
	}
	return one(EventPRMergeDecided, MergeDecisionData{Number: c.Number, URL: pr.URL, HeadSHA: c.HeadSHA, Method: c.Method, Note: c.Note, Actor: d.env.Actor}), nil
}

func validMethod(m string) bool {
	for _, x := range MergeMethods {
		if m == x {
			return true
		}
	}
	return false
}

func isHexSHA(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// applyMergeDecided folds a merge decision in effect into the pull request's state.
func (s *State) applyMergeDecided(e Event) error {
	var d MergeDecisionData
	if err := decode(e, &d); err != nil {
		return err
	}
	if s.PR == nil || s.PR.Number != d.Number {
		return fmt.Errorf("the merge decision names pull request #%d, which is not the one linked", d.Number)
	}
	d.Actor = actorOf(d.Actor, e)
	pr := *s.PR
	pr.MergeDecision = &MergeDecision{MergeDecisionData: d, Seq: e.Seq, ID: e.ID}
	s.PR = &pr
	return nil
}

// CodeDecisionRefused: a human decision was recorded, but the fold gave it no effect (not signed
// by a key, or a role, the base branch allows), so nothing that rests on it was done.
const CodeDecisionRefused = "decision-refused"
