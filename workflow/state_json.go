package workflow

// State's JSON is encoding/json's. It was written and read by hand until issue 41, which measured
// what that bought against the project's rule (hand-written code only for 1 ms or more on a whole
// command): a decode and an encode in a fresh process, what an append pays, took 60–69 µs by hand
// against 466–475 µs with encoding/json (its reflection tables built on first use), 0.40 ms an
// append; a state of 500 tasks (25 KB) 0.39 ms by hand against 0.73–0.77 ms in process. The whole
// command, `git exarchos event` on a workflow of 10,000 events (bench/clibench -case event, the two
// builds interleaved): 8.54 and 9.00 ms by hand against 9.26 and 9.06 ms, two runs. Under 1 ms: the
// 1,347 lines went. The bytes are the same (testdata/state_json_golden.jsonl, written by
// the hand-written writer before it went, TestStateJSONGolden).

import "encoding/json"

// stateJSON is State without its methods, so that encoding/json reads its struct tags.
type stateJSON State

// MarshalJSON writes empty collections as {} / [] rather than null, so a fresh state and one
// decoded from a snapshot marshal alike.
func (s State) MarshalJSON() ([]byte, error) {
	p := stateJSON(s)
	if p.Artifacts == nil {
		p.Artifacts = map[string]Artifact{}
	}
	if p.Tasks == nil {
		p.Tasks = []Task{}
	}
	if p.Reviews == nil {
		p.Reviews = map[string]Review{}
	}
	if p.Validations == nil {
		p.Validations = []Validation{}
	}
	if p.Approvals == nil {
		p.Approvals = []Approval{}
	}
	if p.Overrides == nil {
		p.Overrides = []Override{}
	}
	if len(p.Fields) == 0 {
		p.Fields = json.RawMessage(`{}`)
	}
	if p.FixCycles == nil {
		p.FixCycles = map[string]int{}
	}
	if p.Conflicts == nil {
		p.Conflicts = []Conflict{}
	}
	if p.Resources == nil {
		p.Resources = []Resource{}
	}
	return json.Marshal(p)
}
