package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/exarchos/git-exarchos/fsmonitor"
	"github.com/exarchos/git-exarchos/ghclient"
	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/hookrun"
	"github.com/exarchos/git-exarchos/hooks"
	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/views"
)

// Doctor check results.
const (
	CheckOK   = "ok"
	CheckWarn = "warn" // works, but something a user would want to set up or look at
	CheckFail = "fail" // broken: doctor exits non-zero
)

// DoctorCheck is one finding; Fix is a command to run (or, for a human's step, what to ask).
type DoctorCheck struct {
	ID      string `json:"id"`
	Status  string `json:"status"`
	Message string `json:"message"`
	Fix     string `json:"fix,omitempty"`
	Detail  any    `json:"detail,omitempty"`
}

// DoctorResult is what `doctor` prints.
type DoctorResult struct {
	Checks   []DoctorCheck `json:"checks"`
	Failures int           `json:"failures"`
	Warnings int           `json:"warnings"`
}

// DoctorOptions are `git exarchos doctor`.
type DoctorOptions struct {
	Dir string       // "" is the working directory
	Now time.Time    // zero: the wall clock
	Env ghclient.Env // zero: the process environment
	// StuckAfter is how long a workflow may wait on a human before doctor reports it (default 3 days).
	StuckAfter time.Duration
}

// minGit is the oldest git whose `update-ref --stdin` has the transaction verbs (start, prepare,
// commit) the store's compare-and-swap of several refs relies on.
var minGit = [2]int{2, 27}

// Doctor checks the installation and the repository. It reads only (the GitHub check makes one
// request when a token is present) and reports every problem with its fix.
func Doctor(o DoctorOptions) (*DoctorResult, error) {
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if o.Env.Getenv == nil {
		o.Env.Getenv = os.Getenv
	}
	if o.StuckAfter == 0 {
		o.StuckAfter = 72 * time.Hour
	}
	d := &DoctorResult{Checks: []DoctorCheck{}}
	d.git()
	d.handler()
	r, err := Open(orDot(o.Dir))
	if err != nil {
		d.add("repository", CheckFail, err.Error(), "cd into a git repository, or `git init`", nil)
		return d, nil
	}
	d.repository(r)
	d.hooks(o.Dir)
	d.monitor(r)
	d.remotes(r)
	d.github(r, o.Env)
	d.rules(r)
	d.signing(r)
	d.legacyConfig(r)
	d.store(r, o)
	d.stuck(r, o)
	return d, nil
}

// monitor reports whether PostToolUse's file-system monitor can watch this worktree.
func (d *DoctorResult) monitor(r *Repo) {
	root := r.Store.Loc.WorkTree
	if root == "" {
		return
	}
	if r.hookRuntime().HookMonitorOff() {
		d.add("fsmonitor", CheckOK, "off (exarchos.hookMonitor false): every PostToolUse runs git status", "", nil)
		return
	}
	dirs, limit, err := fsmonitor.Capacity(root)
	switch {
	case errors.Is(err, fsmonitor.ErrUnsupported):
		d.add("fsmonitor", CheckOK, "no file-system monitor on this platform: every PostToolUse runs git status", "", nil)
	case err != nil:
		d.add("fsmonitor", CheckWarn, err.Error(), "", nil)
	case dirs > limit:
		d.add("fsmonitor", CheckWarn, fmt.Sprintf("the worktree has %d directories and inotify allows %d watches: PostToolUse cannot use a monitor and runs git status on every call", dirs, limit),
			fmt.Sprintf("sudo sysctl fs.inotify.max_user_watches=%d (or git config exarchos.hookMonitor false)", 2*dirs), map[string]int{"directories": dirs, "limit": limit})
	default:
		state := "starts with the first PostToolUse in a phase that restricts paths"
		if _, err := fsmonitor.Token(root); err == nil {
			state = "watching"
		}
		d.add("fsmonitor", CheckOK, fmt.Sprintf("file-system monitor %s (%d directories, inotify allows %d watches)", state, dirs, limit), "", nil)
	}
}

func (d *DoctorResult) add(id, status, msg, fix string, detail any) {
	d.Checks = append(d.Checks, DoctorCheck{ID: id, Status: status, Message: msg, Fix: fix, Detail: detail})
	switch status {
	case CheckFail:
		d.Failures++
	case CheckWarn:
		d.Warnings++
	}
}

// gitVersionRe is compiled when doctor runs, not at package init (which every call pays).
var gitVersionRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`git version (\d+)\.(\d+)`) })

func (d *DoctorResult) git() {
	out, err := project.GitVersion()
	if err != nil {
		d.add("git", CheckFail, "git is not on PATH: "+err.Error(), "install git "+strconv.Itoa(minGit[0])+"."+strconv.Itoa(minGit[1])+" or newer", nil)
		return
	}
	v := strings.TrimSpace(string(out))
	m := gitVersionRe().FindStringSubmatch(v)
	if m == nil {
		d.add("git", CheckWarn, "cannot read the git version from "+strconv.Quote(v), "", nil)
		return
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	if major < minGit[0] || major == minGit[0] && minor < minGit[1] {
		d.add("git", CheckFail, fmt.Sprintf("%s is older than %d.%d (ref transactions need it)", v, minGit[0], minGit[1]), fmt.Sprintf("upgrade git to %d.%d or newer", minGit[0], minGit[1]), nil)
		return
	}
	d.add("git", CheckOK, v, "", nil)
}

func (d *DoctorResult) handler() {
	p, err := exec.LookPath("git-exarchos")
	if err != nil {
		d.add("handler", CheckFail, "git-exarchos is not on PATH: git cannot run `git exarchos`, and no hook can call it",
			"put the directory holding git-exarchos on PATH (e.g. go install github.com/exarchos/git-exarchos/cmd/git-exarchos@latest and add $(go env GOBIN), or $(go env GOPATH)/bin when GOBIN is empty)", nil)
		return
	}
	d.add("handler", CheckOK, "git-exarchos at "+p, "", nil)
}

func (d *DoctorResult) repository(r *Repo) {
	loc := r.Store.Loc
	format, _ := loc.Git(nil, "rev-parse", "--show-object-format")
	version, _ := loc.Git(nil, "config", "--get", "core.repositoryformatversion")
	wtConfig, _ := loc.Git(nil, "config", "--get", "extensions.worktreeConfig")
	detail := map[string]string{"commonDir": loc.CommonDir, "objectFormat": strings.TrimSpace(format), "formatVersion": strings.TrimSpace(version)}
	if loc.WorkTree != "" {
		detail["workTree"] = loc.WorkTree
	}
	msg := fmt.Sprintf("repository %s (format %s, %s objects)", orElse(loc.WorkTree, loc.CommonDir), orElse(detail["formatVersion"], "0"), orElse(detail["objectFormat"], "sha1"))
	if strings.TrimSpace(wtConfig) == "true" {
		msg += "; extensions.worktreeConfig is on (the store falls back to the git binary)"
	}
	d.add("repository", CheckOK, msg, "", detail)
}

func (d *DoctorResult) hooks(dir string) {
	st, err := HooksStatus(HooksOptions{Dir: dir})
	if err != nil {
		d.add("claude-hooks", CheckWarn, err.Error(), "", nil)
		return
	}
	var installed []string
	var partial []string
	for _, c := range st.Claude {
		switch {
		case c.Error != "":
			d.add("claude-hooks", CheckFail, fmt.Sprintf("%s settings %s: %s", c.Scope, c.Path, c.Error), "fix the JSON of "+c.Path+", then git exarchos hooks install --claude --scope "+c.Scope, nil)
		case len(c.Events) == len(hooks.ClaudeEntries):
			installed = append(installed, c.Scope)
		case len(c.Events) > 0:
			partial = append(partial, c.Scope)
		}
	}
	plugin := hookrun.PluginEnabledIn(dir)
	switch {
	case len(partial) > 0:
		d.add("claude-hooks", CheckWarn, "Claude Code hooks are installed only in part in scope "+strings.Join(partial, ", "), "git exarchos hooks install --claude --scope "+partial[0], st.Claude)
	case len(installed) > 0:
		d.add("claude-hooks", CheckOK, "Claude Code hooks installed ("+strings.Join(installed, ", ")+" scope), command "+st.Command, "", nil)
	case plugin != "":
		d.add("claude-hooks", CheckOK, "Claude Code hooks come from the exarchos plugin (enabled in "+plugin+")", "", nil)
	default:
		d.add("claude-hooks", CheckWarn, "Claude Code hooks are not installed: phases are not enforced in agent sessions", "git exarchos hooks install --claude", nil)
	}
	d.clientHooks(st.Clients)
	if path, ok, err := mcpRegistered(dir); err != nil {
		d.add("mcp", CheckFail, err.Error(), "", nil)
	} else if !ok && plugin != "" {
		d.add("mcp", CheckOK, "the MCP server comes from the exarchos plugin (enabled in "+plugin+")", "", nil)
	} else if !ok {
		d.add("mcp", CheckWarn, "the MCP server is not registered for Claude Code ("+path+")", "git exarchos mcp --install", nil)
	} else if helper, err := mcpHelper(); err != nil {
		d.add("mcp", CheckFail, "the MCP server is registered in "+path+", but Claude Code cannot start it: "+MCPHelperName+" is not installed", mcpHelperInstall, nil)
	} else {
		d.add("mcp", CheckOK, "MCP server registered in "+path+", served by "+helper, "", nil)
	}
	if len(st.Warnings) > 0 && len(installed)+len(partial) > 0 {
		// What `hooks status` warns of (a handler not on PATH, an entry that fails open); with no
		// hooks installed at all the claude-hooks check above already says what to do.
		d.add("hook-handler", CheckWarn, strings.Join(st.Warnings, "; "), "git exarchos hooks status", nil)
	}
	var missing, chained []string
	for _, h := range st.Git {
		if !h.Installed {
			missing = append(missing, h.Name)
		} else if h.Chained {
			chained = append(chained, h.Name)
		}
	}
	switch {
	case len(missing) > 0:
		d.add("git-hooks", CheckWarn, "git hooks not installed in "+st.GitDir+": "+strings.Join(missing, ", ")+" (existing hooks are chained, not replaced)", "git exarchos hooks install --git", st.Git)
	case len(chained) > 0:
		d.add("git-hooks", CheckOK, "git hooks installed in "+st.GitDir+", chained before "+strings.Join(chained, ", ")+"'s previous hook", "", nil)
	default:
		d.add("git-hooks", CheckOK, "git hooks installed in "+st.GitDir, "", nil)
	}
}

// clientHooks checks the other clients' hook files that exist (hooks status lists only those):
// complete, and for Codex, which skips a hook nobody trusted without a word, how to trust them.
func (d *DoctorResult) clientHooks(files []ClientHooksState) {
	for _, c := range files {
		fix := "git exarchos hooks install --" + c.Client + " --scope " + c.Scope
		switch {
		case c.Error != "":
			d.add("client-hooks", CheckFail, fmt.Sprintf("%s hooks %s: %s", c.Client, c.Path, c.Error), "fix "+c.Path+", then "+fix, nil)
		case len(c.Events) == 0:
			continue
		case len(c.Events) < len(hooks.ClientEntries(c.Client)):
			d.add("client-hooks", CheckWarn, fmt.Sprintf("%s hooks are installed only in part in %s", c.Client, c.Path), fix, c)
		default:
			d.add("client-hooks", CheckOK, fmt.Sprintf("%s hooks installed in %s", c.Client, c.Path), "", nil)
		}
		if c.Client == hooks.ClientCodex && len(c.Events) > 0 {
			d.add("codex-trust", CheckWarn, "Codex runs the hooks of "+c.Path+" only once you trust them, and skips them silently until then (after every change of the file too)",
				"open codex in this repository, run /hooks and trust the git-exarchos hooks (a project's .codex/ also needs the project trusted)", nil)
		}
	}
}

func (d *DoctorResult) remotes(r *Repo) {
	remotes, err := r.Store.Remotes()
	if err != nil || len(remotes) == 0 {
		d.add("remote", CheckWarn, "no remote: workflows live in this clone only", "git remote add origin <url> && git exarchos push", nil)
		return
	}
	local, err := r.Store.List()
	if err != nil {
		return // reported by the store check
	}
	for _, remote := range remotes {
		out, _ := r.Store.Loc.Git(nil, "config", "--get-all", "remote."+remote+".fetch")
		if !strings.Contains("\n"+out+"\n", "\n"+gitstore.FetchRefspec(remote)+"\n") {
			d.add("remote", CheckWarn, "`git fetch "+remote+"` does not bring workflows (no refspec "+gitstore.FetchRefspec(remote)+")", "git exarchos remote setup "+remote, nil)
		} else {
			d.add("remote", CheckOK, remote+" fetches workflows into "+gitstore.RemoteRefPrefix+remote+"/", "", nil)
		}
		theirs, err := r.Store.RemoteWorkflows(remote)
		if err != nil {
			continue
		}
		var unpushed []string
		for _, s := range local {
			if h, ok := theirs[s.Feature]; !ok || h != s.Commit {
				unpushed = append(unpushed, s.Feature)
			}
		}
		if len(unpushed) > 0 {
			d.add("pushed", CheckWarn, fmt.Sprintf("%d workflow(s) differ from %s as last fetched: %s", len(unpushed), remote, strings.Join(unpushed, ", ")), "git exarchos sync "+remote, unpushed)
		} else if len(local) > 0 {
			d.add("pushed", CheckOK, fmt.Sprintf("every workflow is on %s as last fetched", remote), "", nil)
		}
	}
}

func (d *DoctorResult) github(r *Repo, env ghclient.Env) {
	repo, err := r.gitHub().OriginRepo()
	if err != nil {
		msg := "origin is not a GitHub repository: merges are verified offline (cleanup --offline)"
		if _, ok := r.Store.Config("remote.origin.url"); !ok {
			msg = "no origin remote: merges are verified offline (cleanup --offline)"
		}
		d.add("github", CheckOK, msg, "", nil)
		return
	}
	token, err := ghclient.ResolveToken(repo.Host, env)
	if err != nil {
		d.add("github", CheckWarn, "no GitHub token for "+repo.Host+": pr link, pr refresh and cleanup cannot ask GitHub", "export GH_TOKEN=<token> (or gh auth login --hostname "+repo.Host+")", nil)
		return
	}
	client, err := ghclient.New(ghclient.Options{Repo: repo, Token: &token, Env: env, RetryBudget: time.Second})
	if err != nil {
		d.add("github", CheckFail, err.Error(), "", nil)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	a, err := client.Access(ctx)
	if err != nil {
		d.add("github", CheckFail, "the GitHub token ("+token.Source+") cannot read "+repo.FullName()+": "+err.Error(), "give the token read access to "+repo.FullName()+" (pull requests, checks), or export another one in GH_TOKEN", nil)
		return
	}
	can := []string{}
	for _, p := range []struct {
		ok   bool
		name string
	}{{a.Pull, "read"}, {a.Push, "push"}, {a.Admin, "admin"}} {
		if p.ok {
			can = append(can, p.name)
		}
	}
	msg := fmt.Sprintf("GitHub token from %s: %s on %s", token.Source, strings.Join(can, ", "), a.Repo)
	if len(a.Scopes) > 0 {
		msg += " (scopes " + strings.Join(a.Scopes, ", ") + ")"
	}
	if !a.Pull {
		d.add("github", CheckFail, msg+": it cannot read the repository", "give the token read access to "+repo.FullName(), a)
		return
	}
	if !a.Push {
		d.add("github", CheckWarn, msg+": cancel cannot close pull requests without push access", "give the token write access to pull requests of "+repo.FullName(), a)
		return
	}
	d.add("github", CheckOK, msg, "", a)
}

// signing reports the trust mode (signers on the base branch, see trust/trust.go) and whether this
// clone's signing key can make decisions that count.
// legacyConfig warns of git config keys of earlier versions (project/legacy_config.go): not read, and
// refusing only the decisions they would have changed.
func (d *DoctorResult) legacyConfig(r *Repo) {
	if keys := r.Rules().Legacy; len(keys) > 0 {
		d.add("legacy-config", CheckWarn, project.LegacyWarning(keys, r.Base().Ref)+"; a decision the key would have changed is refused until then", "git config --unset "+keys[0], keys)
	}
}

func (d *DoctorResult) signing(r *Repo) {
	info := r.TrustInfo()
	key := r.SigningConfig().SigningKey
	switch {
	case info.RolesProblem != "":
		d.add("signing", CheckFail, info.Note, "fix "+info.RolesProblem+" on "+info.Base+" (one `<decision> <principal>[,<principal>…]` a line), commit and push it, then git exarchos doctor", info)
	case info.Mode == "unreadable":
		d.add("signing", CheckFail, info.Note, "git fetch && git exarchos doctor", info)
	case info.Mode != "signed":
		d.add("signing", CheckWarn, "unsigned mode: "+info.Note, "git exarchos setup --signer --commit", info)
	case key == "":
		d.add("signing", CheckWarn, fmt.Sprintf("decisions are signed (%d signer(s) on %s), but this clone has no signing key: a decision made here has no effect", info.Signers, info.Base),
			"git config user.signingKey ~/.ssh/id_ed25519.pub && git config gpg.format ssh", info)
	case info.KeyWarning != "":
		d.add("signing", CheckWarn, info.KeyWarning, "", info)
	default:
		d.add("signing", CheckOK, fmt.Sprintf("decisions are signed: %d signer(s) on %s, signing key %s", info.Signers, info.Base, key), "", info)
	}
}

// rules reports rule files at the base branch that cannot be read or do not parse (every governed
// command refuses until they can), and the other problems of the definitions there.
func (d *DoctorResult) rules(r *Repo) {
	rl := r.Rules()
	if err := rl.Err(); err != nil {
		d.add("rules", CheckFail, err.Error(), "fix the file on the base branch "+rl.Base.Ref+" (see the message)", rl.Unreadable)
		return
	}
	if len(rl.Problems) > 0 {
		d.add("rules", CheckWarn, rl.Problems[0].String(), "git exarchos lint", rl.Problems)
	}
}

// store runs fsck's checks: format, segments, ids, snapshots against the fold, malformed refs,
// and locks or temporary objects left by a process that died (fsck names their owner and age).
func (d *DoctorResult) store(r *Repo, o DoctorOptions) {
	res, err := Fsck(r, views.FsckOptions{})
	switch {
	case err != nil:
		d.add("store", CheckFail, "cannot read the workflows: "+err.Error(), "git exarchos fsck", nil)
	case len(res.Problems) > 0:
		for _, p := range res.Problems {
			msg := p.Path + ": " + p.Message
			if p.Feature != "" {
				msg = fmt.Sprintf("%s: %s (%s at %s)", p.Feature, p.Message, p.Path, short12(p.Commit))
			}
			fix := p.Fix
			if fix == "" {
				fix = strings.TrimSpace("git exarchos fsck " + p.Feature)
			}
			d.add("store", CheckFail, msg, fix, p)
		}
	default:
		d.add("store", CheckOK, fmt.Sprintf("%d workflow(s) verified (events, snapshots)", len(res.Checked)), "", nil)
	}
}

// stuck reports workflows whose circuit is open, or that have waited on a human too long.
func (d *DoctorResult) stuck(r *Repo, o DoctorOptions) {
	p, err := ShowPipeline(r, views.PipelineOptions{Now: o.Now})
	if err != nil {
		return
	}
	for _, w := range p.Workflows {
		idle := time.Duration(w.IdleSeconds) * time.Second
		switch {
		case strings.HasPrefix(w.Blocked, "circuit open"):
			d.add("stuck", CheckWarn, fmt.Sprintf("%s: %s (idle %s)", w.Feature, w.Blocked, idle.Round(time.Hour)), w.Next, w.Feature)
		case w.Human && idle >= o.StuckAfter:
			d.add("stuck", CheckWarn, fmt.Sprintf("%s has waited on a human in %s for %s", w.Feature, w.Phase, idle.Round(time.Hour)), w.Next, w.Feature)
		}
	}
}

func short12(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

func orElse(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
