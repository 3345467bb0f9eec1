// Package mcpserver is the Model Context Protocol server: every tool turns its typed input into the
// arguments of one git-exarchos command and runs that command, as its own process, with --json, so
// a tool answers exactly what the command answers (parity by construction; the tests check it).
// Human decisions (approve, reject, override, unblock, grant, budget) are deliberately not tools.
//
// It is its own binary, git-exarchos-mcp, which `git exarchos mcp` starts: the MCP SDK and its JSON
// Schema package cost every run of a binary that links them 0.3–0.45 ms of start-up (package
// initialisation and a larger binary to map), and git-exarchos runs on every hook call.
//
// It may import app (the design allows it; today it needs none of it), the MCP SDK and the internal helpers.
package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/exarchos/git-exarchos/internal/agentenv"
	"github.com/exarchos/git-exarchos/internal/sibling"
)

// Tool inputs: their JSON schema is inferred from these types (omitempty = optional).
type (
	featureIn struct {
		Feature string `json:"feature,omitempty" jsonschema:"workflow id; default: the workflow bound to the current branch, or the only active one"`
	}
	initIn struct {
		Feature       string `json:"feature" jsonschema:"new workflow id ([a-z0-9][a-z0-9._-]*)"`
		Type          string `json:"type" jsonschema:"workflow type: feature, debug, refactor, oneshot, discovery, loop or a repository-defined one"`
		Branch        string `json:"branch,omitempty" jsonschema:"branch to bind (default: the current branch)"`
		Synthesis     string `json:"synthesis,omitempty" jsonschema:"oneshot only: synthesis policy"`
		Completion    string `json:"completion,omitempty" jsonschema:"loop only: worker-done | reviewer-pass | both"`
		MaxIterations *int   `json:"maxIterations,omitempty" jsonschema:"loop only: iteration limit"`
	}
	statusIn struct {
		featureIn
		Fields []string `json:"fields,omitempty" jsonschema:"only these top-level fields"`
		Format string   `json:"format,omitempty" jsonschema:"json (default) or mermaid"`
	}
	setIn struct {
		featureIn
		Assignments []string `json:"assignments" jsonschema:"assignments as path=value, e.g. artifacts.design=docs/design.md"`
		Inline      bool     `json:"inline,omitempty" jsonschema:"the values are inline text, not paths"`
	}
	transitionIn struct {
		featureIn
		Phase string `json:"phase" jsonschema:"the phase to move to"`
	}
	listIn struct {
		All bool `json:"all,omitempty" jsonschema:"include finished workflows"`
	}
	describeIn struct {
		Type string `json:"type,omitempty" jsonschema:"workflow type; default: all types"`
	}
	cancelIn struct {
		featureIn
		Reason string `json:"reason,omitempty" jsonschema:"why the workflow is cancelled"`
		DryRun bool   `json:"dryRun,omitempty" jsonschema:"show the compensation steps without running them"`
		SkipPR bool   `json:"skipPR,omitempty" jsonschema:"leave the pull request open"`
	}
	eventIn struct {
		featureIn
		Type           string         `json:"type" jsonschema:"event type"`
		Data           map[string]any `json:"data,omitempty" jsonschema:"the event's data (a JSON object)"`
		IdempotencyKey string         `json:"idempotencyKey,omitempty" jsonschema:"appending again with the same key is a no-op"`
	}
	queryIn struct {
		featureIn
		Types    []string `json:"types,omitempty" jsonschema:"only events of these types"`
		SinceSeq *int64   `json:"sinceSeq,omitempty" jsonschema:"only events after this sequence number"`
		Limit    *int     `json:"limit,omitempty" jsonschema:"at most this many events"`
	}
	tasksIn struct {
		featureIn
	}
	taskIn struct {
		featureIn
		Task string `json:"task" jsonschema:"task id"`
	}
	taskAddIn struct {
		taskIn
		Title string `json:"title,omitempty" jsonschema:"what the task is"`
	}
	taskStartIn struct {
		taskIn
		Worktree bool   `json:"worktree,omitempty" jsonschema:"create a worktree and branch for the task"`
		Base     string `json:"base,omitempty" jsonschema:"with worktree: the revision to branch from"`
		Path     string `json:"path,omitempty" jsonschema:"with worktree: where to create it"`
	}
	taskFailIn struct {
		taskIn
		Reason string `json:"reason,omitempty" jsonschema:"why it failed"`
	}
	validateIn struct {
		featureIn
		Command []string `json:"command" jsonschema:"the validation command and its arguments, e.g. [\"go\",\"test\",\"./...\"]"`
	}
	reviewIn struct {
		featureIn
		Dimension    string      `json:"dimension,omitempty" jsonschema:"review dimension, e.g. spec or quality (not with resolve)"`
		Verdict      string      `json:"verdict,omitempty" jsonschema:"pass or fail; left out, the findings decide it (fail when one blocks)"`
		Note         string      `json:"note,omitempty" jsonschema:"what the reviewer found; with resolve, why the finding is closed"`
		Findings     []findingIn `json:"findings,omitempty" jsonschema:"what the review found (at most 100); high and above block and open the fix cycle"`
		FindingsFile string      `json:"findingsFile,omitempty" jsonschema:"path of a JSON array of findings ({severity, file, line, text})"`
		Resolve      string      `json:"resolve,omitempty" jsonschema:"the id of an open finding to close, with note saying why (a reviewer's call, not the implementer's)"`
	}
	findingIn struct {
		Severity string `json:"severity" jsonschema:"critical, high, medium, low or info"`
		File     string `json:"file" jsonschema:"the file, relative to the repository's top, as committed on the judged tip"`
		Line     int    `json:"line,omitempty" jsonschema:"the line; 0 or absent: the file as a whole"`
		Text     string `json:"text" jsonschema:"what is wrong and what to change"`
	}
	submitIn struct {
		featureIn
		Phase string `json:"phase" jsonschema:"the phase whose completion payload is submitted"`
		File  string `json:"file" jsonschema:"path of the JSON completion payload file"`
	}
	stageDoneIn struct {
		featureIn
		Stage string `json:"stage" jsonschema:"the running stage of the fan-out phase to complete"`
		File  string `json:"file,omitempty" jsonschema:"path of the stage's completion (JSON), when the stage has a completion schema"`
	}
	stageFailIn struct {
		featureIn
		Stage  string `json:"stage" jsonschema:"the running stage of the fan-out phase that failed"`
		Reason string `json:"reason" jsonschema:"why it failed (recorded); its running sibling stages are cancelled"`
	}
	prLinkIn struct {
		featureIn
		PR string `json:"pr" jsonschema:"pull request URL or number"`
	}
	reviewImportIn struct {
		featureIn
		DryRun bool `json:"dryRun,omitempty" jsonschema:"read GitHub and say what would be recorded; record nothing"`
	}
	prCreateIn struct {
		featureIn
		Title  string `json:"title,omitempty" jsonschema:"the pull request's title (default: the design's first heading)"`
		DryRun bool   `json:"dryRun,omitempty" jsonschema:"compose the title and body only: ask GitHub nothing, record nothing"`
	}
	runbookIn struct {
		featureIn
		Name string `json:"name" jsonschema:"the runbook's name in the workflow's definition"`
		From int    `json:"from,omitempty" jsonschema:"the 1-based step to start at (resume)"`
	}
	findingsIn struct {
		featureIn
		All bool `json:"all,omitempty" jsonschema:"the closed findings too"`
	}
	checkpointIn struct {
		featureIn
		Note string `json:"note,omitempty" jsonschema:"what the next session should know"`
	}
	verifyIn struct {
		featureIn
		Base       string `json:"base,omitempty" jsonschema:"the base ref to verify against, e.g. origin/main"`
		RerunGates bool   `json:"rerunGates,omitempty" jsonschema:"run every quality gate recorded as passed again on its commit"`
	}
	synthesisIn struct {
		featureIn
		Reason string `json:"reason,omitempty" jsonschema:"why a pull request is wanted"`
	}
	loopFailIn struct {
		featureIn
		Reason string `json:"reason" jsonschema:"why the loop fails"`
	}
	rescueRestoreIn struct {
		Feature string `json:"feature" jsonschema:"the workflow whose task's work cancel kept"`
		Task    string `json:"task" jsonschema:"the task whose rescued work to put back"`
		Path    string `json:"path,omitempty" jsonschema:"where to put the worktree (default .worktrees/<feature>/<task>)"`
		Branch  string `json:"branch,omitempty" jsonschema:"branch to create for it (default: the task branch)"`
		Version *int   `json:"version,omitempty" jsonschema:"which kept version rescue_list shows (default 0: the latest complete one)"`
	}
	teamIn struct {
		Remote  string `json:"remote,omitempty" jsonschema:"the remote (default: origin)"`
		Prune   bool   `json:"prune,omitempty" jsonschema:"pull, sync: delete local workflows deleted on the remote (those changed here since are kept)"`
		Retries *int   `json:"retries,omitempty" jsonschema:"push, sync: how often a rejected workflow is pulled, merged and pushed again"`
	}
	pruneIn struct {
		OlderThan string `json:"olderThan,omitempty" jsonschema:"idle for longer than this (e.g. 14d, 36h; default 14d)"`
	}
	lintIn struct {
		File string `json:"file" jsonschema:"the workflow definition file (.exarchos/workflows/<type>.yaml)"`
	}
	cleanupIn struct {
		featureIn
		Offline bool   `json:"offline,omitempty" jsonschema:"verify the merge from git alone"`
		Base    string `json:"base,omitempty" jsonschema:"with offline: the base branch"`
		DryRun  bool   `json:"dryRun,omitempty" jsonschema:"verify and list what would be recorded; write nothing"`
	}
)

// args is a tool's command line in parts. Rendered, the command path and its flags (each as
// --name=value, so a value starting with "-" stays the flag's value) come first, then --json, then
// "--" and the positional values: after "--" the CLI takes every word literally (it consumes that
// first "--" and parses no flag after it), so a value such as "--human" can never become a flag.
// Each positional value is checked too (checkPositional): the tool answers a clear error naming
// the argument rather than handing the CLI a word no command takes.
type args struct {
	cmd []string // the command path, then its flags
	pos []string // the positional values, in order (an empty optional one is left out)
	// ownSeparator: the command's arguments have a "--" of their own (validate's command), so the
	// positional values go before it, unterminated; checkPositional refused any that starts with "-".
	ownSeparator bool
	tail         []string // with ownSeparator: the words after that "--", literally
	err          error    // the first argument refused
}

func cmd(path ...string) args { return args{cmd: path} }

func (a args) flag(name string, on bool) args {
	if on {
		a.cmd = append(a.cmd, "--"+name)
	}
	return a
}

func (a args) str(name, v string) args {
	if v != "" {
		a.cmd = append(a.cmd, "--"+name+"="+v)
	}
	return a
}

// rev adds a flag whose value names a git branch or revision: git refuses a ref name that starts
// with "-" (git check-ref-format), and a revision that does would be an option to the git commands
// the CLI runs, so one is refused here (init --branch=--orphan was recorded as the bound branch).
func (a args) rev(name, v string) args {
	if a.err == nil && optionLike(v) {
		a.err = fmt.Errorf("%s %q starts with \"-\": name a branch or a revision (origin/main, a commit)", name, clip(v))
	}
	return a.str(name, v)
}

// dir adds a flag whose value is a directory to create: one whose name starts with "-" would be an
// option to the git commands that later take it (task start --path=--x made a worktree "--x").
func (a args) dir(name, v string) args {
	if a.err == nil && optionLike(v) {
		a.err = fmt.Errorf("%s %q starts with \"-\": give ./%s to mean a directory of that name", name, clip(v), clip(strings.TrimSpace(v)))
	}
	return a.str(name, v)
}

func intArg[T int | int64](a args, name string, v *T) args {
	if v != nil {
		a.cmd = append(a.cmd, "--"+name+"="+strconv.FormatInt(int64(*v), 10))
	}
	return a
}

// opt adds an optional positional name (left out when empty); name is the tool's argument.
func (a args) opt(name, v string) args {
	if v == "" {
		return a
	}
	return a.need(name, v)
}

// need adds a required positional name: left out, the words after it would shift into its place
// (transition's phase would be read as the feature), so an empty one is refused.
func (a args) need(name, v string) args {
	if a.err == nil {
		if v == "" {
			a.err = fmt.Errorf("%s is required", name)
		} else {
			a.err = checkPositional(name, v, true)
		}
	}
	a.pos = append(a.pos, v)
	return a
}

// values adds positional values that are not names (set's path=value assignments, inline text
// included): only a leading "-" is refused.
func (a args) values(name string, vs []string) args {
	for i, v := range vs {
		if a.err == nil {
			a.err = checkPositional(fmt.Sprintf("%s[%d]", name, i), v, false)
		}
		a.pos = append(a.pos, v)
	}
	return a
}

// maxName bounds a positional name: workflow ids are at most 64 characters, and no phase, task,
// stage, dimension, event type or runbook needs more than this.
const maxName = 128

// checkPositional refuses a positional value that starts with "-" (after blanks, which the CLI's
// parser trims to tell a flag): every id, phase, task, stage and type is a name starting with a
// letter or digit (workflow.ValidFeature), and set's assignments start with a path. A name has no
// control character (a newline would forge a line of the text output and of the audit) and is
// at most maxName characters.
func checkPositional(name, v string, isName bool) error {
	if optionLike(v) {
		return fmt.Errorf("%s %q starts with \"-\": it is a value, not an option; give the %s itself (options have their own arguments)", name, clip(v), name)
	}
	if !isName {
		return nil
	}
	if strings.ContainsFunc(v, unicode.IsControl) {
		return fmt.Errorf("%s %q holds a control character (a newline, a tab…): give a plain name", name, clip(v))
	}
	if n := utf8.RuneCountInString(v); n > maxName {
		return fmt.Errorf("%s is %d characters long: a name has at most %d", name, n, maxName)
	}
	return nil
}

// optionLike: the CLI's parser would read v as an option (it trims blanks before it looks).
func optionLike(v string) bool { return strings.HasPrefix(strings.TrimSpace(v), "-") }

// clip keeps an error message short when the value is long.
func clip(v string) string {
	if r := []rune(v); len(r) > 80 {
		return string(r[:80]) + "…"
	}
	return v
}

// argv is the command line the tool runs.
func (a args) argv() []string {
	argv := append(append([]string{}, a.cmd...), "--json")
	if a.ownSeparator {
		argv = append(append(argv, a.pos...), "--")
		return append(argv, a.tail...)
	}
	return append(append(argv, "--"), a.pos...)
}

// mcpTools registers every tool on s; each runs the CLI through cli.
func mcpTools(s *mcp.Server, cli *cliRunner) {
	add(s, cli, "workflow_init", "start a workflow", func(in initIn) args {
		return intArg(cmd("init").str("type", in.Type).rev("branch", in.Branch).str("synthesis", in.Synthesis).str("completion", in.Completion), "max-iterations", in.MaxIterations).need("feature", in.Feature)
	})
	add(s, cli, "workflow_status", "a workflow's phase, artifacts, tasks, reviews and conflicts (format mermaid: its diagram)", func(in statusIn) args {
		return cmd("status").str("fields", strings.Join(in.Fields, ",")).str("format", in.Format).opt("feature", in.Feature)
	})
	add(s, cli, "workflow_set", "record artifacts or fields on a workflow", func(in setIn) args {
		a := cmd("set").flag("inline", in.Inline).opt("feature", in.Feature)
		if len(in.Assignments) == 0 && a.err == nil {
			a.err = errors.New("assignments is required: give at least one path=value")
		}
		return a.values("assignments", in.Assignments)
	})
	add(s, cli, "workflow_transitions", "the transitions out of the current phase and what each needs", func(in featureIn) args {
		return cmd("transitions").opt("feature", in.Feature)
	})
	add(s, cli, "workflow_transition", "move a workflow to a phase (guards are checked)", func(in transitionIn) args {
		return cmd("transition").opt("feature", in.Feature).need("phase", in.Phase)
	})
	add(s, cli, "workflow_list", "list workflows", func(in listIn) args { return cmd("list").flag("all", in.All) })
	add(s, cli, "workflow_describe", "a workflow type's phases, transitions and guards", func(in describeIn) args {
		return cmd("describe", "--format=json").opt("type", in.Type)
	})
	add(s, cli, "workflow_cancel", "cancel a workflow, compensating what it created", func(in cancelIn) args {
		return cmd("cancel").str("reason", in.Reason).flag("dry-run", in.DryRun).flag("skip-pr", in.SkipPR).opt("feature", in.Feature)
	})
	add(s, cli, "event_append", "append an event to a workflow", func(in eventIn) args {
		data := ""
		if in.Data != nil {
			b, _ := json.Marshal(in.Data)
			data = string(b)
		}
		return cmd("event").str("data", data).str("idempotency-key", in.IdempotencyKey).opt("feature", in.Feature).need("type", in.Type)
	})
	add(s, cli, "event_query", "a workflow's events", func(in queryIn) args {
		a := cmd("log")
		for _, t := range in.Types {
			a = a.str("type", t)
		}
		return intArg(intArg(a, "since-seq", in.SinceSeq), "limit", in.Limit).opt("feature", in.Feature)
	})
	add(s, cli, "view_pipeline", "every workflow: phase, branch, age, blocker, next step, pull request", func(listIn) args {
		return cmd("view", "pipeline")
	})
	add(s, cli, "view_tasks", "the task board of one workflow, or of all", func(in tasksIn) args {
		return cmd("view", "tasks").opt("feature", in.Feature)
	})
	add(s, cli, "view_findings", "a workflow's open review findings: those that block (the fix cycle's) and those for the pull request", func(in findingsIn) args {
		return cmd("view", "findings").flag("all", in.All).opt("feature", in.Feature)
	})
	add(s, cli, "view_timeline", "who did what, when: a workflow's steps, each task's span, counts per agent and subagent", func(in featureIn) args {
		return cmd("view", "timeline").opt("feature", in.Feature)
	})
	add(s, cli, "view_convergence", "review findings per dimension per fix cycle: whether review converges, and the files it keeps naming", func(in featureIn) args {
		return cmd("view", "convergence").opt("feature", in.Feature)
	})
	add(s, cli, "view_stack", "workflows stacked on each other's branches, bottom first, with what holds each", func(in listIn) args {
		return cmd("view", "stack").flag("all", in.All)
	})
	add(s, cli, "view_audit", "a workflow's audit trail", func(in featureIn) args { return cmd("audit").opt("feature", in.Feature) })
	add(s, cli, "view_rehydrate", "the context an agent needs to resume a workflow", func(in featureIn) args {
		return cmd("rehydrate").opt("feature", in.Feature)
	})
	add(s, cli, "task_add", "add a task", func(in taskAddIn) args {
		return cmd("task", "add").str("title", in.Title).opt("feature", in.Feature).need("task", in.Task)
	})
	add(s, cli, "task_start", "start a task (optionally in its own worktree)", func(in taskStartIn) args {
		return cmd("task", "start").flag("worktree", in.Worktree).rev("base", in.Base).dir("path", in.Path).opt("feature", in.Feature).need("task", in.Task)
	})
	add(s, cli, "task_done", "mark a task done at its commit, after the definition's task gates pass there (a failing gate keeps it open, with its output and the fix)", func(in taskIn) args {
		return cmd("task", "done").opt("feature", in.Feature).need("task", in.Task)
	})
	add(s, cli, "task_fail", "mark a task failed", func(in taskFailIn) args {
		return cmd("task", "fail").str("reason", in.Reason).opt("feature", in.Feature).need("task", in.Task)
	})
	add(s, cli, "validate", "run a validation command on the workflow's branch and record its result", func(in validateIn) args {
		// validate's own "--" introduces the command, taken literally.
		a := cmd("validate").opt("feature", in.Feature)
		a.ownSeparator, a.tail = true, in.Command
		return a
	})
	add(s, cli, "review", "record a review verdict for one dimension with its findings, or resolve a finding", func(in reviewIn) args {
		a := cmd("review").str("note", in.Note).str("findings-file", in.FindingsFile).str("resolve", in.Resolve)
		for _, f := range in.Findings {
			a = a.str("finding", fmt.Sprintf("%s:%s:%d:%s", f.Severity, f.File, f.Line, f.Text))
		}
		a = a.opt("feature", in.Feature)
		// The CLI tells its optional feature from the dimension by counting words and by the words
		// pass and fail: a verdict without its dimension, or a dimension named pass or fail, would
		// be read as another argument.
		switch {
		case a.err != nil, in.Resolve != "":
		case in.Dimension == "":
			a.err = errors.New("dimension is required (spec, quality…), unless resolve closes a finding")
		case in.Dimension == "pass" || in.Dimension == "fail":
			a.err = fmt.Errorf("dimension %q is a verdict: give the dimension reviewed (spec, quality…) and the verdict in verdict", in.Dimension)
		}
		return a.opt("dimension", in.Dimension).opt("verdict", in.Verdict)
	})
	add(s, cli, "submit", "submit a phase's completion payload", func(in submitIn) args {
		return cmd("submit").str("file", in.File).opt("feature", in.Feature).need("phase", in.Phase)
	})
	add(s, cli, "stage_done", "complete a running stage of the fan-out phase the workflow is in", func(in stageDoneIn) args {
		return cmd("stage", "done").str("file", in.File).opt("feature", in.Feature).need("stage", in.Stage)
	})
	add(s, cli, "stage_fail", "fail a running stage of the fan-out phase; its running siblings are cancelled", func(in stageFailIn) args {
		return cmd("stage", "fail").str("reason", in.Reason).opt("feature", in.Feature).need("stage", in.Stage)
	})
	add(s, cli, "pr_create", "open the workflow's pull request on GitHub (or update the open one), written from the workflow, a draft until the reviews pass, and link it", func(in prCreateIn) args {
		return cmd("pr", "create").str("title", in.Title).flag("dry-run", in.DryRun).opt("feature", in.Feature)
	})
	add(s, cli, "review_import", "record the pull request's review threads as findings (severity from each bot's format); a thread resolved on GitHub closes its finding", func(in reviewImportIn) args {
		return cmd("review", "import").flag("dry-run", in.DryRun).opt("feature", in.Feature)
	})
	add(s, cli, "pr_link", "link the workflow's pull request", func(in prLinkIn) args {
		return cmd("pr", "link").opt("feature", in.Feature).need("pr", in.PR)
	})
	add(s, cli, "pr_refresh", "record GitHub's view of the linked pull request", func(in featureIn) args {
		return cmd("pr", "refresh").opt("feature", in.Feature)
	})
	add(s, cli, "runbook", "run a runbook of the workflow's definition step by step, stopping at the first failure", func(in runbookIn) args {
		a := cmd("runbook")
		if in.From > 0 {
			a = a.str("from", strconv.Itoa(in.From))
		}
		return a.opt("feature", in.Feature).need("name", in.Name)
	})
	add(s, cli, "checkpoint", "record what a fresh session needs to go on: phase, open tasks, the rehydrate document", func(in checkpointIn) args {
		return cmd("checkpoint").str("note", in.Note).opt("feature", in.Feature)
	})
	add(s, cli, "verify", "replay the workflow from its events and re-check every recorded guard, signature and quality gate (the CI merge gate)", func(in verifyIn) args {
		return cmd("verify").rev("base", in.Base).flag("rerun-gates", in.RerunGates).opt("feature", in.Feature)
	})
	add(s, cli, "cleanup", "after the merge: verify it and finish the workflow", func(in cleanupIn) args {
		return cmd("cleanup").flag("offline", in.Offline).rev("base", in.Base).flag("dry-run", in.DryRun).opt("feature", in.Feature)
	})
	add(s, cli, "pr_find", "find the pull request whose head is the workflow's branch, and link it", func(in featureIn) args {
		return cmd("pr", "find").opt("feature", in.Feature)
	})
	add(s, cli, "request_synthesis", "ask for the workflow to end with a pull request (oneshot's on-request policy, debug)", func(in synthesisIn) args {
		return cmd("request-synthesis").str("reason", in.Reason).opt("feature", in.Feature)
	})
	for _, sig := range []struct{ name, desc string }{{"done", "the worker's work is done"}, {"pass", "the reviewer passes the loop's work"}, {"fail", "the reviewer fails this iteration"}} {
		add(s, cli, "loop_"+sig.name, "signal a loop workflow: "+sig.desc, func(in featureIn) args { return cmd("loop", sig.name).opt("feature", in.Feature) })
	}
	for _, sig := range []string{"fail-now", "error"} {
		add(s, cli, "loop_"+strings.ReplaceAll(sig, "-", "_"), "signal a loop workflow: it ends failed now ("+sig+"), with the reason", func(in loopFailIn) args {
			return cmd("loop", sig).str("reason", in.Reason).opt("feature", in.Feature)
		})
	}
	add(s, cli, "rescue_list", "the work cancel kept under refs/exarchos-rescue, per task, with the versions kept", func(in featureIn) args {
		return cmd("rescue", "list").opt("feature", in.Feature)
	})
	add(s, cli, "rescue_restore", "put a task's rescued work back in a worktree of its own", func(in rescueRestoreIn) args {
		return intArg(cmd("rescue", "restore").dir("path", in.Path).rev("branch", in.Branch), "version", in.Version).need("feature", in.Feature).need("task", in.Task)
	})
	add(s, cli, "team_pull", "fetch the remote's workflows and merge each into this clone's", func(in teamIn) args {
		return cmd("pull").flag("prune", in.Prune).opt("remote", in.Remote)
	})
	add(s, cli, "team_push", "push this clone's workflows (never forced; a rejected one is pulled, merged and pushed again)", func(in teamIn) args {
		return intArg(cmd("push"), "retries", in.Retries).opt("remote", in.Remote)
	})
	add(s, cli, "team_sync", "pull, then push, the workflows", func(in teamIn) args {
		return intArg(cmd("sync").flag("prune", in.Prune), "retries", in.Retries).opt("remote", in.Remote)
	})
	add(s, cli, "doctor", "check the installation and the repository, each problem with its fix", func(listIn) args { return cmd("doctor") })
	add(s, cli, "fsck", "check the workflows' logs and snapshots", func(in featureIn) args { return cmd("fsck").opt("feature", in.Feature) })
	add(s, cli, "prune", "list the stale workflows cancelling would clean up (applying it is the user's: prune --apply)", func(in pruneIn) args {
		return cmd("prune").str("older-than", in.OlderThan)
	})
	add(s, cli, "lint_workflow", "check a workflow definition file, each problem with its line", func(in lintIn) args {
		return cmd("lint").values("file", []string{in.File})
	})
}

// ToolCommands maps each tool to the command it runs ("pr find"; a group, "loop", when the
// tool's input names the subcommand): what the audit of the command tree reads.
func ToolCommands() map[string]string {
	cli := &cliRunner{commands: map[string]string{}}
	mcpTools(mcp.NewServer(&mcp.Implementation{Name: ServerName}, nil), cli)
	return cli.commands
}

// ServerName is the server's name in the MCP handshake; it equals app.MCPServerName, the key in
// .mcp.json (a test checks it: app is not imported here, so this binary stays small).
const ServerName = "exarchos"

// CLIEnv names the git-exarchos binary the tools run. `git exarchos mcp` sets it to itself, so the
// tools run the very binary Claude Code started.
const CLIEnv = "EXARCHOS_CLI"

// FindCLI is the git-exarchos the tools run: $EXARCHOS_CLI, else the one beside this binary, else
// the one on PATH.
func FindCLI() (string, error) {
	if p := os.Getenv(CLIEnv); p != "" {
		return p, nil
	}
	p, err := sibling.Find("git-exarchos")
	if err != nil {
		return "", fmt.Errorf("git-exarchos is neither beside git-exarchos-mcp nor on PATH: install both with go install github.com/exarchos/git-exarchos/cmd/...@latest")
	}
	return p, nil
}

// cliRunner runs the CLI, one command at a time: tool calls may arrive together, and running them
// in turn keeps an agent that sends several at once from starting a crowd of processes.
type cliRunner struct {
	path string
	mu   sync.Mutex
	// commands, when set, records each registered tool's command (ToolCommands).
	commands map[string]string
}

// run returns what the command printed on stdout with --json, and whether it failed. An error is a
// command that could not run or printed no JSON.
func (c *cliRunner) run(ctx context.Context, argv []string) (json.RawMessage, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !containsArg(argv, "--json") {
		argv = append(argv, "--json")
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, c.path, argv...)
	// The server runs under the agent: its commands carry the agent's mark even when the client
	// started the server without it, so a human decision refuses to run through a tool too.
	cmd.Env = agentenv.Mark(os.Environ(), "git-exarchos-mcp")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return nil, false, fmt.Errorf("run %s: %w", c.path, err)
	}
	out := bytes.TrimSpace(stdout.Bytes())
	if !json.Valid(out) {
		return nil, false, fmt.Errorf("git exarchos %s printed no JSON object (%v): %s", argv[0], err, bytes.TrimSpace(stderr.Bytes()))
	}
	return out, err != nil, nil
}

func containsArg(argv []string, a string) bool {
	for _, x := range argv {
		if x == "--" {
			return false
		}
		if x == a {
			return true
		}
	}
	return false
}

// add registers one tool: a refusal or an error is a tool error whose content is the CLI's JSON
// error object (code, message, the structured rejection and its fix).
func add[In any](s *mcp.Server, c *cliRunner, name, desc string, argv func(In) args) {
	if c.commands != nil {
		var zero In
		var path []string
		for _, w := range argv(zero).cmd {
			if w != "" && !strings.HasPrefix(w, "-") {
				path = append(path, w)
			}
		}
		c.commands[name] = strings.Join(path, " ")
	}
	mcp.AddTool(s, &mcp.Tool{Name: name, Description: desc}, func(ctx context.Context, _ *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		a := argv(in)
		if a.err != nil {
			// Refused before any process runs: the CLI's own JSON error shape, exit 2's code.
			body := map[string]any{"error": map[string]string{"code": "USAGE", "message": name + ": " + a.err.Error()}}
			text, _ := json.Marshal(body)
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}}, body, nil
		}
		out, failed, err := c.run(ctx, a.argv())
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		// The text is the command's own bytes (the SDK would re-encode them); the structured
		// content is the same object.
		return &mcp.CallToolResult{IsError: failed, Content: []mcp.Content{&mcp.TextContent{Text: string(out)}}}, out, nil
	})
}

// New is the server with every tool; each runs cli, the git-exarchos binary.
func New(cli, version string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: ServerName, Version: version}, nil)
	mcpTools(s, &cliRunner{path: cli})
	return s
}

const usage = `usage: git-exarchos-mcp

The git exarchos MCP server on stdin/stdout; Claude Code starts it as git exarchos mcp (see
git exarchos mcp -h). Its tools run git-exarchos: $EXARCHOS_CLI, else the one beside this
binary, else the one on PATH.
`

// Main serves MCP on stdin/stdout until the client closes stdin, and returns the exit code.
func Main(argv []string, stdin io.Reader, stdout, stderr io.Writer, version string) int {
	if len(argv) > 1 {
		switch argv[1] {
		case "-h", "--help", "help":
			fmt.Fprint(stdout, usage)
			return 0
		case "--version", "version":
			fmt.Fprintf(stdout, "git-exarchos-mcp %s\n", version)
			return 0
		}
		fmt.Fprintf(stderr, "git-exarchos-mcp takes no arguments, got %q\n%s", strings.Join(argv[1:], " "), usage)
		return 2
	}
	cli, err := FindCLI()
	if err != nil {
		fmt.Fprintf(stderr, "git-exarchos-mcp: %v\n", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	t := &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}}
	if err := New(cli, version).Run(ctx, t); err != nil && ctx.Err() == nil {
		fmt.Fprintf(stderr, "git-exarchos-mcp: %v\n", err)
		return 1
	}
	return 0
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
