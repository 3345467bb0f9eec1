package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v2"

	"github.com/exarchos/git-exarchos/app"
)

// The MCP server is wiring like the rest of this package: every tool turns its typed input into the
// arguments of one CLI command and runs that command in-process with --json, so a tool answers
// exactly what the command answers (parity by construction; json_test.go and mcp_test.go check it).
// Human decisions (approve, reject, override, unblock, grant, budget) are deliberately not tools.

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
		Dimension string `json:"dimension" jsonschema:"review dimension, e.g. spec or quality"`
		Verdict   string `json:"verdict" jsonschema:"pass or fail"`
		Note      string `json:"note,omitempty" jsonschema:"what the reviewer found"`
	}
	submitIn struct {
		featureIn
		Phase string `json:"phase" jsonschema:"the phase whose completion envelope is submitted"`
		File  string `json:"file" jsonschema:"path of the JSON envelope file"`
	}
	prLinkIn struct {
		featureIn
		PR string `json:"pr" jsonschema:"pull request URL or number"`
	}
	cleanupIn struct {
		featureIn
		Offline bool   `json:"offline,omitempty" jsonschema:"verify the merge from git alone"`
		Base    string `json:"base,omitempty" jsonschema:"with offline: the base branch"`
	}
)

// args builds a command line: the command path, flags, then "--" -free positionals (an empty
// optional feature is left out).
type args []string

func (a args) flag(name string, on bool) args {
	if on {
		return append(a, "--"+name)
	}
	return a
}

func (a args) str(name, v string) args {
	if v != "" {
		return append(a, "--"+name+"="+v)
	}
	return a
}

func (a args) pos(vs ...string) args {
	for _, v := range vs {
		if v != "" {
			a = append(a, v)
		}
	}
	return a
}

func intArg[T int | int64](a args, name string, v *T) args {
	if v != nil {
		return append(a, "--"+name+"="+strconv.FormatInt(int64(*v), 10))
	}
	return a
}

// mcpTools registers every tool on s; each runs the CLI through cli.
func mcpTools(s *mcp.Server, cli *cliRunner) {
	add(s, cli, "workflow_init", "start a workflow", func(in initIn) args {
		return intArg(args{"init", "--type=" + in.Type}.str("branch", in.Branch).str("synthesis", in.Synthesis).str("completion", in.Completion), "max-iterations", in.MaxIterations).pos(in.Feature)
	})
	add(s, cli, "workflow_status", "a workflow's phase, artifacts, tasks, reviews and conflicts (format mermaid: its diagram)", func(in statusIn) args {
		return args{"status"}.str("fields", strings.Join(in.Fields, ",")).str("format", in.Format).pos(in.Feature)
	})
	add(s, cli, "workflow_set", "record artifacts or fields on a workflow", func(in setIn) args {
		return args{"set"}.flag("inline", in.Inline).pos(in.Feature).pos(in.Assignments...)
	})
	add(s, cli, "workflow_transitions", "the transitions out of the current phase and what each needs", func(in featureIn) args {
		return args{"transitions"}.pos(in.Feature)
	})
	add(s, cli, "workflow_transition", "move a workflow to a phase (guards are checked)", func(in transitionIn) args {
		return args{"transition"}.pos(in.Feature, in.Phase)
	})
	add(s, cli, "workflow_list", "list workflows", func(in listIn) args { return args{"list"}.flag("all", in.All) })
	add(s, cli, "workflow_describe", "a workflow type's phases, transitions and guards", func(in describeIn) args {
		return args{"describe", "--format=json"}.pos(in.Type)
	})
	add(s, cli, "workflow_cancel", "cancel a workflow, compensating what it created", func(in cancelIn) args {
		return args{"cancel"}.str("reason", in.Reason).flag("dry-run", in.DryRun).flag("skip-pr", in.SkipPR).pos(in.Feature)
	})
	add(s, cli, "event_append", "append an event to a workflow", func(in eventIn) args {
		data := ""
		if in.Data != nil {
			b, _ := json.Marshal(in.Data)
			data = string(b)
		}
		return args{"event"}.str("data", data).str("idempotency-key", in.IdempotencyKey).pos(in.Feature, in.Type)
	})
	add(s, cli, "event_query", "a workflow's events", func(in queryIn) args {
		a := args{"log"}
		for _, t := range in.Types {
			a = a.str("type", t)
		}
		return intArg(intArg(a, "since-seq", in.SinceSeq), "limit", in.Limit).pos(in.Feature)
	})
	add(s, cli, "view_pipeline", "every workflow: phase, branch, age, blocker, next step, pull request", func(listIn) args {
		return args{"view", "pipeline"}
	})
	add(s, cli, "view_tasks", "the task board of one workflow, or of all", func(in tasksIn) args {
		return args{"view", "tasks"}.pos(in.Feature)
	})
	add(s, cli, "view_audit", "a workflow's audit trail", func(in featureIn) args { return args{"audit"}.pos(in.Feature) })
	add(s, cli, "view_rehydrate", "the context an agent needs to resume a workflow", func(in featureIn) args {
		return args{"rehydrate"}.pos(in.Feature)
	})
	add(s, cli, "task_add", "add a task", func(in taskAddIn) args {
		return args{"task", "add"}.str("title", in.Title).pos(in.Feature, in.Task)
	})
	add(s, cli, "task_start", "start a task (optionally in its own worktree)", func(in taskStartIn) args {
		return args{"task", "start"}.flag("worktree", in.Worktree).str("base", in.Base).str("path", in.Path).pos(in.Feature, in.Task)
	})
	add(s, cli, "task_done", "mark a task done", func(in taskIn) args { return args{"task", "done"}.pos(in.Feature, in.Task) })
	add(s, cli, "task_fail", "mark a task failed", func(in taskFailIn) args {
		return args{"task", "fail"}.str("reason", in.Reason).pos(in.Feature, in.Task)
	})
	add(s, cli, "validate", "run a validation command on the workflow's branch and record its result", func(in validateIn) args {
		return append(args{"validate"}.pos(in.Feature).pos("--json", "--"), in.Command...)
	})
	add(s, cli, "review", "record a review verdict for one dimension", func(in reviewIn) args {
		return args{"review"}.str("note", in.Note).pos(in.Feature, in.Dimension, in.Verdict)
	})
	add(s, cli, "submit", "submit a phase's completion envelope", func(in submitIn) args {
		return args{"submit"}.str("file", in.File).pos(in.Feature, in.Phase)
	})
	add(s, cli, "pr_link", "link the workflow's pull request", func(in prLinkIn) args { return args{"pr", "link"}.pos(in.Feature, in.PR) })
	add(s, cli, "pr_refresh", "record GitHub's view of the linked pull request", func(in featureIn) args {
		return args{"pr", "refresh"}.pos(in.Feature)
	})
	add(s, cli, "cleanup", "after the merge: verify it and finish the workflow", func(in cleanupIn) args {
		return args{"cleanup"}.flag("offline", in.Offline).str("base", in.Base).pos(in.Feature)
	})
}

// cliRunner runs one CLI invocation at a time (tool calls may arrive concurrently; the CLI's
// commands are meant to run one per process).
type cliRunner struct {
	mu sync.Mutex
}

// run returns what the command printed on stdout with --json, and whether it failed.
func (c *cliRunner) run(argv []string) (json.RawMessage, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !containsArg(argv, "--json") {
		argv = append(argv, "--json")
	}
	var out bytes.Buffer
	code := run(append([]string{"git-exarchos"}, argv...), strings.NewReader(""), &out, io.Discard)
	return json.RawMessage(bytes.TrimSpace(out.Bytes())), code != exitOK
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
	mcp.AddTool(s, &mcp.Tool{Name: name, Description: desc}, func(_ context.Context, _ *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		out, failed := c.run(argv(in))
		if !json.Valid(out) {
			return nil, nil, fmt.Errorf("%s: the command printed no JSON object", name)
		}
		// The text is the command's own bytes (the SDK would re-encode them); the structured
		// content is the same object.
		return &mcp.CallToolResult{IsError: failed, Content: []mcp.Content{&mcp.TextContent{Text: string(out)}}}, out, nil
	})
}

// newMCPServer is the server with every tool.
func newMCPServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: app.MCPServerName, Version: version}, nil)
	mcpTools(s, &cliRunner{})
	return s
}

func mcpCommand() *cli.Command {
	return &cli.Command{
		Name:  "mcp",
		Usage: "serve the workflow commands as MCP tools on stdin/stdout; --install registers the server in .mcp.json",
		UsageText: `git exarchos mcp [--install | --uninstall] [--json]

Without a flag: a Model Context Protocol server on stdio. Its tools run the same commands as the
CLI and answer the same JSON (a refusal is a tool error carrying the rejection and its fix). Human
decisions (approve, reject, override, unblock, grant, budget) are not tools.

--install merges the server into .mcp.json at the top of the worktree (Claude Code's project
scope; commit it to share it), keeping every other server; --uninstall removes it. Claude Code
names the tools mcp__exarchos__<tool>, and the PreToolUse hook polices them like any other tool.

Examples:
   git exarchos mcp --install
   git exarchos mcp`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "install", Usage: "register the server in .mcp.json (project scope)"},
			&cli.BoolFlag{Name: "uninstall", Usage: "remove the server from .mcp.json"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageErrf("mcp takes no arguments, got %q", strings.Join(c.Args().Slice(), " "))
			}
			if c.Bool("install") || c.Bool("uninstall") {
				if c.Bool("install") && c.Bool("uninstall") {
					return usageErrf("--install and --uninstall exclude each other")
				}
				res, err := app.MCPInstall(app.MCPInstallOptions{Uninstall: c.Bool("uninstall")})
				if err != nil {
					return err
				}
				return emit(c, res, func(w io.Writer) {
					switch {
					case !res.Changed:
						printf(w, "%s: already up to date\n", res.Path)
					case res.Server != nil:
						printf(w, "%s: exarchos server registered (restart Claude Code to load it)\n", res.Path)
					default:
						printf(w, "%s: exarchos server removed\n", res.Path)
					}
				})
			}
			if c.Bool("json") {
				return usageErrf("--json goes with --install or --uninstall; the server itself speaks JSON-RPC")
			}
			return newMCPServer().Run(c.Context, &mcp.IOTransport{Reader: io.NopCloser(c.App.Reader), Writer: nopWriteCloser{c.App.Writer}})
		},
	}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
