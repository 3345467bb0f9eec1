package app

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/exarchos/git-exarchos/ghclient"
	"github.com/exarchos/git-exarchos/ghevidence"
	"github.com/exarchos/git-exarchos/verify"
)

// Setup's steps for what the gate needs beyond the repository (issue 37): refusals that reach the
// remote (exarchos.autoPush), and on GitHub a ruleset on the base branch that requires the verify
// check and refuses direct and force pushes. GitHub has no protection for refs/exarchos/*: its
// rulesets target branches (refs/heads/) and tags (refs/tags/) only, push rulesets restrict file
// paths and sizes, not ref names; CI's memory (verify --remember) stands in.

// RefsProtectionNote says what protects refs/exarchos/* on the server.
const RefsProtectionNote = "GitHub offers no protection for refs/exarchos/* (rulesets target branches and tags only; push rulesets restrict files, not refs): " +
	"CI's verify --remember fails a workflow ref rewound past a tip it verified. On a server you run, refuse rewinds there: " +
	"git config receive.denyNonFastForwards true && git config receive.denyDeletes true (in the bare repository)"

// autoPush offers exarchos.autoPush: git's pre-push then pushes the workflow refs with the
// branch, so a refused decision reaches the remote (and CI) with the work it refused.
func (s *setup) autoPush() (SetupStep, error) {
	st := SetupStep{Step: "autopush", Command: "git config exarchos.autoPush true"}
	if s.r.Store.ConfigBool("exarchos.autoPush") {
		st.Status, st.Detail = StepAlready, "git push pushes the workflow refs of the branches it pushes"
		return st, nil
	}
	q := "Push workflow refs with every branch push (git config exarchos.autoPush true), so refused decisions reach the remote and CI?"
	if !s.o.AutoPush && (s.o.DryRun || s.o.Confirm == nil || !s.o.Confirm(q)) {
		st.Status = StepLeftForHuman
		st.Detail = "workflow refs are pushed only by git exarchos push: a refused decision that is never pushed, then erased locally, is one CI never sees"
		if s.o.DryRun {
			st.Status = StepWouldDo
		}
		return st, nil
	}
	if !s.o.DryRun {
		if _, err := s.r.Store.Loc.Git(nil, "config", "exarchos.autoPush", "true"); err != nil {
			return st, err
		}
	}
	st.Status, st.Detail = s.did(), "git push pushes the workflow refs of the branches it pushes (the hook's pre-push)"
	return st, nil
}

// github protects the base branch on GitHub with a ruleset: the "exarchos verify" check
// required, changes through pull requests only, no force push or deletion.
func (s *setup) github() (SetupStep, error) {
	st := SetupStep{Step: "github", Command: "git exarchos setup --github"}
	remote, err := s.r.Store.ResolveRemote(s.o.Remote)
	if err != nil {
		st.Status, st.Detail = StepSkipped, "no remote: nothing on GitHub to protect yet"
		return st, nil
	}
	url, _ := s.r.Store.Config("remote." + remote + ".url")
	repo, err := ghclient.ParseRemoteURL(strings.TrimSpace(url))
	if err != nil {
		st.Status, st.Detail = StepSkipped, fmt.Sprintf("%s (%s) is not on GitHub: protect the base branch on your server by hand. %s", remote, url, RefsProtectionNote)
		return st, nil
	}
	branch := baseBranchOnRemote(s.r.Base().Ref)
	want := fmt.Sprintf("a ruleset on %s:%s requiring the %q check, changes through pull requests only, no force push or deletion", repo.FullName(), branch, verify.RequiredCheck)
	st.Detail = want + ". " + RefsProtectionNote
	gh, err := (&ghevidence.Repo{Repo: s.r.Repo}).Client(repo)
	var have ghclient.BranchProtection
	if err == nil {
		have, err = gh.ProtectionOf(context.Background(), branch, verify.RequiredCheck)
	}
	switch {
	case err != nil && s.o.GitHub && !s.o.DryRun:
		return st, err // no token, rate limit, network: each error names its fix
	case err != nil:
		st.Status = StepLeftForHuman
		if s.o.DryRun {
			st.Status = StepWouldDo
		}
		st.Detail = fmt.Sprintf("would add %s; GitHub could not be asked what protects it now: %v. %s", want, err, RefsProtectionNote)
		return st, nil
	case have.Protected():
		s.checkRequired()
		st.Status, st.Detail = StepAlready, fmt.Sprintf("GitHub protects %s (%s). %s", branch, strings.Join(have.By, " and "), RefsProtectionNote)
		return st, nil
	case s.agent != "":
		st.Status = StepLeftForHuman
		st.Detail = fmt.Sprintf("protecting the base branch is a human's step and the environment says an agent runs this (%s is set): ask the user to run `git exarchos setup --github` in their own terminal. %s", s.agent, st.Detail)
		return st, nil
	case !s.o.GitHub && (s.o.DryRun || s.o.Confirm == nil || !s.o.Confirm("Add "+want+" on GitHub?")):
		st.Status = StepLeftForHuman
		if s.o.DryRun {
			st.Status = StepWouldDo
		}
		return st, nil
	}
	if s.o.DryRun {
		st.Status = StepWouldDo
		return st, nil
	}
	if _, err := gh.ProtectBranch(context.Background(), branch, verify.RequiredCheck); err != nil {
		return st, err
	}
	s.checkRequired()
	st.Status = StepDone
	return st, nil
}

// checkRequired drops the ci step's "make the check required" from what is left for a human:
// GitHub requires it now.
func (s *setup) checkRequired() {
	s.res.Human = slices.DeleteFunc(s.res.Human, func(h string) bool { return h == requiredCheck })
}

// baseBranchOnRemote is the branch a base ref names: refs/remotes/origin/main and refs/heads/main → main.
func baseBranchOnRemote(ref string) string {
	if rest, ok := strings.CutPrefix(ref, "refs/remotes/"); ok {
		_, b, _ := strings.Cut(rest, "/")
		return b
	}
	return strings.TrimPrefix(ref, "refs/heads/")
}
