package ghclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/google/go-github/v62/github"
)

// BranchProtection is what GitHub enforces on pushes and merges to a branch, as far as the token
// could read it: the rules of active rulesets (readable with read access) and the classic branch
// protection (its details readable with admin only; any reader sees whether it exists and its
// required checks).
type BranchProtection struct {
	Branch string `json:"branch"`
	// RequiresCheck: a ruleset or the protection requires the named status check from one app
	// (its integration_id or app_id pinned): a check of that name any token with statuses: write
	// could post does not count. CheckUnpinned: the name is required, from any source.
	RequiresCheck bool `json:"requiresCheck"`
	CheckUnpinned bool `json:"checkUnpinned,omitempty"`
	// RefusesPush: changes reach the branch through pull requests only (a pull_request or update
	// rule, or the protection's required reviews).
	RefusesPush bool `json:"refusesPush"`
	// RefusesForcePush: force pushes and deletion are refused (non_fast_forward and deletion
	// rules, or the protection's allow_force_pushes and allow_deletions both off).
	RefusesForcePush bool `json:"refusesForcePush"`
	// By names what enforces it: "ruleset", "branch protection", or both.
	By []string `json:"by,omitempty"`
	// Unreadable says what the token could not read, and why ("" when everything was read).
	Unreadable string `json:"unreadable,omitempty"`
}

// Protected reports whether the branch requires the check and refuses direct and force pushes.
func (p BranchProtection) Protected() bool {
	return p.RequiresCheck && p.RefusesPush && p.RefusesForcePush
}

// Missing names what the branch does not enforce, in words.
func (p BranchProtection) Missing(check string) []string {
	var out []string
	switch {
	case !p.RequiresCheck && p.CheckUnpinned:
		out = append(out, fmt.Sprintf("the required check %q pinned to the app that reports it (GitHub Actions): unpinned, any token with statuses: write can post a passing %q", check, check))
	case !p.RequiresCheck:
		out = append(out, fmt.Sprintf("the required check %q", check))
	}
	if !p.RefusesPush {
		out = append(out, "refusing direct pushes (changes through pull requests only)")
	}
	if !p.RefusesForcePush {
		out = append(out, "refusing force pushes and deletion")
	}
	return out
}

// requires notes a required check: the one named (match) counts when pinned to an app.
func (p *BranchProtection) requires(match bool, app *int64) {
	switch {
	case match && app != nil && *app != 0:
		p.RequiresCheck = true
	case match:
		p.CheckUnpinned = true
	}
}

// requiresOf notes the classic protection's required checks (checks with their app_id; the
// legacy contexts list names no app).
func (p *BranchProtection) requiresOf(rsc *github.RequiredStatusChecks, check string) {
	if rsc == nil {
		return
	}
	if rsc.Checks != nil {
		for _, c := range *rsc.Checks {
			p.requires(c.Context == check, c.AppID)
		}
	}
	if rsc.Contexts != nil {
		p.requires(slices.Contains(*rsc.Contexts, check), nil)
	}
}

// ActionsAppID is the GitHub Actions app on github.com: the check a ruleset requires is pinned to
// it, so only a workflow's job can report it.
const ActionsAppID int64 = 15368

// ProtectionOf asks GitHub what protects branch: the rules of active rulesets first, then the
// classic branch protection for what they leave out. A token that cannot read the protection's
// details (admin only) gives what it could read, with Unreadable saying what it could not.
func (c *Client) ProtectionOf(ctx context.Context, branch, check string) (BranchProtection, error) {
	p := BranchProtection{Branch: branch}
	what := "the rules of branch " + c.repo.FullName() + ":" + branch
	rules, resp, err := c.gh.Repositories.GetRulesForBranch(ctx, c.repo.Owner, c.repo.Name, branch)
	if err != nil {
		return p, c.wrap(what, resp, err)
	}
	var nonFF, noDelete bool
	for _, r := range rules {
		switch r.Type {
		case "required_status_checks":
			var params github.RequiredStatusChecksRuleParameters
			if r.Parameters != nil && json.Unmarshal(*r.Parameters, &params) == nil {
				for _, s := range params.RequiredStatusChecks {
					p.requires(s.Context == check, s.IntegrationID)
				}
			}
		case "pull_request", "update":
			p.RefusesPush = true
		case "non_fast_forward":
			nonFF = true
		case "deletion":
			noDelete = true
		}
	}
	p.RefusesForcePush = nonFF && noDelete
	if p.RequiresCheck || p.RefusesPush || p.RefusesForcePush {
		p.By = append(p.By, "ruleset")
	}
	if p.Protected() {
		return p, nil
	}
	// The classic protection: any reader sees whether it exists and the checks it requires.
	b, resp, err := c.gh.Repositories.GetBranch(ctx, c.repo.Owner, c.repo.Name, branch, 0)
	if err != nil {
		return p, c.wrap("branch "+c.repo.FullName()+":"+branch, resp, err)
	}
	if !b.GetProtected() {
		return p, nil
	}
	p.By = append(p.By, "branch protection")
	p.requiresOf(b.GetProtection().GetRequiredStatusChecks(), check)
	prot, resp, err := c.gh.Repositories.GetBranchProtection(ctx, c.repo.Owner, c.repo.Name, branch)
	if errors.Is(err, github.ErrBranchNotProtected) {
		return p, nil
	}
	if err != nil {
		var ge *Error
		werr := c.wrap("the branch protection of "+c.repo.FullName()+":"+branch, resp, err)
		if errors.As(werr, &ge) && ge.Kind == KindNoAccess {
			// Reading branch protection needs admin on the repository (Actions' token never has it).
			p.Unreadable = fmt.Sprintf("the branch protection of %s (whether it refuses direct and force pushes): GitHub answers %d to %s, and reading it needs admin on %s; protect the branch with a ruleset instead, which any reader can read (git exarchos setup)",
				branch, ge.Status, c.token, c.repo.FullName())
			return p, nil
		}
		return p, werr
	}
	p.requiresOf(prot.GetRequiredStatusChecks(), check)
	if prot.GetRequiredPullRequestReviews() != nil {
		p.RefusesPush = true
	}
	if !prot.GetAllowForcePushes().Enabled && !prot.GetAllowDeletions().Enabled {
		p.RefusesForcePush = true
	}
	return p, nil
}

var opRuleset = operation{"creating", "admin on the repository (a classic token with the repo scope of a repository admin, or a fine-grained token with Administration: write)"}

// ProtectBranch creates a repository ruleset, active, on branch: the check named check is
// required from GitHub Actions (ActionsAppID), changes come through pull requests only, force pushes and deletion are refused. A
// token without admin gets an error saying so (GitHub answers 404 or 403).
func (c *Client) ProtectBranch(ctx context.Context, branch, check string) (int64, error) {
	rs := &github.Ruleset{
		Name: "exarchos: protect " + branch, Target: github.String("branch"), Enforcement: "active",
		Conditions: &github.RulesetConditions{RefName: &github.RulesetRefConditionParameters{Include: []string{"refs/heads/" + branch}, Exclude: []string{}}},
		Rules: []*github.RepositoryRule{
			github.NewRequiredStatusChecksRule(&github.RequiredStatusChecksRuleParameters{RequiredStatusChecks: []github.RuleRequiredStatusChecks{{Context: check, IntegrationID: github.Int64(ActionsAppID)}}}),
			github.NewPullRequestRule(&github.PullRequestRuleParameters{}),
			github.NewNonFastForwardRule(),
			github.NewDeletionRule(),
		},
	}
	what := "a ruleset protecting " + c.repo.FullName() + ":" + branch
	got, resp, err := c.gh.Repositories.CreateRuleset(ctx, c.repo.Owner, c.repo.Name, rs)
	if err != nil {
		werr := c.wrapOp(opRuleset, what, resp, err)
		var e *Error
		if errors.As(werr, &e) && (e.Status == 404 || e.Status == 403) && e.Kind != KindRateLimited {
			e.Kind = KindNoAccess
			e.Msg = c.token.redact(fmt.Sprintf("GitHub refused %s to the %s (%d): creating rulesets needs %s; run it with an admin's token (GH_TOKEN=… git exarchos setup --github), or ask an admin to add the ruleset (docs/setup.md)",
				what, c.token, e.Status, opRuleset.needs))
		}
		return 0, werr
	}
	return got.GetID(), nil
}
