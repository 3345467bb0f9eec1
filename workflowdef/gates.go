package workflowdef

import (
	"slices"
	"strings"
	"time"

	"github.com/exarchos/git-exarchos/workflow"
)

// MaxGateTimeout bounds the gateTimeout a definition may set: a gate runs while `task done` or
// `transition` waits for it.
const MaxGateTimeout = time.Hour

// parseGates reads the definition's task gates and the timeout of every gate (issue 30):
//
//	taskGates: ["go test ./...", "go vet ./..."]   # run by `task done` on the task's commit
//	gateTimeout: 5m                                 # one gate's run, a phase's or a task's
func parseGates(f File, def *workflow.Definition, l lines, add func(int, string, ...any)) {
	if slices.ContainsFunc(f.TaskGates, func(g string) bool { return strings.TrimSpace(g) == "" }) {
		add(l.top["taskGates"], "taskGates: an empty gate command")
	}
	def.TaskGates = f.TaskGates
	if f.GateTimeout == "" {
		return
	}
	d, err := time.ParseDuration(f.GateTimeout)
	if err != nil || d < time.Millisecond || d > MaxGateTimeout {
		add(l.top["gateTimeout"], "gateTimeout %q: a duration up to %s, e.g. 5m", f.GateTimeout, MaxGateTimeout)
		return
	}
	def.GateTimeoutMs = d.Milliseconds()
}
