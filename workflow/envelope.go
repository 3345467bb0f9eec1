package workflow

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Envelope events: what the PreToolUse hook and the humans supervising it record about the agent's
// tool calls. tool.called, grant.issued, grant.consumed, budget.extended and completion.submitted
// are folded (turn counts, pending grants, budgets, submissions); tool.denied and guard.failed are
// kept for the audit only.
const (
	EventToolCalled          = "tool.called"
	EventToolDenied          = "tool.denied"
	EventGrantIssued         = "grant.issued"
	EventGrantConsumed       = "grant.consumed"
	EventBudgetExtended      = "budget.extended"
	EventCompletionSubmitted = "completion.submitted"
	EventGuardFailed         = "guard.failed"
)

func init() {
	for _, t := range []string{EventToolCalled, EventGrantIssued, EventGrantConsumed, EventBudgetExtended, EventCompletionSubmitted} {
		engineEventTypes[t] = true
	}
}

// GuardCompletionSubmitted passes once the phase's completion was submitted in this visit. Every
// transition (taken by `transition`) out of a phase with a completion schema requires it.
const GuardCompletionSubmitted = "completion-submitted"

// ToolCallData is the payload of tool.called (a call counted against the phase's turn cap) and of
// tool.denied (a call the hook refused; Kind says why: envelope, budget or bash).
type ToolCallData struct {
	Phase     string `json:"phase"`
	Tool      string `json:"tool"`
	Subject   string `json:"subject,omitempty"` // the file path or command the call was about
	ToolUseID string `json:"toolUseId,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
	Kind      string `json:"kind,omitempty"`
	Reason    string `json:"reason,omitempty"`
	// At is when the hook denied the call (tool.denied is appended later, with the next write).
	At string `json:"at,omitempty"`
}

// GrantData is the payload of grant.issued: a human allows one call outside the envelope.
type GrantData struct {
	Tool   string `json:"tool"`
	Match  string `json:"match,omitempty"` // the call's file path (glob) or command (`prefix:*` or exact)
	Once   bool   `json:"once"`
	Reason string `json:"reason"`
	Actor  string `json:"actor"`
}

// GrantUseData is the payload of grant.consumed.
type GrantUseData struct {
	Grant     string `json:"grant"` // the id of the grant.issued event
	Tool      string `json:"tool"`
	Subject   string `json:"subject,omitempty"`
	ToolUseID string `json:"toolUseId,omitempty"`
}

// BudgetData is the payload of budget.extended: more tool calls for the current stay in Phase.
type BudgetData struct {
	Phase  string `json:"phase"`
	Turns  int    `json:"turns"`
	Reason string `json:"reason"`
	Actor  string `json:"actor"`
}

// SubmissionData is the payload of completion.submitted: a payload that passed the phase's schema.
type SubmissionData struct {
	Phase   string          `json:"phase"`
	Payload json.RawMessage `json:"payload"` // the JSON document (compacted); SHA256 is of the bytes submitted
	SHA256  string          `json:"sha256"`
	Actor   string          `json:"actor,omitempty"`
}

// GuardFailedData is the payload of guard.failed: a transition refused by its guards, recorded for
// the audit.
type GuardFailedData struct {
	From     string         `json:"from"`
	To       string         `json:"to"`
	Failures []GuardFailure `json:"failures"`
	Actor    string         `json:"actor,omitempty"`
	// Code is the refusal's code when a limit refused the transition (LIMIT_REACHED), with the
	// definition and the limits it was enforced under; empty for guard failures.
	Code       string           `json:"code,omitempty"`
	Definition string           `json:"definition,omitempty"`
	Limits     *EffectiveLimits `json:"limits,omitempty"`
}

// Grant is a pending one-shot grant.
type Grant struct {
	ID     string `json:"id"`
	Tool   string `json:"tool"`
	Match  string `json:"match,omitempty"`
	Reason string `json:"reason"`
	Actor  string `json:"actor"`
}

// Submission is the completion submitted for a phase.
type Submission struct {
	Payload json.RawMessage `json:"payload"`
	SHA256  string          `json:"sha256"`
	At      int64           `json:"at"` // event count before the submission
}

// Budget is the turn count of the current stay in a phase.
type Budget struct {
	Turns    int `json:"turns"`    // tool calls counted since the phase was entered
	Extended int `json:"extended"` // turns added by budget.extended in this stay
}

func (s *State) applyEnvelope(e Event, at int64) error {
	switch e.Type {
	case EventToolCalled:
		var d ToolCallData
		if err := decode(e, &d); err != nil {
			return err
		}
		if d.Phase == s.Phase { // a call counted in an earlier stay (merged late) does not count now
			s.Budget.Turns++
		}
	case EventBudgetExtended:
		var d BudgetData
		if err := decode(e, &d); err != nil {
			return err
		}
		if d.Turns <= 0 {
			return fmt.Errorf("budget extended by %d turns", d.Turns)
		}
		if d.Phase == s.Phase {
			s.Budget.Extended += d.Turns
		}
	case EventGrantIssued:
		var d GrantData
		if err := decode(e, &d); err != nil {
			return err
		}
		s.Grants = append(s.Grants, Grant{ID: e.ID, Tool: d.Tool, Match: d.Match, Reason: d.Reason, Actor: actorOf(d.Actor, e)})
	case EventGrantConsumed:
		var d GrantUseData
		if err := decode(e, &d); err != nil {
			return err
		}
		i := slices.IndexFunc(s.Grants, func(g Grant) bool { return g.ID == d.Grant })
		if i < 0 {
			return fmt.Errorf("grant %s is not pending (already consumed?)", d.Grant)
		}
		s.Grants = slices.Delete(s.Grants, i, i+1)
	case EventCompletionSubmitted:
		var d SubmissionData
		if err := decode(e, &d); err != nil {
			return err
		}
		if s.Submissions == nil {
			s.Submissions = map[string]Submission{}
		}
		s.Submissions[d.Phase] = Submission{Payload: d.Payload, SHA256: d.SHA256, At: at}
	}
	return nil
}

// TurnsLeft is how many tool calls the current stay may still make under cap (negative: none).
func (s State) TurnsLeft(cap int) int { return cap + s.Budget.Extended - s.Budget.Turns }

// Submitted returns the completion submitted in the current visit of phase.
func (s State) Submitted(phase string) (Submission, bool) {
	sub, ok := s.Submissions[phase]
	return sub, ok && phase == s.Phase && sub.At >= s.EnteredAt
}

// GrantTool lets one tool call outside the phase's envelope through (`git exarchos grant`).
// Match narrows it to a file path glob or a command (`prefix:*` or exact); empty matches any call
// of the tool.
type GrantTool struct {
	Tool   string
	Match  string
	Reason string
}

// ExtendBudget gives the current stay in the phase more tool calls (`git exarchos budget extend`).
type ExtendBudget struct {
	Turns  int
	Reason string
}

// SubmitCompletion records a phase's completion payload. The caller validated it against the
// phase's schema (the engine has no JSON Schema validator: it stays free of dependencies).
type SubmitCompletion struct {
	Phase   string
	Payload json.RawMessage
	SHA256  string
}

func (GrantTool) command()        {}
func (ExtendBudget) command()     {}
func (SubmitCompletion) command() {}

// CompletionArtifact names the artifact a phase's submitted completion is recorded as.
func CompletionArtifact(phase string) string { return "completion-" + phase }

func (d decider) envelopeCommand(cmd Command) ([]NewEvent, *Rejection) {
	switch c := cmd.(type) {
	case GrantTool:
		if strings.TrimSpace(c.Tool) == "" || strings.ContainsAny(c.Tool, "() \t") {
			return nil, reject(CodeBadInput, "--tool %q: name one tool as Claude Code names it (Bash, Edit, Write, …); put a path or command in --match", c.Tool)
		}
		if strings.TrimSpace(c.Reason) == "" {
			return nil, reject(CodeBadInput, "a grant needs --reason: it is recorded for the audit")
		}
		return one(EventGrantIssued, GrantData{Tool: c.Tool, Match: c.Match, Once: true, Reason: c.Reason, Actor: d.env.Actor}), nil
	case ExtendBudget:
		env := d.def.PhaseEnvelope(d.s.Phase)
		if env.TurnCap == 0 {
			r := reject(CodeBadInput, "phase %s of %s has no turn cap: there is no budget to extend", d.s.Phase, d.s.Feature)
			r.Phase = d.s.Phase
			return nil, r
		}
		if c.Turns <= 0 {
			return nil, reject(CodeBadInput, "extend the budget by a positive number of tool calls, not %d", c.Turns)
		}
		if strings.TrimSpace(c.Reason) == "" {
			return nil, reject(CodeBadInput, "a budget extension needs --reason: it is recorded for the audit")
		}
		return one(EventBudgetExtended, BudgetData{Phase: d.s.Phase, Turns: c.Turns, Reason: c.Reason, Actor: d.env.Actor}), nil
	case SubmitCompletion:
		if c.Phase != d.s.Phase {
			r := reject(CodeWrongPhase, "%s is in phase %s, not %s: a completion is submitted in the phase it completes", d.s.Feature, d.s.Phase, c.Phase)
			r.Phase = d.s.Phase
			return nil, r
		}
		if len(d.def.PhaseEnvelope(c.Phase).Completion) == 0 {
			r := reject(CodeBadInput, "phase %s of the %s definition has no completion schema: nothing to submit", c.Phase, d.def.Type)
			r.Phase = d.s.Phase
			return nil, r
		}
		return []NewEvent{
			{Type: EventCompletionSubmitted, Data: SubmissionData{Phase: c.Phase, Payload: c.Payload, SHA256: c.SHA256, Actor: d.env.Actor}},
			{Type: EventArtifactRecorded, Data: ArtifactData{Name: CompletionArtifact(c.Phase), Text: string(c.Payload), Inline: true}},
		}, nil
	}
	return nil, reject(CodeBadInput, "unknown command %T", cmd)
}

// ParseToolRule splits a permission rule (`Tool` or `Tool(specifier)`) into its parts.
func ParseToolRule(rule string) (tool, spec string, err error) {
	rule = strings.TrimSpace(rule)
	open := strings.IndexByte(rule, '(')
	if open < 0 {
		if rule == "" || strings.ContainsAny(rule, ") \t") {
			return "", "", fmt.Errorf("tool rule %q: write Tool or Tool(specifier), e.g. Read, Edit(docs/**), Bash(go test:*)", rule)
		}
		return rule, "", nil
	}
	if !strings.HasSuffix(rule, ")") || open == 0 {
		return "", "", fmt.Errorf("tool rule %q: write Tool(specifier), e.g. Edit(docs/**) or Bash(go test:*)", rule)
	}
	return rule[:open], rule[open+1 : len(rule)-1], nil
}

// ShellGuardPrefix names the guards a repository defines as shell commands: shell:<name> runs the
// definition's ShellGuards[name]. Only definitions read from the repository's own commits carry
// them; the guards package runs them through an interface the caller provides.
const ShellGuardPrefix = "shell:"

// ShellGuard is a custom guard: a command run by sh in the worktree, passing when it exits 0
// within the timeout.
type ShellGuard struct {
	Run       string `json:"run"`
	TimeoutMs int64  `json:"timeoutMs"`
}
