package verify

import (
	"context"
	"fmt"
	"strings"
)

// RequiredCheck is the status check the shipped workflow reports (its job's name), which a base
// must require for its pull requests to be gated.
const RequiredCheck = "exarchos verify"

// A base the agent can push to gives the pull request whatever signers, rules and merge it
// likes: verify reads all three from the base. So CI asks GitHub whether the base requires the
// verify check and refuses direct and force pushes (a ruleset, or the classic branch
// protection), and --require-protected-base fails every workflow when it does not, or when
// GitHub could not be asked.

// checkProtectedBase sets res.BaseProtection and, with o.RequireProtectedBase, adds a
// base-protection violation to each workflow when the base is not shown protected.
func (r *Repo) checkProtectedBase(o Options, res *Result) {
	verdict, ok := r.baseProtection()
	res.BaseProtection = verdict
	if ok || !o.RequireProtectedBase {
		return
	}
	for i := range res.Workflows {
		w := &res.Workflows[i]
		w.Violations = append(w.Violations, Violation{Rule: "base-protection", Message: fmt.Sprintf(
			"the base %s must be one GitHub protects (--require-protected-base): %s", r.Base().Ref, verdict)})
		res.OK = false
	}
}

// baseProtection asks GitHub what protects the base branch on origin; ok only when it requires
// RequiredCheck and refuses direct and force pushes.
func (r *Repo) baseProtection() (string, bool) {
	ref := r.Base().Ref
	branch := strings.TrimPrefix(ref, "refs/heads/")
	if rest, isRemote := strings.CutPrefix(ref, "refs/remotes/"); isRemote {
		remote, b, _ := strings.Cut(rest, "/")
		if remote != "origin" {
			return githubCouldNot + fmt.Sprintf("the base %s is not a branch of origin, the repository GitHub is asked about", ref), false
		}
		branch = b
	}
	gh, err := r.originClient()
	if err != nil {
		return unchecked(err), false
	}
	p, err := gh.ProtectionOf(context.Background(), branch, RequiredCheck)
	switch {
	case err != nil:
		return githubCouldNot + err.Error(), false
	case p.Protected():
		return fmt.Sprintf("checked: %s is protected (%s)", branch, strings.Join(p.By, " and ")), true
	case p.Unreadable != "":
		return githubCouldNot + p.Unreadable, false
	}
	by := "no ruleset or branch protection applies to it; it needs"
	if len(p.By) > 0 {
		by = "its " + strings.Join(p.By, " and ") + " lacks"
	}
	return fmt.Sprintf("checked: %s is not protected: %s %s (git exarchos setup configures it)", branch, by, strings.Join(p.Missing(RequiredCheck), ", ")), false
}
