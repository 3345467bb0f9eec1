package workflow

import (
	"encoding/json"
	"fmt"
	"slices"
)

// PhaseKind says how a phase behaves in the state machine.
type PhaseKind string

const (
	// Normal phases are plain states the workflow can sit in.
	Normal PhaseKind = "normal"
	// Compound phases group child phases (Phase.Parent); the workflow never sits in the compound
	// itself but in one of its children. A compound carries a fix-cycle circuit breaker.
	Compound PhaseKind = "compound"
	// Final phases end the workflow and reject every transition.
	Final PhaseKind = "final"
)

// Counter names a number the engine keeps in State and that limits some transitions.
type Counter string

const (
	FixCycles  Counter = "fixCycles"  // review → delegate loops inside a compound; restarts at each entry
	Revisions  Counter = "revisions"  // plan sent back from plan review
	Retries    Counter = "retries"    // synthesis retried
	Iterations Counter = "iterations" // loop iterations (entries into working)
)

// Trigger names the command that takes a transition.
type Trigger string

const (
	OnTransition Trigger = "transition" // git exarchos transition <feature> <phase>
	OnReject     Trigger = "reject"     // git exarchos reject <feature> --gaps …
	OnUnblock    Trigger = "unblock"    // git exarchos unblock <feature> --reason …
	OnCancel     Trigger = "cancel"     // git exarchos cancel <feature>
	OnCleanup    Trigger = "cleanup"    // universal: → completed once the merge is verified
	OnLoopDone   Trigger = "loop done"  // worker signal
	OnLoopPass   Trigger = "loop pass"  // reviewer signal
	OnLoopFail   Trigger = "loop fail"  // reviewer signal
	// OnLoopFailNow ends the loop as failed at once (worker or reviewer: no point iterating).
	OnLoopFailNow Trigger = "loop fail-now"
	// OnLoopError ends the loop as failed because an agent failed (to start, or while working).
	OnLoopError Trigger = "loop error"
)

// GuardPathsAllowed is added to the transitions leaving a phase with AllowedPaths.
const GuardPathsAllowed = "paths-allowed"

// GuardWorkCommitted: the implementation phase committed changes outside the planning documents
// since it was entered (delegate → review).
const GuardWorkCommitted = "work-committed"

// GuardGatesPassed is added to the transitions leaving a phase with Gates.
const GuardGatesPassed = "gates-passed"

// GuardSynthesisRequested passes once a pull request was asked for (git exarchos
// request-synthesis); a definition whose transitions use it accepts the request.
const GuardSynthesisRequested = "synthesis-requested"

// GuardSynthesisRequired passes under the synthesis policy always, or on-request once requested
// (oneshot's way into synthesize).
const GuardSynthesisRequired = "synthesis-required"

// UsesGuard reports whether a transition of the definition names the guard.
func (d *Definition) UsesGuard(id string) bool {
	return slices.ContainsFunc(d.Transitions, func(t Transition) bool { return slices.Contains(t.Guards, id) })
}

// AnyPhase as a transition's From means every non-final phase (universal transitions).
const AnyPhase = "*"

// Phase is one state of a workflow definition.
type Phase struct {
	ID           string    `json:"id"`
	Kind         PhaseKind `json:"kind"`
	Parent       string    `json:"parent,omitempty"`       // the compound this phase belongs to
	Initial      string    `json:"initial,omitempty"`      // compound only: the child entered when the compound is the target
	MaxFixCycles int       `json:"maxFixCycles,omitempty"` // compound only: circuit-breaker limit
	Description  string    `json:"description,omitempty"`
	// Tools is the phase's envelope: what the agent may do while the workflow sits here (enforced
	// by the Claude Code PreToolUse hook), how many tool calls one stay may take, and what must be
	// submitted to leave. A child phase without one takes its compound's.
	Tools Envelope `json:"tools,omitzero"`
	// AllowedPaths are the only paths (globs, see MatchPath) the phase may change: leaving it
	// requires the branch's diff since its merge-base with the base branch, and its worktree, to
	// touch nothing else (guard paths-allowed). Empty: no restriction.
	AllowedPaths []string `json:"allowedPaths,omitempty"`
	// Validation are the phase's declared validation commands (sh -c, in the branch's worktree):
	// `git exarchos validate` runs them, and only they satisfy validation-passed here.
	Validation []string `json:"validation,omitempty"`
	// Gates are the phase's quality gates (issue 30): commands (sh -c, in a clean checkout of the
	// branch tip) that `transition` runs before leaving the phase, each run recorded as a
	// validation of that commit; every transition out requires gates-passed.
	Gates []string `json:"gates,omitempty"`
}

// Envelope is a phase's rule for the agent's tools. The built-in envelopes only refuse tools
// (Deny), with the artifacts whose recorded file paths those tools may still write (a planning
// phase may edit its design, not the code); repository-defined phases may also name the only tools
// allowed (AllowedTools, in Claude Code's permission-rule syntax: `Read`, `Edit(docs/**)`,
// `Bash(go test:*)`), a turn cap and a completion schema.
type Envelope struct {
	Deny            []string `json:"deny,omitempty"`            // tool names, as Claude Code names them
	ExceptArtifacts []string `json:"exceptArtifacts,omitempty"` // artifact names whose paths stay writable
	// AllowedTools, when set, are the only tool calls allowed (Deny still applies on top).
	AllowedTools []string `json:"allowedTools,omitempty"`
	// NoTools: the phase allows no tool call at all (a definition's `allowedTools: []`, which
	// stud-cli's review stage uses to mean "answer, do not act"). A field of its own rather than
	// an empty non-nil AllowedTools, so no copy or encoding can turn "none" into "any".
	NoTools bool `json:"noTools,omitempty"`
	// TurnCap is the number of tool calls one stay in the phase may make (0: unlimited); the hook
	// counts them, restarting at each entry, and `git exarchos budget extend` adds to it.
	TurnCap int `json:"turnCap,omitempty"`
	// Completion is the JSON Schema of what `git exarchos submit` hands in to leave the phase; the
	// phase's outgoing transitions then require the completion-submitted guard.
	Completion json.RawMessage `json:"completion,omitempty"`
}

// Denies reports whether the envelope refuses the tool (before the artifact exception).
func (p Envelope) Denies(tool string) bool { return slices.Contains(p.Deny, tool) }

// Empty reports whether the envelope says nothing.
func (p Envelope) Empty() bool {
	return len(p.Deny) == 0 && len(p.AllowedTools) == 0 && !p.NoTools && p.TurnCap == 0 && len(p.Completion) == 0
}

// Restricts reports whether the envelope can refuse a tool call or counts them.
func (p Envelope) Restricts() bool {
	return len(p.Deny) > 0 || len(p.AllowedTools) > 0 || p.NoTools || p.TurnCap > 0
}

// FileWriteTools are Claude Code's tools that write files; planning phases refuse them.
var FileWriteTools = []string{"Edit", "Write", "MultiEdit", "NotebookEdit"}

// ReadOnlyTools are Claude Code's tools that change nothing in the repository; with Bash (whose
// effects the PostToolUse hook judges) they are what the built-in planning phases allow. Any other
// tool — an MCP tool, a tool this list does not know — is refused there (an allow-list).
var ReadOnlyTools = []string{
	"Read", "Grep", "Glob", "LS", "Bash", "BashOutput", "KillShell", "KillBash", "WebFetch", "WebSearch",
	"Task", "Agent", "TodoWrite", "TodoRead", "NotebookRead", "ExitPlanMode", "AskUserQuestion", "Skill",
	"SlashCommand", "ListMcpResourcesTool", "ReadMcpResourceTool",
	// Claude Code's task list (TodoWrite's successor, deferred behind ToolSearch): the session's
	// bookkeeping, not the repository's; a completion is held to the workflow by TaskCompleted.
	"ToolSearch", "TaskCreate", "TaskUpdate", "TaskList", "TaskGet",
}

// ExarchosMCPTools name the tools of `git exarchos mcp` as Claude Code calls them: registered in
// .mcp.json (`mcp --install`), and registered by the Claude Code plugin, whose servers' tools are
// named mcp__plugin_<plugin>_<server>__<tool>.
var ExarchosMCPTools = []string{"mcp__exarchos__*", "mcp__plugin_exarchos_exarchos__*"}

// planningTools is the built-in envelope of phases that write documents, not code: an allow-list of
// tools (file writes refused except on the recorded artifacts). What the phase may change is the
// phase's AllowedPaths. The exarchos MCP server's own tools are allowed too: they change only the
// workflow's state, which the engine guards itself (human decisions are not tools).
func planningTools(artifacts ...string) Envelope {
	return Envelope{Deny: slices.Clone(FileWriteTools), ExceptArtifacts: artifacts, AllowedTools: slices.Concat(ReadOnlyTools, ExarchosMCPTools)}
}

// Transition is one allowed phase change. Guards must all pass (or be overridden by a human) for
// the change to be decided.
type Transition struct {
	From   string    `json:"from"`
	To     string    `json:"to"`
	Guards []string  `json:"guards,omitempty"`
	On     []Trigger `json:"on,omitempty"` // commands that take it; empty means OnTransition
	// Counts is the counter this transition increments; reaching its limit refuses the transition
	// (or, for fix cycles, trips the circuit breaker).
	Counts Counter `json:"counts,omitempty"`
	// WhenExhausted marks a transition taken instead of its same-trigger sibling once that
	// sibling's counter has reached its limit (e.g. plan-review → blocked).
	WhenExhausted Counter `json:"whenExhausted,omitempty"`
	// OptIn lists guards enforced only where the repository opts in (Env.OptIn), e.g.
	// checks-passed before synthesize → completed with git config exarchos.requireChecks true.
	OptIn []string `json:"optIn,omitempty"`
	Note  string   `json:"note,omitempty"`
}

// TakenBy reports whether the command trigger takes this transition.
func (t Transition) TakenBy(tr Trigger) bool {
	if len(t.On) == 0 {
		return tr == OnTransition
	}
	return slices.Contains(t.On, tr)
}

// Universal reports whether the transition applies from every non-final phase.
func (t Transition) Universal() bool { return t.From == AnyPhase }

// Limits are the per-type numeric limits other than fix cycles (which sit on compounds).
// Zero means unlimited.
type Limits struct {
	PlanRevisions    int `json:"planRevisions,omitempty"`
	SynthesisRetries int `json:"synthesisRetries,omitempty"`
	MaxIterations    int `json:"maxIterations,omitempty"` // loop: default, overridable at init
	// CheckpointAfter: once this many events were recorded since the last checkpoint, transitions
	// ask for one (CHECKPOINT_REQUIRED, checkpoint.go). 0: never.
	CheckpointAfter int `json:"checkpointAfter,omitempty"`
}

// Definition is a workflow type as data: printed by `describe`, read by Decide and Apply.
type Definition struct {
	Type        string       `json:"type"`
	Description string       `json:"description"`
	Initial     string       `json:"initial"`
	Phases      []Phase      `json:"phases"`
	Transitions []Transition `json:"transitions"`
	// Tracks are the values `set track=…` accepts (debug, refactor).
	Tracks []string `json:"tracks,omitempty"`
	// Reviews are the dimensions the reviews-passed guard requires.
	Reviews []string `json:"reviews,omitempty"`
	// ReviewBy says whose verdicts count: "" (default: an independent verdict, from a reviewer
	// subagent that did none of the tasks or a human's review --human), "agent" (any recorded
	// verdict on the tip), "human"
	// (verdicts recorded as human decisions, `review --human`), or "github" (an approving pull
	// request review by someone other than the PR's author, observed on the current head).
	ReviewBy string `json:"reviewBy,omitempty"`
	// FindingsBlockAt is the least severe review finding that blocks the way out of review and
	// opens the fix cycle (findings.go); "" is DefaultBlockingSeverity (high).
	FindingsBlockAt string `json:"findingsBlockAt,omitempty"`
	// ArtifactPaths are the patterns each artifact's file must match ("*" for every artifact);
	// DefaultArtifactPaths when absent. InlineArtifacts may be inline text (--inline), "*" for all.
	ArtifactPaths   map[string][]string `json:"artifactPaths,omitempty"`
	InlineArtifacts []string            `json:"inlineArtifacts,omitempty"`
	// SynthesisPolicies / CompletionPolicies are accepted at init (oneshot / loop); the first is the default.
	SynthesisPolicies  []string `json:"synthesisPolicies,omitempty"`
	CompletionPolicies []string `json:"completionPolicies,omitempty"`
	Limits             Limits   `json:"limits"`
	// ShellGuards are the custom guards of a repository-defined type (ShellGuardPrefix).
	ShellGuards map[string]ShellGuard `json:"shellGuards,omitempty"`
	// Runbooks are named, ordered steps (sh -c each: a git exarchos command or a check) that
	// `git exarchos runbook` runs and records, stopping at the first failure (issue 30).
	Runbooks map[string][]string `json:"runbooks,omitempty"`
	// Stages and Fanouts: parallel stages run while the workflow sits in a fan-out phase, joined
	// by a guarded transition (fanout.go).
	Stages  []Stage  `json:"stages,omitempty"`
	Fanouts []Fanout `json:"fanouts,omitempty"`
	// TaskGates are the quality gates of a task's completion (task_gates.go); GateTimeoutMs bounds
	// one run of any gate, a phase's or a task's (0: DefaultGateTimeoutMs).
	TaskGates     []string `json:"taskGates,omitempty"`
	GateTimeoutMs int64    `json:"gateTimeoutMs,omitempty"`
	// Source is where a repository-defined type was read from (path@commit); empty for built-ins.
	Source string `json:"source,omitempty"`
	// ID identifies the definition decisions are taken under, recorded on every transition:
	// "builtin:<type>@<BuiltinVersion>", or "blob:<object id>" of a repository type's file.
	ID string `json:"id,omitempty"`
}

// Phase returns the phase with the given id.
func (d *Definition) Phase(id string) (Phase, bool) {
	for _, p := range d.Phases {
		if p.ID == id {
			return p, true
		}
	}
	return Phase{}, false
}

// PhaseEnvelope returns the envelope in force in phase id: its own, else its compound's.
func (d *Definition) PhaseEnvelope(id string) Envelope {
	for range 8 { // bounded: nested compounds are shallow
		p, ok := d.Phase(id)
		if !ok {
			return Envelope{}
		}
		if !p.Tools.Empty() || p.Parent == "" {
			return p.Tools
		}
		id = p.Parent
	}
	return Envelope{}
}

// IsFinal reports whether id is a final phase.
func (d *Definition) IsFinal(id string) bool {
	p, ok := d.Phase(id)
	return ok && p.Kind == Final
}

// PhaseIDs lists the phases in definition order.
func (d *Definition) PhaseIDs() []string {
	ids := make([]string, len(d.Phases))
	for i, p := range d.Phases {
		ids[i] = p.ID
	}
	return ids
}

// compoundOf returns the compound containing phase id, or "".
func (d *Definition) compoundOf(id string) string {
	p, _ := d.Phase(id)
	return p.Parent
}

// resolve maps a compound target to the child it enters.
func (d *Definition) resolve(id string) string {
	for range 8 { // bounded: nested compounds are shallow
		p, ok := d.Phase(id)
		if !ok || p.Kind != Compound {
			return id
		}
		id = p.Initial
	}
	return id
}

// Outgoing lists the transitions leaving phase from: its own first, then the universal ones.
// A final phase has none.
func (d *Definition) Outgoing(from string) []Transition {
	if d.IsFinal(from) {
		return nil
	}
	if _, ok := d.Phase(from); !ok {
		return nil
	}
	var out []Transition
	completion := len(d.PhaseEnvelope(from).Completion) > 0
	paths := len(d.AllowedPathsOf(from)) > 0
	p, _ := d.Phase(from)
	gates := len(p.Gates) > 0
	for _, t := range d.Transitions {
		if t.From == from {
			if completion && t.TakenBy(OnTransition) && !slices.Contains(t.Guards, GuardCompletionSubmitted) {
				t.Guards = append([]string{GuardCompletionSubmitted}, t.Guards...)
			}
			// A phase that may only change some paths is left only when the branch changed nothing
			// else; ending the workflow (a direct fix, an escalation) is not leaving it for more work.
			if paths && t.TakenBy(OnTransition) && !d.IsFinal(t.To) && !slices.Contains(t.Guards, GuardPathsAllowed) {
				t.Guards = append(slices.Clone(t.Guards), GuardPathsAllowed)
			}
			if gates && t.TakenBy(OnTransition) && !t.Universal() && !slices.Contains(t.Guards, GuardGatesPassed) {
				t.Guards = append(slices.Clone(t.Guards), GuardGatesPassed)
			}
			if d.isJoin(t) && !slices.Contains(t.Guards, GuardStagesCompleted) {
				t.Guards = append([]string{GuardStagesCompleted}, t.Guards...)
			}
			out = append(out, t)
		}
	}
	if from == d.CancellingPhase() {
		return out // a cancel in progress only finishes: no universal way out
	}
	for _, t := range d.Transitions {
		if t.Universal() && t.To != from {
			out = append(out, t)
		}
	}
	return out
}

// find returns the defined transition from → to, own transitions before universal ones.
func (d *Definition) find(from, to string) (Transition, bool) {
	for _, t := range d.Outgoing(from) {
		if t.To == to {
			return t, true
		}
	}
	return Transition{}, false
}

// CancelTarget is the final phase `cancel` ends in. Cancel is a saga: the universal cancel
// transition enters CancellingPhase, and that phase's own cancel transition reaches the target
// once every resource is compensated.
func (d *Definition) CancelTarget() string {
	to := d.CancellingPhase()
	if to == "" {
		return d.cancelEntry()
	}
	for _, t := range d.Transitions {
		if t.From == to && t.TakenBy(OnCancel) {
			return t.To
		}
	}
	return ""
}

// CancellingPhase is the intermediate phase a cancel sits in while it compensates resources, or
// "" when the definition cancels in one step.
func (d *Definition) CancellingPhase() string {
	if to := d.cancelEntry(); to != "" && !d.IsFinal(to) {
		return to
	}
	return ""
}

// cancelEntry is the target of the universal cancel transition.
func (d *Definition) cancelEntry() string {
	for _, t := range d.Transitions {
		if t.Universal() && t.TakenBy(OnCancel) {
			return t.To
		}
	}
	return ""
}

// Validate checks the definition is well formed: known phases, one kind each, final phases
// without exits, compounds with an initial child, counters with limits.
func (d *Definition) Validate() error {
	seen := map[string]bool{}
	byID := make(map[string]Phase, len(d.Phases)) // lookups by id: checking stays linear in the definition
	phase := func(id string) (Phase, bool) { p, ok := byID[id]; return p, ok }
	for _, p := range d.Phases {
		byID[p.ID] = p
	}
	for _, p := range d.Phases {
		if p.ID == "" || p.ID == AnyPhase {
			return fmt.Errorf("%s: bad phase id %q", d.Type, p.ID)
		}
		if seen[p.ID] {
			return fmt.Errorf("%s: phase %q defined twice", d.Type, p.ID)
		}
		seen[p.ID] = true
		switch p.Kind {
		case Normal, Final, Compound:
		default:
			return fmt.Errorf("%s: phase %q has kind %q", d.Type, p.ID, p.Kind)
		}
		if slices.Contains(p.Tools.Deny, "") || slices.Contains(p.Tools.AllowedTools, "") || (len(p.Tools.ExceptArtifacts) > 0 && len(p.Tools.Deny) == 0 && len(p.Tools.AllowedTools) == 0 && !p.Tools.NoTools) {
			return fmt.Errorf("%s: phase %q has an envelope with an empty tool name or exceptions without denials", d.Type, p.ID)
		}
		if p.Tools.NoTools && len(p.Tools.AllowedTools) > 0 {
			return fmt.Errorf("%s: phase %q allows no tools and names allowed tools", d.Type, p.ID)
		}
		if p.Tools.TurnCap < 0 {
			return fmt.Errorf("%s: phase %q has a negative turn cap", d.Type, p.ID)
		}
	}
	for _, p := range d.Phases {
		if p.Parent != "" {
			if pp, ok := phase(p.Parent); !ok || pp.Kind != Compound {
				return fmt.Errorf("%s: phase %q has parent %q which is not a compound", d.Type, p.ID, p.Parent)
			}
			if p.Kind == Final {
				return fmt.Errorf("%s: final phase %q inside a compound", d.Type, p.ID)
			}
		}
		if p.Kind == Compound {
			if c, ok := phase(p.Initial); !ok || c.Parent != p.ID {
				return fmt.Errorf("%s: compound %q has initial %q which is not its child", d.Type, p.ID, p.Initial)
			}
			if p.MaxFixCycles <= 0 {
				return fmt.Errorf("%s: compound %q has no fix-cycle limit", d.Type, p.ID)
			}
		}
	}
	if ps := d.FanoutProblems(); len(ps) > 0 {
		return fmt.Errorf("%s: %s", d.Type, ps[0].Message)
	}
	if p, ok := phase(d.Initial); !ok || p.Kind != Normal {
		return fmt.Errorf("%s: initial phase %q must be a normal phase", d.Type, d.Initial)
	}
	for _, t := range d.Transitions {
		if t.From != AnyPhase {
			p, ok := phase(t.From)
			if !ok || p.Kind != Normal {
				return fmt.Errorf("%s: transition %s → %s leaves %q which is not a normal phase", d.Type, t.From, t.To, t.From)
			}
		}
		if p, ok := phase(t.To); !ok || p.Kind == Compound {
			return fmt.Errorf("%s: transition %s → %s enters %q which is not a normal or final phase", d.Type, t.From, t.To, t.To)
		}
		if t.Counts == FixCycles {
			c := d.compoundOf(t.From)
			if c == "" || d.compoundOf(t.To) != c {
				return fmt.Errorf("%s: fix cycle %s → %s must stay inside one compound", d.Type, t.From, t.To)
			}
		}
	}
	// Transitions joining the same phases are told apart by trigger and guards only, so the fold
	// (which sees from and to) must not need to know which one was taken.
	for i, a := range d.Transitions {
		for _, b := range d.Transitions[i+1:] {
			if a.To == b.To && (a.From == b.From || a.Universal() || b.Universal()) && (a.Counts != "" || b.Counts != "") {
				return fmt.Errorf("%s: transitions %s → %s and %s → %s are ambiguous and one counts %s%s", d.Type, a.From, a.To, b.From, b.To, a.Counts, b.Counts)
			}
		}
		if a.WhenExhausted != "" {
			sibling := false
			for _, b := range d.Transitions {
				sibling = sibling || (b.From == a.From && b.Counts == a.WhenExhausted)
			}
			if !sibling {
				return fmt.Errorf("%s: %s → %s waits for %s but no transition from %s counts them", d.Type, a.From, a.To, a.WhenExhausted, a.From)
			}
		}
	}
	for _, dim := range d.Reviews {
		if dim == "pass" || dim == "fail" {
			// git exarchos review tells a dimension from a verdict by position: these would be ambiguous.
			return fmt.Errorf("%s: review dimension %q is a verdict's name: rename the dimension (e.g. %s-review)", d.Type, dim, dim)
		}
	}
	return nil
}

// EffectiveLimits are the limits a decision was taken under, recorded on the event that enforces
// or counts them (zero: unlimited or not involved).
type EffectiveLimits struct {
	FixCycles  int `json:"fixCycles,omitempty"` // the circuit-breaker limit of the compound involved
	Revisions  int `json:"revisions,omitempty"`
	Retries    int `json:"retries,omitempty"`
	Iterations int `json:"iterations,omitempty"`
}

// SetMaxFixCycles sets every compound's fix-cycle limit (a rule read from the base branch).
func (d *Definition) SetMaxFixCycles(n int) {
	for i := range d.Phases {
		if d.Phases[i].Kind == Compound {
			d.Phases[i].MaxFixCycles = n
		}
	}
}

// limit is the definition's own limit for a counter (fix cycles live on compounds).
func (d *Definition) limit(c Counter) int {
	switch c {
	case Revisions:
		return d.Limits.PlanRevisions
	case Retries:
		return d.Limits.SynthesisRetries
	case Iterations:
		return d.Limits.MaxIterations
	}
	return 0
}
