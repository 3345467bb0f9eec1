package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/ghevidence"
)

func prCommand() *cli.Command {
	return &cli.Command{
		Name:  "pr",
		Usage: "open a workflow's GitHub pull request, link it, and record what GitHub says about it",
		UsageText: `git exarchos pr create|link|find|refresh|merge [<feature>] … [--json]

The token comes from GH_TOKEN, GITHUB_TOKEN, GH_ENTERPRISE_TOKEN / GITHUB_ENTERPRISE_TOKEN (hosts other
than github.com), or ` + "`gh auth token`" + `; the repository from the origin remote; GITHUB_API_URL overrides the
API base. GitHub access failures exit 4.`,
		Commands: []*cli.Command{prCreateCommand(), prLinkCommand(), prFindCommand(), prRefreshCommand(), prMergeCommand()},
	}
}

func prCreateCommand() *cli.Command {
	return &cli.Command{
		Name:      "create",
		Arguments: onFeature(),
		Usage:     "open the workflow's pull request on GitHub (or update the open one), written from the workflow, and link it",
		UsageText: `git exarchos pr create [<feature>] [--title TITLE] [--dry-run] [--json]

The title is the design's first heading (else the feature's name); the body lists the design and
plan, the tasks, the review findings (open and resolved) and how to verify. A draft until the
workflow's reviews have passed; run it again then and it is marked ready, with the body updated.
An open pull request of the branch is updated, never opened twice; it is linked as pr link links
it. Refused for a branch with no commits of its own, or one not pushed as it is here.

Examples:
   git exarchos pr create login
   git exarchos pr create --dry-run        # print the title and body, ask GitHub nothing
   git exarchos pr create login --title "Login page" --json`,
		Flags: []cli.Flag{&cli.StringFlag{Name: "title", Usage: "the pull request's title (default: the design's first heading)"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print the title and body; ask GitHub nothing and record nothing"}, jsonFlag},
		Action: func(_ context.Context, c *cli.Command) error {
			return runGitHub(c, func(r *app.Repo) (*ghevidence.PRCreateResult, error) {
				return ghevidence.CreatePR(r.GitHub(), ghevidence.PRCreateOptions{Feature: c.StringArg("feature"), Title: c.String("title"), DryRun: c.Bool("dry-run")})
			}, func(res *ghevidence.PRCreateResult) []string { return res.Warnings }, func(w io.Writer, res *ghevidence.PRCreateResult) {
				kind := "ready for review"
				if res.Draft {
					kind = "draft"
				}
				if res.DryRun {
					printf(w, "%s: would open or update a %s pull request\ntitle: %s\n\n%s", bold(w, res.Feature), kind, res.Title, res.Body)
					return
				}
				verb := "updated"
				if res.Created {
					verb = "opened"
				}
				p := res.PullRequest
				printf(w, "%s: %s %s pull request #%d %s\n", bold(w, res.Feature), verb, kind, p.Number, p.URL)
				printf(w, "  title %q, head %s @ %s, base %s\n", res.Title, p.Head, shortHash(p.HeadSHA), p.Base)
				if res.Draft {
					printf(w, "next: have the work reviewed (git exarchos transitions %s); once the reviews pass, git exarchos pr create %s marks it ready\n", res.Feature, res.Feature)
				}
			})
		},
	}
}

func prMergeCommand() *cli.Command {
	methods := []cli.Flag{&cli.BoolFlag{Name: "merge", Usage: "a merge commit (the default)"}, &cli.BoolFlag{Name: "squash", Usage: "one squashed commit"},
		&cli.BoolFlag{Name: "rebase", Usage: "the commits rebased onto the base"}}
	return &cli.Command{
		Name:      "merge",
		Usage:     "merge the workflow's pull request through GitHub's merge API (a human decision), then verify the merge and complete the workflow",
		ArgsUsage: "[<feature>]",
		Arguments: onFeature(),
		UsageText: `git exarchos pr merge [<feature>] [--merge|--squash|--rebase] [--note N] [--json]

The user's decision, refused in an agent's session, signed in signed mode: recorded first
(pr.merge-decided), then GitHub merges the pull request at the head decided on only (a push after it
is refused, 409), never a local merge; then the merge is verified as cleanup verifies it and the
workflow completes. The pull request's head must be the branch's tip here.

Examples:
   git exarchos pr merge login --squash
   git exarchos pr merge --note "reviewed on GitHub" --json`,
		Flags: append(methods, &cli.StringFlag{Name: "note", Usage: "why, recorded with the decision"}, jsonFlag),
		Action: func(_ context.Context, c *cli.Command) error {
			var method []string
			for _, f := range methods {
				if c.Bool(f.Names()[0]) {
					method = append(method, f.Names()[0])
				}
			}
			if len(method) > 1 {
				return usageErrf("pr merge: one of --merge, --squash or --rebase, not %s", strings.Join(method, " and "))
			}
			return runGitHub(c, func(r *app.Repo) (*ghevidence.PRMergeResult, error) {
				return ghevidence.MergePR(r.GitHub(), ghevidence.PRMergeOptions{Feature: c.StringArg("feature"), Method: strings.Join(method, ""), Note: c.String("note")})
			}, func(res *ghevidence.PRMergeResult) []string { return res.Warnings }, func(w io.Writer, res *ghevidence.PRMergeResult) {
				printf(w, "%s: merged pull request #%d (%s of %s) as %s %s\n", bold(w, res.Feature), res.PullRequest, res.Decision.Method, shortHash(res.Decision.HeadSHA), shortHash(res.Merge.SHA), res.URL)
				if res.Cleanup != nil {
					printResult(w, res.Cleanup.Result, "completed")
				}
			})
		},
	}
}

func prLinkCommand() *cli.Command {
	return &cli.Command{
		Name:      "link",
		Arguments: onFeature(req("pr", "<url|number>")),
		Usage:     "link a pull request by URL or number, after GitHub confirms it exists",
		UsageText: `git exarchos pr link [<feature>] <url|number> [--json]

Records pr.linked (number, URL, head, base, head commit). A head branch other than the workflow's
is linked with a warning; a pull request of another repository than origin's is refused.

Examples:
   git exarchos pr link login https://github.com/acme/app/pull/12
   git exarchos pr link login 12 --json`,
		Flags: []cli.Flag{jsonFlag},
		Action: func(_ context.Context, c *cli.Command) error {
			feature, args := splitFeature(c)
			return runPR(c, func(r *app.Repo) (*ghevidence.PRResult, error) {
				return ghevidence.LinkPR(r.GitHub(), ghevidence.PRLinkOptions{Feature: feature, Target: args[0]})
			}, "linked")
		},
	}
}

func prFindCommand() *cli.Command {
	return &cli.Command{
		Name:      "find",
		Arguments: onFeature(),
		Usage:     "find the pull request whose head is the workflow's branch, and link it",
		UsageText: `git exarchos pr find [<feature>] [--json]

Open pull requests win over merged ones, merged over closed.

Examples:
   git exarchos pr find login
   git exarchos pr find --json          # the workflow bound to the current branch`,
		Flags: []cli.Flag{jsonFlag},
		Action: func(_ context.Context, c *cli.Command) error {
			return runPR(c, func(r *app.Repo) (*ghevidence.PRResult, error) {
				return ghevidence.FindPR(r.GitHub(), ghevidence.PRFindOptions{Feature: c.StringArg("feature")})
			}, "linked")
		},
	}
}

func prRefreshCommand() *cli.Command {
	return &cli.Command{
		Name:      "refresh",
		Arguments: onFeature(),
		Usage:     "record GitHub's view of the linked pull request: state, merge, checks, author, reviews and their commits",
		UsageText: `git exarchos pr refresh [<feature>] [--json]

Checks combine check runs and legacy commit statuses: failure, pending, success, or none (no checks at
all). Nothing is recorded when nothing changed. Usually 3 API requests (pull request, check runs,
commit statuses); reviews are read again only when the pull request is open and was updated.

Examples:
   git exarchos pr refresh login
   git exarchos pr refresh --json | jq .observation.checks`,
		Flags: []cli.Flag{jsonFlag},
		Action: func(_ context.Context, c *cli.Command) error {
			return runPR(c, func(r *app.Repo) (*ghevidence.PRResult, error) {
				return ghevidence.RefreshPR(r.GitHub(), ghevidence.PRRefreshOptions{Feature: c.StringArg("feature")})
			}, "observed")
		},
	}
}

// runGitHub runs a GitHub command: its result's warnings on stderr, then text or JSON.
func runGitHub[T any](c *cli.Command, do func(*app.Repo) (T, error), warnings func(T) []string, text func(io.Writer, T)) error {
	r, err := openRepo()
	if err != nil {
		return err
	}
	res, err := do(r)
	if err != nil {
		return err
	}
	for _, w := range warnings(res) {
		fmt.Fprintf(c.Root().ErrWriter, "warning: %s\n", w)
	}
	return emit(c, res, func(w io.Writer) { text(w, res) })
}

func runPR(c *cli.Command, do func(*app.Repo) (*ghevidence.PRResult, error), verb string) error {
	return runGitHub(c, do, func(res *ghevidence.PRResult) []string { return res.Warnings }, func(w io.Writer, res *ghevidence.PRResult) {
		p := res.PullRequest
		printf(w, "%s: %s pull request #%d (%s) %s\n", bold(w, res.Feature), verb, p.Number, prState(p.State, p.Merged), p.URL)
		printf(w, "  head %s @ %s, base %s\n", p.Head, shortHash(p.HeadSHA), p.Base)
		if o := res.Observation; o != nil {
			checks := o.Checks
			if len(o.Failing) > 0 {
				checks += " (" + strings.Join(o.Failing, ", ") + ")"
			}
			printf(w, "  checks %s, review %s\n", checks, orDash(o.ReviewDecision))
			if len(o.Reviews) > 0 {
				var rs []string
				for _, r := range o.Reviews {
					rs = append(rs, fmt.Sprintf("%s %s on %s", r.Reviewer, strings.ToLower(r.State), shortHash(r.Commit)))
				}
				printf(w, "  reviews (author %s): %s\n", orDash(o.Author), strings.Join(rs, ", "))
			}
		}
		if res.Changed {
			printf(w, "  recorded %d event(s) at %s\n", len(res.Appended), shortHash(res.Head))
		} else {
			printf(w, "  nothing changed since the last observation: nothing recorded\n")
		}
	})
}

func cleanupCommand() *cli.Command {
	return &cli.Command{
		Name:      "cleanup",
		Arguments: onFeature(),
		Usage:     "verify the merge and complete the workflow, recording the evidence",
		UsageText: `git exarchos cleanup [<feature>] [--offline [--base B]] [--override --reason R] [--dry-run] [--json]

Online, GitHub must report the linked pull request merged, and the local branch must have no commit
after the merged head. --offline instead checks that the branch tip is an ancestor of <remote>/<base>
in this repository (fetch first). --override completes without evidence: a human decision, recorded
with your name and the reason. --dry-run verifies the same way and writes nothing: it lists the
events a real run would record.

Examples:
   git exarchos cleanup login
   git exarchos cleanup login --offline --dry-run
   git fetch origin && git exarchos cleanup login --offline
   git exarchos cleanup login --override --reason "merged by hand on the release branch"`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "offline", Usage: "verify by ancestry in the local repository instead of asking GitHub"},
			&cli.StringFlag{Name: "base", Usage: "with --offline: the base branch `B` (default: the PR's base, exarchos.base, <remote>/HEAD, main)"},
			&cli.BoolFlag{Name: "override", Usage: "complete without evidence (human only; needs --reason)"},
			&cli.StringFlag{Name: "reason", Usage: "why the override is justified"},
			&cli.BoolFlag{Name: "dry-run", Usage: "verify and say what would be recorded; write nothing"},
			jsonFlag,
		},
		Action: func(_ context.Context, c *cli.Command) error {
			return runGitHub(c, func(r *app.Repo) (*ghevidence.CleanupResult, error) {
				return ghevidence.Cleanup(r.GitHub(), ghevidence.CleanupOptions{Feature: c.StringArg("feature"), Offline: c.Bool("offline"), Base: c.String("base"),
					Override: c.Bool("override"), Reason: c.String("reason"), DryRun: c.Bool("dry-run")})
			}, func(res *ghevidence.CleanupResult) []string { return res.Warnings }, func(w io.Writer, res *ghevidence.CleanupResult) {
				switch {
				case res.Already:
					printf(w, "%s is already %s\n", bold(w, res.Feature), res.State.Phase)
					return
				case res.Evidence != nil:
					ev := res.Evidence
					printf(w, "merge verified (%s): %s in %s", ev.Method, shortHash(ev.HeadSHA), ev.Base)
					if ev.Commit != "" {
						printf(w, " at %s", shortHash(ev.Commit))
					}
					printf(w, "\n")
				default:
					printf(w, "merge-verified overridden: %s\n", c.String("reason"))
				}
				if res.DryRun {
					printf(w, "dry run: nothing written; a real run would record on %s:\n", shortHash(res.Head))
					for _, e := range res.Appended {
						printf(w, "  %s\n", e.Type)
					}
					printf(w, "and leave %s in %s\n", bold(w, res.Feature), bold(w, res.State.Phase))
					return
				}
				printResult(w, res.Result, "completed")
			})
		},
	}
}

func prState(state string, merged bool) string {
	if merged {
		return "merged"
	}
	return state
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func shortHash(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
