// Package hookrun is the hook runtime: the one place that turns a Claude Code hook payload (or a
// git hook's call) into a decision, with what makes it fast and what it keeps. It finds the
// workflows a session works on (the session's binding, binding.go; the branch index and cached
// states, hook_index.go and hook_cache.go), hands them to the hooks package's policies, records
// what the policies count (an append) and journals what they deny (journal.go, flushed by the
// next write of the workflow), checks a tool's effects on the working tree (hook_effects.go, under
// the file-system monitor it starts), notes which agent a call came from (caller.go), and guards
// the hooks' own controls (hook_controls.go). It is the only package the hook's path loads: the
// CLI's fast path calls ClaudeHook with its dependencies (the deadline, how to start a monitor)
// in ClaudeHookOptions.
//
// It may import trust, project, hooks, guards, gitstore, gitrepo, fsmonitor, workflow and the
// internal helpers; never app or cmd. internal/archtest holds the rule.
package hookrun

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/hooks"
	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/trust"
	"github.com/exarchos/git-exarchos/workflow"
)

// ClaudeHookOptions are the streams of `git exarchos hook claude` and what the hook depends on.
type ClaudeHookOptions struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Client is the agent client whose hook this is (hooks.Clients; "" is Claude Code), and Event
	// the event named on the command line, for a client whose payload does not name it (Copilot).
	Client, Event string
	// Getenv reads the hook's environment (nil: os.Getenv).
	Getenv func(string) string
	// FromPlugin: started by the Claude Code plugin's hooks (--plugin); the handler then stands
	// aside when a settings file installs it too, so no event is handled twice.
	FromPlugin bool
	// Deadline is how long the handler may take before it answers on its own (zero:
	// DefaultDeadline).
	Deadline time.Duration
	// StartMonitor starts a file-system monitor of the working tree at root in the background
	// (`git exarchos hook monitor`, the CLI's); nil where none may be started.
	StartMonitor func(root string) error
	// handled is called when the handler's goroutine has finished, answered in time or not: an
	// overrun answer leaves it running until the process exits, and a test must not remove its
	// repository under it.
	handled func()
}

// ErrHookBlock asks the caller to exit with status 2, which Claude Code reads as "block" for the
// events that can be blocked: the hook's answer when it could not read its own input.
var ErrHookBlock = errors.New("the hook could not answer: blocking")

// DefaultDeadline is how long the handler may take before it answers on its own: a refusal for a
// tool call, the safe default for the rest. It stays well under the timeout the hooks are
// installed with (hooks.ClaudeEntries), because Claude Code lets a call through when a hook times
// out (unless the entry's onFailure blocks, which needs a recent Claude Code).
const DefaultDeadline = 5 * time.Second

// ClaudeHook answers one Claude Code hook event: the payload on stdin, the decision on stdout.
// It runs on every tool call, so the common path reads the session's binding, one ref and one
// cached state, and never starts a process. It fails closed: unreadable input exits 2 (Claude
// Code blocks the call and shows stderr); a panic or a call that overruns the deadline answers a
// refusal for tool events and the safe default for the others.
//
// Every other client (o.Client) takes the same road: its payload is read into Claude Code's terms
// (hooks.ReadClientInput: events, tool names, a Codex patch's files), judged by the same
// handler, and answered in the client's shape (hooks.Output.WriteFor).
func ClaudeHook(o ClaudeHookOptions) error {
	client := cmp.Or(o.Client, hooks.ClientClaude)
	warn := func(msg string) { fmt.Fprintf(o.Stderr, "git exarchos hook %s: %s\n", client, msg) }
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	call, err := hooks.ReadClientInput(client, o.Event, o.Stdin, getenv)
	if err != nil {
		warn(err.Error() + "; refusing: ask the user to check the hooks with git exarchos hooks status")
		return fmt.Errorf("%w: %v", ErrHookBlock, err)
	}
	in := call.Inputs[0]
	if o.FromPlugin && pluginStandsAside(in.HookEventName) {
		return nil // the settings' handler answers this event
	}
	deadline := cmp.Or(o.Deadline, DefaultDeadline)
	start := time.Now()
	answer := make(chan hooks.Output, 1)
	go func() {
		if o.handled != nil {
			defer o.handled()
		}
		defer func() {
			if p := recover(); p != nil {
				answer <- hooks.Failed(in, fmt.Sprintf("internal error: %v", p))
			}
		}()
		answer <- hooks.HandleCall(call, &hookRepo{startMonitor: o.StartMonitor}, warn)
	}()
	overrun := func() error {
		return hooks.Failed(in, fmt.Sprintf("no answer within %s", deadline)).WriteFor(client, call.Event, o.Stdout)
	}
	select {
	case out := <-answer:
		// select picks at random when the answer and the timer are both ready: an answer that
		// came after the deadline is an overrun all the same.
		if time.Since(start) > deadline {
			return overrun()
		}
		if !out.Denied() {
			noteCaller(in) // caller.go: which agent a call running exarchos came from (a denied one never runs)
		}
		return out.WriteFor(client, call.Event, o.Stdout)
	case <-time.After(deadline):
		return overrun()
	}
}

// hookRepo implements hooks.Repository. One hook process serves one event, so the repository
// opened by Session is kept for the calls that follow.
type hookRepo struct {
	repo *Repo
	// startMonitor is ClaudeHookOptions.StartMonitor.
	startMonitor func(root string) error
}

func (h *hookRepo) open(dir string) (*Repo, error) {
	if h.repo == nil {
		r, err := Open(dir)
		if err != nil {
			return nil, err
		}
		h.repo = r
	}
	return h.repo, nil
}

// Repo is an opened repository as the hook runtime uses it: the project's, with trust's verdicts
// (trust.Repo). Its methods here are the hook's reads and writes: bound workflows, cached states,
// the journal, the controls.
type Repo struct {
	*trust.Repo
	// hookIndex is the hooks' branch index as this process last read it (hook_index.go); atomic,
	// as goroutines may move refs through one Repo.
	hookIndex atomic.Pointer[loadedIndex]
}

// On is t as the hook runtime uses it. Nothing is installed on t: the writes that move workflow
// refs hand their moves to Moved themselves (hook_controls_moves.go), so the hooks' branch index
// and the controls' watch follow them.
func On(t *trust.Repo) *Repo { return &Repo{Repo: t} }

// Open discovers the repository enclosing dir, with trust's verdicts, without reading the rules
// (the hook reads them only when a bound workflow needs them).
func Open(dir string) (*Repo, error) {
	p, err := project.Open(dir)
	if err != nil {
		return nil, err
	}
	return On(trust.Open(p)), nil
}

// Session returns the workflows the session works on (binding.go): the ones its first call bound
// it to, else the ones bound to the branch checked out where dir is, and then binds it to them.
func (h *hookRepo) Session(in hooks.Input, dir string) ([]hooks.Bound, error) {
	ws, err := h.session(in, dir)
	if err == nil && len(ws) > 0 {
		err = h.repo.RulesUnreadable() // rules that cannot be read stop policed calls (project/hook_rules.go)
	}
	return ws, err
}

func (h *hookRepo) session(in hooks.Input, dir string) ([]hooks.Bound, error) {
	if in.SessionID != "" {
		rec, err := loadSession(in.SessionID)
		if err != nil {
			return nil, err
		}
		if rec != nil {
			ws, err := h.sessionBound(rec)
			if err != nil || len(ws) > 0 {
				return ws, err
			}
			// Every workflow it was bound to has ended: the session follows its branch, and is
			// bound to the workflow now on it (binding.go), as a new session would be.
			return h.rebindSession(in, dir, rec)
		}
	}
	r, err := h.open(dir)
	if errors.Is(err, gitrepo.ErrNotRepository) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if in.SessionID != "" {
		// Bound in this repository, its binding file deleted since: put back (binding.go).
		if rec, err := restoreSession(r.CommonDir(), in.SessionID); err != nil || rec != nil {
			if err != nil {
				return nil, err
			}
			if ws, err := h.sessionBound(rec); err != nil || len(ws) > 0 {
				return ws, err
			}
			return h.rebindSession(in, dir, rec)
		}
	}
	ws, err := r.BoundWorkflows()
	if err != nil || len(ws) == 0 || in.SessionID == "" {
		return ws, err
	}
	h.bindSession(in, dir, ws)
	return ws, nil
}

// BoundWorkflows returns the active workflows bound to the branch checked out in this worktree:
// their own branch, or one of their task worktrees' branches (binding.go). It reads the branch
// index and, per workflow it names, one ref and one cached state (hook_cache.go); it never lists
// every workflow.
func (r *Repo) BoundWorkflows() ([]hooks.Bound, error) {
	branch := r.CurrentBranch()
	if branch == "" {
		return nil, nil
	}
	var out []hooks.Bound
	// The workflow's own branch, then the workflow branches a task branch may belong to.
	candidates := []string{branch}
	for i := strings.Index(branch, "--"); i > 0; {
		candidates = append(candidates, branch[:i])
		next := strings.Index(branch[i+2:], "--")
		if next < 0 {
			break
		}
		i += 2 + next
	}
	bound, err := r.featuresOnBranches(candidates)
	if err != nil {
		return nil, err
	}
	for _, wfBranch := range candidates {
		for _, f := range bound[wfBranch] {
			st, ok, err := r.hookState(f)
			if err != nil {
				return nil, fmt.Errorf("workflow %s (bound to branch %s): %w", f, wfBranch, err)
			}
			if !ok || st.Branch != wfBranch {
				continue // deleted, or moved to another branch since the index read it
			}
			if wfBranch != branch && !project.HasTaskWorktree(st, branch) {
				continue
			}
			if !r.IsActive(gitstore.Summary{Type: st.Type, Phase: st.Phase}) {
				continue
			}
			out = append(out, r.boundOf(f, st))
		}
	}
	return out, nil
}

// boundOf is a workflow as the hooks see it, with its definition. A built-in type's phases and
// envelopes are the same whatever the base branch's configuration (which sets limits, read by the
// commands that decide), so the hook takes them as built: resolving the base branch costs a git
// process, on every tool call. A repository-defined type is read from the base branch.
func (r *Repo) boundOf(feature string, st workflow.State) hooks.Bound {
	def, ok := workflow.Builtin(st.Type)
	if !ok {
		def, _ = r.Rules().Defs.Lookup(st.Type) // nil: not defined on the base branch
	}
	return hooks.Bound{Feature: feature, State: st, Def: def, Root: r.WorkTree()}
}

// Bound reads one workflow as the hooks see it.
func (r *Repo) Bound(feature string) (hooks.Bound, error) {
	st, _, err := r.State(feature)
	if err != nil {
		return hooks.Bound{}, err
	}
	return hooks.Bound{Feature: feature, State: st, Def: r.hookDefinition(st.Type), Root: r.WorkTree()}, nil
}

// hookDefinition is the definition the hook enforces envelopes with: a built-in's own (envelopes
// do not depend on the rules' limits, so a tool call on a built-in workflow reads no rules), else
// the base branch's; nil when the base does not define the type.
func (r *Repo) hookDefinition(typ string) *workflow.Definition {
	if def, ok := workflow.Builtin(typ); ok {
		return def
	}
	def, _ := r.Rules().Defs.Lookup(typ)
	return def
}

func (h *hookRepo) Summary(w hooks.Bound) string { return h.repo.Summary(w) }

func (h *hookRepo) Notes(hooks.Bound) []string { return h.repo.TrustNotes() }

// Summary is workflow.Summary with the guards checked on this repository.
func (r *Repo) Summary(w hooks.Bound) string {
	ev := r.FactEvaluator()
	ev.Agent = true // the hook speaks to the agent: its fixes are worded for it
	env := workflow.Env{Guards: ev, OptIn: r.Rules().OptIn(), Agent: true}
	def, _ := r.Rules().Defs.Lookup(w.State.Type) // with the base's limits (what is blocked and why)
	return workflow.Summary(def, w.State, env)
}

// Record appends events and puts the new head in the hook cache, so the next tool call (which,
// in a phase with a turn cap, follows this append) reads the state without reading objects.
func (h *hookRepo) Record(w hooks.Bound, recheck func(workflow.State) string, evs ...workflow.NewEvent) (string, error) {
	// The journal's denials ride in the same commit.
	journal, _ := h.repo.Journaled(w.Feature)
	waiting := journal.Events
	var denied string
	res, err := h.repo.Update(w.Feature, func(cur *gitstore.Snapshot) ([]workflow.NewEvent, error) {
		denied = ""
		if recheck != nil {
			st, err := workflow.DecodeState(cur.State)
			if err != nil {
				return nil, err
			}
			if denied = recheck(st); denied != "" {
				return waiting, nil // the journal still lands; the call itself is refused
			}
		}
		return append(waiting, evs...), nil
	})
	if err != nil {
		return "", err
	}
	journal.Done()
	if len(res.Appended) == 0 {
		return denied, nil
	}
	if st, err := workflow.DecodeState(res.State); err == nil {
		h.repo.hookCache().put(w.Feature, res.Commit.String(), h.repo.hookStateVersion(), st)
	}
	return denied, nil
}

// RecordLater journals an audit-only event; the next write to the workflow appends it.
func (h *hookRepo) RecordLater(w hooks.Bound, ev workflow.NewEvent) error {
	return h.repo.Journal(w.Feature, ev)
}

func (h *hookRepo) StopGuard(dir string) bool {
	r, err := h.open(dir)
	if err != nil {
		return false
	}
	return r.Rules().Config.StopGuard
}

// Controls is PostToolUse's watch of what the agent must not change (hook_controls.go).
func (h *hookRepo) Controls(dir string) string {
	r := h.repo
	if r == nil {
		var err error
		if r, err = h.open(dir); err != nil {
			return "" // outside a repository: nothing of a repository's to watch
		}
	}
	return r.CheckControls(r.WorkTree())
}

// Held is why the workflow is held: its ref moved outside git exarchos (hook_controls.go).
func (h *hookRepo) Held(w hooks.Bound) string { return h.repo.Held(w.Feature) }

// Clients are the agent clients `git exarchos hook <client>` answers (hooks.Clients): the CLI
// reads them here, as it may not import hooks.
var Clients = hooks.Clients

// IsClient reports whether name is one of Clients.
func IsClient(name string) bool { return hooks.IsClient(name) }
