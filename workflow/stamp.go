package workflow

import (
	"encoding/json"
	"time"
)

// Stamp turns a decided event into a log event with the header the store assigns (id, seq, time, actor, clock). The payload
// is marshalled here, so the event folds exactly as it will after a round trip through the log.
func (n NewEvent) Stamp(id string, seq int64, at time.Time, actor string, clock uint64) (Event, error) {
	if !n.Time.IsZero() {
		at = n.Time
	}
	e := Event{ID: id, Seq: seq, Type: n.Type, Time: at, Actor: actor, Clock: clock, Sig: n.Sig}
	if n.Data != nil {
		b, err := json.Marshal(n.Data)
		if err != nil {
			return Event{}, err
		}
		e.Data = b
	}
	return e, nil
}
