package app

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	gitexarchos "github.com/exarchos/git-exarchos"
	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/hookrun"
	"github.com/exarchos/git-exarchos/hooks"
	"github.com/exarchos/git-exarchos/internal/atomicfile"
	"github.com/exarchos/git-exarchos/internal/faults"
	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/signing"
	"github.com/exarchos/git-exarchos/teamsync"
	"github.com/exarchos/git-exarchos/trust"
)

// SetupOptions are `git exarchos setup`.
type SetupOptions struct {
	// Plugin: the Claude Code plugin carries the hooks and the MCP server, so neither is written
	// into the repository's settings.
	Plugin bool
	Remote string // the remote to set up; "" is the default (upstream, else origin)
	Signer bool   // add the user's signing key to the allowed signers (a human's step)
	Commit bool   // commit the files that belong on the base branch, on the base branch
	DryRun bool   // change nothing, say what would be done
	// AutoPush sets exarchos.autoPush without asking; GitHub adds the base branch's ruleset on
	// GitHub without asking (setup_github.go).
	AutoPush bool
	GitHub   bool
	// Confirm asks the user a yes/no question (a terminal); nil never asks, and what was not asked
	// for by a flag is left for a human. With Confirm nil and Ask set, the questions go through Ask.
	Confirm func(question string) bool
	// Clients are the agent clients the team uses (claude, codex, gemini, qwen, copilot; --clients):
	// setup installs each one's hooks and guidance. None asks through Ask (a terminal), else
	// installs Claude Code's alone and says how to add the others.
	Clients []string
	// Ask asks the user a question on a terminal and returns the line they answer; nil never asks.
	Ask func(question string) string
}

// Setup step statuses.
const (
	StepDone         = "done"
	StepWouldDo      = "would-do" // --dry-run
	StepAlready      = "already"
	StepSkipped      = "skipped"
	StepLeftForHuman = "left-for-human"
)

// SetupStep is one thing setup does, or found done, or leaves to a human.
type SetupStep struct {
	Step    string   `json:"step"` // hooks, mcp, remote, ci, signer, commit, autopush, github
	Status  string   `json:"status"`
	Command string   `json:"command"` // the command this step is (run it by hand to do only this step)
	Detail  string   `json:"detail,omitempty"`
	Files   []string `json:"files,omitempty"` // files it wrote or would write, relative to the worktree
}

// SetupResult is what `setup` prints.
type SetupResult struct {
	DryRun bool        `json:"dryRun"`
	Steps  []SetupStep `json:"steps"`
	// Human lists what is left for a person: commands to run in their own terminal, and the
	// required check to set on GitHub.
	Human []string `json:"human"`
	// Clients are the agent clients set up (SetupOptions.Clients, the answer, or claude).
	Clients []string `json:"clients"`
}

// UnprotectedKeyNote says what a signing key is worth when an agent runs as the same user.
const UnprotectedKeyNote = "a signing key an agent can use protects nothing: it runs as you, so it can sign with any key file " +
	"you can read without a passphrase. Protect it with a passphrase (asked on every use unless an agent caches it), " +
	"a FIDO key (ssh-keygen -t ed25519-sk: a touch per signature), or ssh-agent with confirmation (ssh-add -c)"

// requiredCheck is the step on GitHub that makes the verify workflow a gate.
const requiredCheck = "on GitHub, make \"exarchos verify\" a required status check of the base branch (Settings, Branches, branch protection rule)"

// setupFiles are the files setup writes that belong on the base branch, in the order it writes them.
var setupFiles = []string{".claude/settings.json", MCPConfigFile, gitexarchos.VerifyWorkflowPath, trust.AllowedSignersPath}

// Setup does what a new repository needs, step by step, each idempotent: a second run finds every
// step already done and changes nothing. Files are written atomically, so a kill between (or in)
// steps leaves each file old or new; running setup again finishes the rest.
func Setup(r *Repo, o SetupOptions) (*SetupResult, error) {
	var agent string
	if v, ok := r.Environ.Detect(); ok {
		agent = v.Name
	}
	if agent != "" && (o.Signer || o.Commit || o.GitHub) && !o.DryRun {
		flag := map[bool]string{true: "--signer", false: "--commit"}[o.Signer]
		if o.GitHub && !o.Signer && !o.Commit {
			flag = "--github"
		}
		return nil, trust.RefuseInAgent(r.Environ, "setup "+flag)
	}
	if r.WorkTree() == "" {
		return nil, project.Usagef("setup writes files into a working tree: run it in a clone of the repository")
	}
	if o.Confirm == nil && o.Ask != nil {
		o.Confirm = askConfirm(o.Ask)
	}
	s := &setup{r: r, o: o, agent: agent, res: &SetupResult{DryRun: o.DryRun, Human: []string{}}}
	if err := s.chooseClients(); err != nil {
		return nil, err
	}
	s.res.Clients = s.clients
	for i, step := range []func() (SetupStep, error){s.hooks, s.mcp, s.remote, s.ci, s.signer, s.commit, s.autoPush, s.github} {
		faults.Step(i + 1)
		st, err := step()
		if err != nil {
			return nil, fmt.Errorf("setup %s: %w", st.Step, err)
		}
		if st.Status == StepLeftForHuman {
			s.res.Human = append(s.res.Human, st.Command)
		}
		s.res.Steps = append(s.res.Steps, st)
		faults.Hit("")
	}
	return s.res, nil
}

type setup struct {
	r     *Repo
	o     SetupOptions
	agent string
	res   *SetupResult
	// clients are the agent clients to set up; clientsNote, how to add others when none was named.
	clients     []string
	clientsNote string
}

// did is the status of a step that changed something: done, or would-do in a dry run.
func (s *setup) did() string {
	if s.o.DryRun {
		return StepWouldDo
	}
	return StepDone
}

func (s *setup) path(rel string) string {
	return filepath.Join(s.r.WorkTree(), filepath.FromSlash(rel))
}

// hooks installs the chosen clients' hooks: Claude Code's here, the others' in clientHooks.
func (s *setup) hooks() (SetupStep, error) {
	st := SetupStep{Step: "hooks", Command: "git exarchos hooks install"}
	if slices.Contains(s.clients, hooks.ClientClaude) {
		var err error
		if st, err = s.claudeHooks(); err != nil {
			return st, err
		}
	}
	st, err := s.clientHooks(st)
	if s.clientsNote != "" {
		st.Detail += "; " + s.clientsNote
	}
	return st, err
}

func (s *setup) claudeHooks() (SetupStep, error) {
	st := SetupStep{Step: "hooks", Command: "git exarchos hooks install --claude"}
	settings, err := hooks.LoadSettings(s.path(".claude/settings.json"))
	if err != nil {
		return st, err
	}
	if s.o.Plugin {
		st.Status, st.Detail = StepSkipped, "the exarchos Claude Code plugin carries the hooks and the MCP server: install it in Claude Code (see docs/setup.md)"
		if len(settings.Installed()) > 0 {
			st.Detail += "; .claude/settings.json installs the handler too, so it would run twice: git exarchos hooks uninstall --claude"
		}
		return st, nil
	}
	changed, err := settings.Install(claudeHookCommand(), hooks.ClaudeEntries)
	if err != nil {
		return st, err
	}
	if !changed {
		st.Status, st.Detail = StepAlready, ".claude/settings.json installs the handler for every event"
		return st, nil
	}
	if !s.o.DryRun {
		if err := settings.Save(); err != nil {
			return st, err
		}
	}
	st.Status, st.Files, st.Detail = s.did(), []string{".claude/settings.json"}, "Claude Code runs git exarchos on every tool call of this project"
	return st, nil
}

func (s *setup) mcp() (SetupStep, error) {
	st := SetupStep{Step: "mcp", Command: "git exarchos mcp --install"}
	if !slices.Contains(s.clients, hooks.ClientClaude) {
		st.Status, st.Detail = StepSkipped, "the MCP server is registered for Claude Code, which is not among the team's clients"
		return st, nil
	}
	if s.o.Plugin {
		st.Status, st.Detail = StepSkipped, "the plugin registers the MCP server"
		if _, ok, err := mcpRegistered(s.r.WorkTree()); err == nil && ok {
			st.Detail += "; " + MCPConfigFile + " registers it too, so it would start twice: git exarchos mcp --uninstall"
		}
		return st, nil
	}
	res, err := MCPInstall(MCPInstallOptions{Dir: s.r.WorkTree(), DryRun: s.o.DryRun})
	if err != nil {
		return st, err
	}
	if !res.Changed {
		st.Status, st.Detail = StepAlready, MCPConfigFile+" registers the exarchos server"
		return st, nil
	}
	st.Status, st.Files, st.Detail = s.did(), []string{MCPConfigFile}, "the workflow commands as MCP tools (restart Claude Code to load them)"
	return st, nil
}

func (s *setup) remote() (SetupStep, error) {
	st := SetupStep{Step: "remote", Command: "git exarchos remote setup"}
	if s.o.Remote != "" {
		st.Command += " " + s.o.Remote
	}
	remote, err := s.r.Store.ResolveRemote(s.o.Remote)
	if errors.Is(err, gitstore.ErrNoRemote) && s.o.Remote == "" {
		st.Status, st.Detail = StepSkipped, "no remote yet: after `git remote add origin <url>`, run git exarchos setup again"
		return st, nil
	}
	if err != nil {
		return st, project.Usagef("%v", err)
	}
	spec := gitstore.FetchRefspec(remote)
	for _, v := range s.r.ConfigAll("remote." + remote + ".fetch") {
		if strings.TrimSpace(v) == spec {
			st.Status, st.Detail = StepAlready, "git fetch "+remote+" brings workflows"
			return st, nil
		}
	}
	if !s.o.DryRun {
		if _, err := teamsync.RemoteSetup(s.r.Repo, teamsync.RemoteSetupOptions{Remote: remote}); err != nil {
			return st, err
		}
	}
	st.Status, st.Detail = s.did(), "git fetch "+remote+" brings workflows too ("+spec+")"
	return st, nil
}

func (s *setup) ci() (SetupStep, error) {
	rel := gitexarchos.VerifyWorkflowPath
	st := SetupStep{Step: "ci", Command: "git exarchos setup (writes " + rel + ")"}
	current, err := os.ReadFile(s.path(rel))
	switch {
	case err == nil && bytes.Equal(current, gitexarchos.VerifyWorkflow):
		st.Status, st.Detail = StepAlready, rel+" is the one this version ships"
		if !s.o.DryRun {
			return st, hookrun.RecordInstalled(s.path(rel)) // written by an older setup: not counted against a phase
		}
		return st, nil
	case err == nil:
		st.Status, st.Detail = StepSkipped, rel+" exists and differs from the one this version ships: left as it is"
		return st, nil
	case !errors.Is(err, os.ErrNotExist):
		return st, err
	}
	if !s.o.DryRun {
		if err := atomicfile.Write(s.path(rel), gitexarchos.VerifyWorkflow, 0o644); err != nil {
			return st, err
		}
		if err := hookrun.RecordInstalled(s.path(rel)); err != nil { // paths-allowed does not count it (hookrun/installed.go)
			return st, err
		}
	}
	st.Status, st.Files = s.did(), []string{rel}
	st.Detail = "runs git exarchos verify on pull requests; make \"exarchos verify\" a required check in the base branch's protection rules (a human's step on GitHub)"
	s.res.Human = append(s.res.Human, requiredCheck)
	return st, nil
}

// signer offers the user's own signing key (git's signing configuration) as an allowed signer.
func (s *setup) signer() (SetupStep, error) {
	st := SetupStep{Step: "signer", Command: "git exarchos setup --signer"}
	if !s.o.DryRun {
		// A signers change a kill interrupted is finished first (its key may be the one offered),
		// so nothing of it is left untracked for the commit step.
		if err := trust.FinishSignersChange(s.r.WorkTree()); err != nil {
			return st, err
		}
	}
	cfg := s.r.SigningConfig()
	key := strings.TrimSpace(cfg.SigningKey)
	email, _ := s.r.Config("user.email")
	email = strings.TrimSpace(email)
	if strings.TrimSpace(cfg.Format) != signing.FormatSSH || key == "" || email == "" {
		st.Status = StepLeftForHuman
		st.Command = "ssh-keygen -t ed25519 -f ~/.ssh/id_exarchos && git config --global gpg.format ssh && git config --global user.signingkey ~/.ssh/id_exarchos.pub && git exarchos setup --signer"
		st.Detail = "no SSH signing key in your git configuration (gpg.format ssh, user.signingkey, user.email): human decisions are not protected until a key of yours is on the base branch. " + UnprotectedKeyNote
		return st, nil
	}
	pubFile, shown := expandHome(key), ""
	if literal, ok := strings.CutPrefix(key, "key::"); ok {
		// The key is in the configuration itself: signers add reads a file, so give it one.
		f, err := os.CreateTemp("", "exarchos-signing-key-*.pub")
		if err != nil {
			return st, err
		}
		defer os.Remove(f.Name())
		_, err = f.WriteString(literal + "\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return st, err
		}
		pubFile, shown = f.Name(), "the key in user.signingkey"
	} else if !strings.HasSuffix(pubFile, ".pub") {
		if _, err := os.Stat(pubFile + ".pub"); err == nil {
			pubFile += ".pub"
		}
	}
	if shown == "" {
		shown = pubFile
	}
	line, err := signing.PublicKeyLine(pubFile)
	if err != nil {
		st.Status, st.Detail = StepLeftForHuman, "user.signingkey: "+err.Error()
		st.Command = "git config --global user.signingkey <your-key>.pub && git exarchos setup --signer"
		return st, nil
	}
	st.Command = fmt.Sprintf("git exarchos setup --signer (adds %s as %s)", shown, email)
	if s.listsSigner(email, line) {
		st.Status, st.Detail = StepAlready, trust.AllowedSignersPath+" lists "+email+" with your signing key"
		return st, nil
	}
	protection := signing.KeyProtection(cfg)
	if protection == "" {
		protection = UnprotectedKeyNote
	}
	switch {
	case s.agent != "":
		st.Status = StepLeftForHuman
		st.Detail = fmt.Sprintf("adding a signer is a human's step and the environment says an agent runs this (%s is set): ask the user to run `git exarchos setup --signer` in their own terminal. %s", s.agent, protection)
		return st, nil
	case !s.o.Signer && (s.o.DryRun || s.o.Confirm == nil || !s.o.Confirm(fmt.Sprintf("Add your signing key %s as %s, so that only decisions you sign count? (%s)", shown, email, protection))):
		st.Status = StepLeftForHuman
		st.Detail = "your key is not an allowed signer yet, so human decisions are not protected. " + protection
		return st, nil
	}
	if !s.o.DryRun {
		if _, err := trust.SignersAdd(s.r.Repo, trust.SignersAddOptions{Principal: email, KeyFile: pubFile}); err != nil {
			return st, err
		}
	}
	st.Status, st.Files = s.did(), []string{trust.AllowedSignersPath}
	st.Detail = "decisions are protected once " + trust.AllowedSignersPath + " is on the base branch. " + protection
	return st, nil
}

// listsSigner reports whether the working tree's allowed signers, else the base branch's, list
// principal with the key.
func (s *setup) listsSigner(principal, key string) bool {
	b, err := os.ReadFile(s.path(trust.AllowedSignersPath))
	if err != nil {
		b, _, _ = s.r.BaseFile(trust.AllowedSignersPath)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == principal && strings.HasSuffix(strings.TrimSpace(l), key) {
			return true
		}
	}
	return false
}

// commit commits the files setup writes that belong on the base branch — there only, and only
// with the user's consent (--commit, or yes on a terminal). A feature branch never gets them: a
// planning phase would count them against the workflow.
func (s *setup) commit() (SetupStep, error) {
	st := SetupStep{Step: "commit", Command: "git exarchos setup --commit"}
	pending, err := s.uncommitted()
	if err != nil {
		return st, err
	}
	if len(pending) == 0 {
		st.Status, st.Detail = StepAlready, "nothing setup writes is left uncommitted"
		return st, nil
	}
	st.Files = pending
	base := s.r.Base()
	name, remote := strings.TrimPrefix(base.Ref, "refs/heads/"), ""
	if rest, ok := strings.CutPrefix(base.Ref, "refs/remotes/"); ok {
		remote, name, _ = strings.Cut(rest, "/")
	}
	manual := fmt.Sprintf("git add -- %s && git commit -m %q -- %s", strings.Join(pending, " "), "exarchos: set up the repository", strings.Join(pending, " "))
	push := ""
	if remote != "" {
		push = ", then push it (git push " + remote + " " + name + ")"
	}
	current := s.r.CurrentBranch()
	switch {
	case current != name:
		st.Status, st.Command = StepLeftForHuman, fmt.Sprintf("git switch %s && git exarchos setup --commit", name)
		st.Detail = fmt.Sprintf("these files belong on the base branch %s, and HEAD is on %s: a workflow's planning phase would count them against it on a feature branch. Commit them on %s%s", name, orElse(current, "a detached HEAD"), name, push)
		return st, nil
	case s.agent != "":
		st.Status = StepLeftForHuman
		st.Detail = fmt.Sprintf("committing on the base branch needs the user's consent and the environment says an agent runs this (%s is set): ask the user to run `git exarchos setup --commit` in their own terminal", s.agent)
		return st, nil
	case !s.o.Commit && (s.o.DryRun || s.o.Confirm == nil || !s.o.Confirm(fmt.Sprintf("Commit %s on %s?", strings.Join(pending, ", "), name))):
		st.Status = StepLeftForHuman
		st.Detail = fmt.Sprintf("commit them on %s%s (or by hand: %s)", name, push, manual)
		return st, nil
	}
	if !s.o.DryRun {
		// --only with the paths commits these files and nothing else the user had staged.
		if err := s.r.CommitPaths("exarchos: set up the repository", pending); err != nil {
			return st, err
		}
	}
	st.Status, st.Detail = s.did(), "committed on "+name+push
	if remote != "" {
		s.res.Human = append(s.res.Human, "git push "+remote+" "+name)
	}
	return st, nil
}

// uncommitted lists the files setup writes that differ from HEAD (untracked, or changed).
func (s *setup) uncommitted() ([]string, error) {
	clientFiles := s.clientFiles()
	out, err := s.r.PorcelainStatus(append(slices.Clone(setupFiles), clientFiles...))
	if err != nil {
		return nil, err
	}
	var files []string
	for _, p := range append(slices.Clone(setupFiles), clientFiles...) {
		if strings.Contains("\n"+out+"\n", " "+p+"\n") && !slices.Contains(files, p) {
			files = append(files, p)
		}
	}
	// A dry run wrote nothing, so the files it would write are pending too.
	if s.o.DryRun {
		for _, st := range s.res.Steps {
			for _, f := range st.Files {
				if st.Status == StepWouldDo && !slices.Contains(files, f) {
					files = append(files, f)
				}
			}
		}
	}
	return files, nil
}

func expandHome(p string) string {
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[2:])
		}
	}
	return p
}
