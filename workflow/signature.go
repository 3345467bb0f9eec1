package workflow

import (
	"bytes"
	"encoding/json"
	"time"
)

// Human decisions (approve, reject, unblock, override, grant, budget extend, a cancel past the
// planning phases, a start that replaces another type's workflow on its branch) carry a signature made with the human's key. Whether a signature is good is
// I/O (a key file, ssh-keygen), so the app layer verifies each decision and hands the fold its
// Verdict as data; the fold only decides what a decision is worth.

// Signature is what a signed event carries in its header (`sig`): the format (ssh | openpgp),
// the workflow head (commit) the decision was made on, and the armored signature over
// SigningPayload.
type Signature struct {
	Format string `json:"format"`
	Head   string `json:"head"`
	Sig    string `json:"sig"`
}

// Verdict is the app layer's judgement of one event's signature against the protected base
// branch's allowed signers. It is never serialized.
type Verdict struct {
	OK        bool
	Principal string // the signer, as the allowed-signers file names it (OK only)
	Reason    string // why not (not OK)
}

// Refused is a decision the fold gave no effect: it stays in the log and is shown with why.
type Refused struct {
	Seq    int64  `json:"seq"`
	ID     string `json:"id"`
	Type   string `json:"type"`
	Kind   string `json:"kind"`            // approve, reject, unblock, override, grant, extend, cancel, replace
	Actor  string `json:"actor,omitempty"` // who the event claims made it (git config: unproven)
	Reason string `json:"reason"`          // unsigned, bad signature, key not allowed, replayed …
	Phase  string `json:"phase,omitempty"` // where the workflow stood
	// Acknowledged is the id of the human's signed acknowledgement of it (acknowledge.go).
	Acknowledged string `json:"acknowledged,omitempty"`
}

// Decision kinds (and roles in .exarchos/roles).
const (
	KindApprove  = "approve"
	KindReject   = "reject"
	KindUnblock  = "unblock"
	KindOverride = "override"
	KindGrant    = "grant"
	KindExtend   = "extend"
	KindCancel   = "cancel"
	// KindReplace is starting a workflow (of any type) on a branch whose workflow did not
	// complete (workflow.started with replaces and human).
	KindReplace = "replace"
	// KindReview is a human's review verdict (review --human).
	KindReview = "review"
)

// DecisionKinds are every kind of human decision: the roles .exarchos/roles may narrow.
func DecisionKinds() []string {
	return []string{KindApprove, KindReject, KindUnblock, KindOverride, KindGrant, KindExtend, KindCancel, KindReplace, KindReview, KindAcknowledge, KindMerge}
}

// DecisionKind names the human decision an event records, or "" when it records none. It reads
// the event alone; whether a cancel needed a signature also depends on the phase (see the fold).
func DecisionKind(e Event) string {
	switch e.Type {
	case EventPlanApproved:
		return KindApprove
	case EventPlanRejected:
		return KindReject
	case EventUnblocked:
		return KindUnblock
	case EventGuardOverridden:
		return KindOverride
	case EventGrantIssued:
		return KindGrant
	case EventBudgetExtended:
		return KindExtend
	case EventCancelRequested, EventCancelled:
		return KindCancel
	case EventDecisionAcknowledged:
		return KindAcknowledge
	case EventPRMergeDecided:
		return KindMerge
	case EventReviewRecorded:
		// A human's verdict counts whoever did the work (guards.independent): it is a decision.
		var d ReviewData
		if e.DecodeData(&d) == nil && d.Human {
			return KindReview
		}
	case EventFindingResolved:
		var d FindingResolvedData
		if e.DecodeData(&d) == nil && d.Human {
			return KindReview
		}
	case EventStarted:
		var d StartedData
		if e.DecodeData(&d) == nil && len(d.Replaces) > 0 {
			return KindReplace
		}
	case EventTransitioned:
		// The transitions only a decision takes: a refused reject must not move the plan back.
		var d TransitionedData
		if e.DecodeData(&d) == nil {
			switch d.Trigger {
			case OnReject:
				return KindReject
			case OnUnblock:
				return KindUnblock
			}
		}
	}
	return ""
}

// SigningPayload is the canonical bytes a decision's signature covers: feature, event id, type,
// data (compacted), time and the workflow head it was decided on, in a fixed order. Binding the
// feature and the head means a signed decision copied into another workflow, or onto another
// state of this one, does not verify.
func SigningPayload(feature string, e Event, head string) []byte {
	var buf bytes.Buffer
	str := func(k, v string) {
		kb, _ := json.Marshal(k)
		vb, _ := json.Marshal(v)
		if buf.Len() > 1 {
			buf.WriteByte(',')
		}
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(vb)
	}
	buf.WriteByte('{')
	str("feature", feature)
	str("id", e.ID)
	str("type", e.Type)
	var data bytes.Buffer
	if len(e.Data) > 0 && json.Compact(&data, e.Data) == nil {
		buf.WriteString(`,"data":`)
		buf.Write(data.Bytes())
	} else {
		buf.WriteString(`,"data":null`)
	}
	str("time", e.Time.UTC().Format(time.RFC3339Nano))
	str("head", head)
	buf.WriteByte('}')
	return buf.Bytes()
}

// needsSignature reports the decision kind of e when, in signed mode, it takes a good signature to
// have effect. A cancel is free while the workflow is still planning (its phase refuses file
// writes) and when it only completes a cancel already requested.
func (s *State) needsSignature(def *Definition, e Event) string {
	kind := DecisionKind(e)
	if kind != KindCancel {
		return kind
	}
	if def == nil {
		return kind
	}
	if c := def.CancellingPhase(); c != "" && s.Phase == c {
		return "" // finishing a requested cancel: the request was the decision
	}
	p := def.PhaseEnvelope(s.Phase)
	if p.Denies("Edit") && p.Denies("Write") {
		return ""
	}
	return kind
}

// refuse records a decision without effect.
func (s *State) refuse(e Event, kind string) {
	s.Refused = append(s.Refused, Refused{Seq: e.Seq, ID: e.ID, Type: e.Type, Kind: kind, Actor: e.Actor, Reason: e.Verdict.Reason, Phase: s.Phase})
}

// Replay folds events in order on one state owned by the call (linear, unlike Apply per event),
// calling before with the state each event meets and after with the state it leaves. The state
// passed is only valid during the call. `git exarchos verify` re-checks each step this way.
func Replay(def *Definition, events []Event, before, after func(s *State, e Event)) State {
	var s State
	for _, e := range events {
		if before != nil {
			before(&s, e)
		}
		s.apply(def, e)
		if after != nil {
			after(&s, e)
		}
	}
	return s
}

// RefusedStart is the refused replacement that left this workflow inert (never started), if any.
func (s State) RefusedStart() *Refused {
	if s.Started() {
		return nil
	}
	for i := range s.Refused {
		if s.Refused[i].Kind == KindReplace {
			return &s.Refused[i]
		}
	}
	return nil
}
