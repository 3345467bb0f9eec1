package main

import (
	"context"
	"errors"
	"io"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/trust"
	"github.com/exarchos/git-exarchos/verify"
	"github.com/exarchos/git-exarchos/workflow"
)

func signersCommand() *cli.Command {
	return &cli.Command{
		Name:  "signers",
		Usage: "who may sign human decisions (.exarchos/allowed_signers on the base branch)",
		Commands: []*cli.Command{{
			Name:      "add",
			Arguments: []cli.Argument{req("principal"), req("public-key-file")},
			Usage:     "add an SSH public key to .exarchos/allowed_signers, for a commit to the base branch",
			UsageText: "git exarchos signers add <principal> <public-key-file> [--role approve,override] [--json]\n\n" +
				"Writes the working tree's .exarchos/allowed_signers (git's allowed-signers format, namespace git-exarchos);\n" +
				"--role also lists the principal in .exarchos/roles for those decisions only. Nothing is protected until the\n" +
				"file is committed to the base branch the rules are read from.\n\nExamples:\n" +
				"   git exarchos signers add jane@example.com ~/.ssh/id_ed25519_sk.pub\n" +
				"   git exarchos signers add lead@example.com lead.pub --role override,unblock",
			Flags: []cli.Flag{&cli.StringSliceFlag{Name: "role", Usage: "decision kinds reserved to listed principals: " + strings.Join(workflow.DecisionKinds(), ", ")}, jsonFlag},
			Action: func(_ context.Context, c *cli.Command) error {
				r, err := openRepo()
				if err != nil {
					return err
				}
				var roles []string
				for _, v := range c.StringSlice("role") {
					for _, s := range strings.Split(v, ",") {
						if s = strings.TrimSpace(s); s != "" {
							roles = append(roles, s)
						}
					}
				}
				res, err := trust.SignersAdd(r.Repo, trust.SignersAddOptions{Principal: c.StringArg("principal"), KeyFile: c.StringArg("public-key-file"), Roles: roles})
				if err != nil {
					return err
				}
				return emit(c, res, func(w io.Writer) {
					printf(w, "%s: %s may sign decisions\n%s\n", res.File, res.Principal, res.Next)
				})
			},
		}},
	}
}

func verifyCommand() *cli.Command {
	return &cli.Command{
		Name:      "verify",
		Arguments: onFeature(),
		Usage:     "replay workflows from their events, re-check transitions and signatures (the merge gate in CI)",
		UsageText: "git exarchos verify [<feature>] [--all] [--branch B [--require]] [--base <ref>] [--require-github] [--require-protected-base] [--remember] [--rerun-gates] [--json]\n\n" +
			"Folds the events alone (the stored snapshot must agree), derives every recorded transition's guards\n" +
			"again from the branch at the head each recorded (never a recorded \"passed\"), needs the recorded merge\n" +
			"on --base, checks what the commits changed in each phase, that the workflow ref descends from the\n" +
			"remote's copy, and every human decision's signature against .exarchos/allowed_signers at the base.\n" +
			"--require also fails a workflow not in a phase that merges. A refused decision fails until a human\n" +
			"acknowledges it (git exarchos acknowledge). A recorded pull request is checked with GitHub when a\n" +
			"token is found (GH_TOKEN, GITHUB_TOKEN, gh); --require-github fails when it could not be. Quality gates\n" +
			"recorded as passed must have run on the heads the log records, on the branch; --rerun-gates runs each\n" +
			"again there, the command as the base defines it (a gate is a test suite: minutes, so not by default).\n" +
			"--require-protected-base fails unless GitHub shows the base requiring the \"exarchos verify\" check and\n" +
			"refusing direct and force pushes (a ruleset, or branch protection read with admin). --remember fails a\n" +
			"workflow ref that does not descend from a tip CI verified before, then records the tips it verified\n" +
			"(check runs on the base's root commit; the job needs checks: write).\n" +
			"Exits 3 naming each violation; docs/verify.md.\n\nExamples:\n" +
			"   git exarchos verify login\n" +
			"   git exarchos verify --all --base origin/main --json\n" +
			"   git exarchos verify login --rerun-gates\n" +
			"   git exarchos verify --branch \"$GITHUB_HEAD_REF\" --base \"origin/$GITHUB_BASE_REF\" --require --require-github --require-protected-base   # CI",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Usage: "every workflow"},
			&cli.StringFlag{Name: "branch", Usage: "the workflows bound to this branch (CI: the pull request's head)"},
			&cli.BoolFlag{Name: "require", Usage: "with --branch: fail when no workflow is bound to it, or one is not in a phase that merges"},
			&cli.StringFlag{Name: "base", Usage: "the ref to read allowed signers from (default: the base branch)"},
			&cli.BoolFlag{Name: "require-github", Usage: "fail a workflow whose recorded pull request could not be checked with GitHub (no token, GitHub failing)"},
			&cli.BoolFlag{Name: "require-protected-base", Usage: "fail unless GitHub shows the base requiring the verify check and refusing direct and force pushes (CI)"},
			&cli.BoolFlag{Name: "remember", Usage: "fail a workflow ref rewound past a tip CI verified before, then record the tips verified (CI; needs checks: write)"},
			&cli.BoolFlag{Name: "rerun-gates", Usage: "run every quality gate recorded as passed again on its commit (the base's command, in a clean checkout)"},
			jsonFlag,
		},
		Action: func(_ context.Context, c *cli.Command) error {
			if feature := c.StringArg("feature"); (c.Bool("all") && feature != "") || (c.String("branch") != "" && (c.Bool("all") || feature != "")) {
				return usageErrf("verify takes one of <feature>, --all or --branch B")
			}
			r, err := openRepo()
			if err != nil {
				return err
			}
			res, err := verify.Verify(&verify.Repo{Repo: r.Repo}, verify.Options{Feature: c.StringArg("feature"), All: c.Bool("all"), Base: c.String("base"),
				Branch: c.String("branch"), Require: c.Bool("require"), RequireGitHub: c.Bool("require-github"), RerunGates: c.Bool("rerun-gates"),
				RequireProtectedBase: c.Bool("require-protected-base"), Remember: c.Bool("remember")})
			var failed *verify.Error
			if errors.As(err, &failed) {
				if !c.Bool("json") {
					printVerify(c.Root().ErrWriter, res)
				}
				return withDetails(err, res)
			}
			if err != nil {
				return err
			}
			return emit(c, res, func(w io.Writer) { printVerify(w, res) })
		},
	}
}

// printVerify is verify's text: app.WriteVerify, then the trust line.
func printVerify(w io.Writer, res *verify.Result) {
	verify.WriteVerify(w, res, boldIn(w))
	printTrustLine(w, res.Trust)
}

// printTrust ends `status` with whether decisions are protected and what was refused.
func printTrust(w io.Writer, st app.Status) {
	for _, f := range st.Refused {
		printf(w, "refused %s (seq %d, claimed by %s): %s\n", f.Kind, f.Seq, f.Actor, f.Reason)
	}
	printTrustLine(w, st.Trust)
}

func printTrustLine(w io.Writer, t trust.Trust) {
	switch t.Mode {
	case "signed":
		printf(w, "decisions: signed (%d allowed signer(s) at %s)\n", t.Signers, t.Base)
	case "unreadable":
		printf(w, "decisions: NONE TAKE EFFECT: %s\n", t.Note)
	default:
		printf(w, "decisions: NOT PROTECTED: %s\n", t.Note)
	}
	if t.KeyWarning != "" && !t.KeyWarningShown {
		printf(w, "warning: %s\n", t.KeyWarning)
	}
	if t.RulesError != "" {
		printf(w, "error: %s\n", t.RulesError)
	}
}
