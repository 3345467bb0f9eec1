package app

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/exarchos/git-exarchos/hooks"
	"github.com/exarchos/git-exarchos/project"
)

// clientNames are the agent clients as setup's question and its --clients name them.
var clientNames = map[string]string{hooks.ClientClaude: "Claude Code", hooks.ClientCodex: "Codex CLI", hooks.ClientGemini: "Gemini CLI",
	hooks.ClientQwen: "Qwen Code", hooks.ClientCopilot: "Copilot CLI", hooks.ClientOpencode: "opencode"}

// addClientsNote says how to set up the other clients when setup was not told which the team uses.
var addClientsNote = "other agent clients: git exarchos setup --clients " + strings.Join(hooks.Clients, ",") + " (the ones the team uses)"

// ParseClients reads a list of agent clients (claude, codex, gemini, qwen, copilot), as --clients
// and setup's question take them: comma- or space-separated, each once.
func ParseClients(items ...string) ([]string, error) {
	var out []string
	for _, item := range items {
		for _, c := range strings.FieldsFunc(strings.ToLower(item), func(r rune) bool { return r == ',' || unicode.IsSpace(r) }) {
			if !hooks.IsClient(c) {
				return nil, project.Usagef("unknown agent client %q: name any of %s", c, strings.Join(hooks.Clients, ", "))
			}
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	if len(out) == 0 {
		return nil, project.Usagef("name at least one agent client: %s", strings.Join(hooks.Clients, ", "))
	}
	return out, nil
}

// chooseClients is the clients setup installs for: --clients; else the answer to its question on
// a terminal (Enter keeps Claude Code; a wrong name asks again, three times at most, then is the
// usage error); else Claude Code alone, today's default, with a note on how to add the others.
func (s *setup) chooseClients() error {
	switch {
	case len(s.o.Clients) > 0:
		clients, err := ParseClients(s.o.Clients...)
		s.clients = clients
		return err
	case s.o.Ask != nil && !s.o.DryRun:
		var names []string
		for _, c := range hooks.Clients {
			names = append(names, c+" ("+clientNames[c]+")")
		}
		q := "Which agent clients does the team use? " + strings.Join(names, ", ") + " [claude]: "
		var err error
		for range 3 {
			answer := s.o.Ask(q)
			if strings.TrimSpace(answer) == "" {
				answer = hooks.ClientClaude
			}
			if s.clients, err = ParseClients(answer); err == nil {
				return nil
			}
			q = err.Error() + ". " + q
		}
		return err
	}
	s.clients, s.clientsNote = []string{hooks.ClientClaude}, addClientsNote
	return nil
}

// others are the chosen clients other than Claude Code.
func (s *setup) others() []string {
	return slices.DeleteFunc(slices.Clone(s.clients), func(c string) bool { return c == hooks.ClientClaude })
}

// clientHooks installs the other chosen clients' hooks and guidance (as `hooks install
// --<client>` does, in its default scope) as part of the hooks step, whose command becomes the
// one install of them all.
func (s *setup) clientHooks(st SetupStep) (SetupStep, error) {
	others := s.others()
	if len(others) == 0 {
		return st, nil
	}
	if !slices.Contains(s.clients, hooks.ClientClaude) {
		st.Command, st.Status, st.Detail = "git exarchos hooks install", StepAlready, "Claude Code is not among the team's clients"
	}
	changed := false
	var said []string
	for _, client := range others {
		st.Command += " --" + client
		o := HooksOptions{Dir: s.r.WorkTree()}
		var state ClientHooksState
		if s.o.DryRun {
			state = s.clientState(client)
		} else {
			var err error
			if state, err = changeClientHooks(o, client, true); err != nil {
				return st, fmt.Errorf("%s: %w", client, err)
			}
		}
		if state.Changed || len(state.Guidance) > 0 {
			changed = true
		}
		for _, p := range append([]string{state.Path}, state.Guidance...) {
			if rel, ok := s.inWorkTree(p); ok && (state.Changed || p != state.Path) && !slices.Contains(st.Files, rel) {
				st.Files = append(st.Files, rel)
			}
		}
		note := clientNames[client] + ": hooks in " + state.Path + ", guidance " + guidanceWhere[client]
		if client == hooks.ClientCodex {
			note += " (trust the hooks once: codex, /hooks)"
		}
		said = append(said, note)
	}
	if changed {
		st.Status = s.did()
	}
	st.Detail += "; " + strings.Join(said, "; ")
	return st, nil
}

// guidanceWhere says where each client's guidance goes, for setup's detail.
var guidanceWhere = map[string]string{hooks.ClientCodex: "in .agents/skills and AGENTS.md", hooks.ClientGemini: "as the extension ~/.gemini/extensions/exarchos",
	hooks.ClientQwen: "in .qwen/commands, .qwen/skills and QWEN.md", hooks.ClientCopilot: "in ~/.copilot/skills and copilot-instructions.md",
	hooks.ClientOpencode: "none yet"}

// clientState is what install would change for a client (a dry run): Changed when its hooks are
// not all there, Guidance the files not current.
func (s *setup) clientState(client string) ClientHooksState {
	scope := map[bool]string{true: hooks.ScopeUser, false: hooks.ScopeProject}[client == hooks.ClientCopilot]
	st := ClientHooksState{Client: client, Scope: scope}
	path, err := clientHooksPath(s.r.WorkTree(), client, scope)
	if err != nil {
		return st
	}
	st.Path = path
	f, err := hooks.LoadClientHooks(client, path)
	st.Changed = err != nil || len(f.Installed()) < len(hooks.ClientEntries(client))
	st.Guidance = staleGuidance(s.r.WorkTree(), client, scope)
	return st
}

// inWorkTree is p relative to the worktree, when it is inside it.
func (s *setup) inWorkTree(p string) (string, bool) {
	rel, err := filepath.Rel(s.r.WorkTree(), p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// clientFiles are the chosen clients' files in the worktree that belong on the base branch (their
// project hooks and guidance), as pathspecs for the commit step.
func (s *setup) clientFiles() []string {
	var out []string
	for _, client := range s.others() {
		if client == hooks.ClientCopilot {
			continue // the user's, in the home directory
		}
		if p, err := clientHooksPath(s.r.WorkTree(), client, hooks.ScopeProject); err == nil {
			if rel, ok := s.inWorkTree(p); ok {
				out = append(out, rel)
			}
		}
		files, err := clientGuidance(s.r.WorkTree(), client, hooks.ScopeProject)
		if err != nil {
			continue
		}
		for _, f := range files {
			if rel, ok := s.inWorkTree(f.Path); ok {
				out = append(out, rel)
			}
		}
	}
	return out
}

// askConfirm is a yes/no question over Ask: anything but y or yes is no.
func askConfirm(ask func(string) string) func(string) bool {
	return func(q string) bool {
		a := strings.ToLower(strings.TrimSpace(ask(q + " [y/N] ")))
		return a == "y" || a == "yes"
	}
}
