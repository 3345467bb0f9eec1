package workflow

import "strconv"

// A decision the fold refused (unsigned, a bad signature, a key not allowed) stays in the log:
// `git exarchos verify` fails on it so that a forged attempt is seen. A human who has looked at it
// acknowledges it with a decision of their own, signed, that names it; from then on verify reports
// both and passes. The acknowledgement changes nothing else: the refused decision keeps no effect.

// EventDecisionAcknowledged is the payload type of an acknowledgement.
const EventDecisionAcknowledged = "decision.acknowledged"

// KindAcknowledge is the decision kind (and role) of an acknowledgement.
const KindAcknowledge = "acknowledge"

// AcknowledgedData is the payload of decision.acknowledged.
type AcknowledgedData struct {
	Event  string `json:"event"` // the refused decision's event id
	Reason string `json:"reason"`
	Actor  string `json:"actor,omitempty"`
}

// Acknowledge records that a human has seen a refused decision (human only). Event names it by
// its event id, or by its seq.
type Acknowledge struct{ Event, Reason string }

func (Acknowledge) command() {}

func (d decider) acknowledge(c Acknowledge) ([]NewEvent, *Rejection) {
	if c.Reason == "" {
		return nil, reject(CodeBadInput, "an acknowledgement says why the refused decision is harmless: --reason \"…\"")
	}
	for _, f := range d.s.Refused {
		if f.ID != c.Event && strconv.FormatInt(f.Seq, 10) != c.Event {
			continue
		}
		if f.Acknowledged != "" {
			return nil, nil
		}
		return one(EventDecisionAcknowledged, AcknowledgedData{Event: f.ID, Reason: c.Reason, Actor: d.env.Actor}), nil
	}
	return nil, reject(CodeBadInput, "%s has no refused decision %q: git exarchos status %s lists them (refused)", d.s.Feature, c.Event, d.s.Feature)
}

func (s *State) applyAcknowledged(e Event) error {
	var d AcknowledgedData
	if err := decode(e, &d); err != nil {
		return err
	}
	for i := range s.Refused {
		if s.Refused[i].ID == d.Event && s.Refused[i].Acknowledged == "" {
			s.Refused[i].Acknowledged = e.ID
		}
	}
	return nil
}
