package workflow_test

import (
	"encoding/json"
	"testing"

	"github.com/exarchos/git-exarchos/workflow"
)

// FuzzApply feeds arbitrary payloads under every engine event type to started workflows: the
// fold must stay total (no panic) and replay byte-identically. `go test` runs the seeds.
func FuzzApply(f *testing.F) {
	for i := range workflow.EventTypes() {
		f.Add(uint8(i), uint8(i%6), []byte(`{}`))
		f.Add(uint8(i), uint8(i%6), []byte(`{"from":"review","to":"delegate","id":"t1","path":"a.b","value":{"x":1},"name":"plan","signal":"done","dimension":"spec","verdict":"pass","guard":"g"}`))
		f.Add(uint8(i), uint8(i%6), []byte(`null`))
		f.Add(uint8(i), uint8(i%6), []byte(`[1,2`))
		f.Add(uint8(i), uint8(i%6), []byte(`{"path":"","value":"","to":"nowhere","from":"*"}`))
		f.Add(uint8(i), uint8(i%6), []byte(`{"type":"feature","feature":"x","branch":"b","to":"cancelled"}`))
	}
	f.Fuzz(func(t *testing.T, typeIndex, wfIndex uint8, data []byte) {
		types := workflow.EventTypes()
		wf := workflow.BuiltinTypes()[int(wfIndex)%len(workflow.BuiltinTypes())]
		start, _ := workflow.NewEvent{Type: workflow.EventStarted, Data: workflow.StartedData{Feature: "f", Type: wf, Branch: "b"}}.Stamp("a", 0, zeroTime, "x", 1)
		e := workflow.Event{ID: "b", Seq: 1, Type: types[int(typeIndex)%len(types)], Clock: 2}
		if json.Valid(data) {
			e.Data = data
		}
		log := []workflow.Event{start, e, e, start}
		s := workflow.Definitions{}.Fold(workflow.State{}, log)
		checkReplay(t, log, s)
		// And onto a state whose type this version does not know.
		s = workflow.Definitions{}.Apply(workflow.State{Feature: "f", Type: "future", Phase: "x"}, e)
		if e.Type != workflow.EventStarted && len(s.Conflicts) != 1 {
			t.Fatalf("unknown type: %+v", s.Conflicts)
		}
	})
}
