package app

import (
	"github.com/exarchos/git-exarchos/ghevidence"
)

// GitHub evidence's commands (package ghevidence) over this Repo: each records its observations
// through Execute (Preview for a dry run).

// gitHub is r as GitHub evidence sees it: the repository with trust, and the engine.
func (r *Repo) gitHub() *ghevidence.Repo { return &ghevidence.Repo{Repo: r.Repo, Engine: r} }

// LinkPR is `git exarchos pr link` (ghevidence.LinkPR).
func LinkPR(r *Repo, o ghevidence.PRLinkOptions) (*ghevidence.PRResult, error) {
	return ghevidence.LinkPR(r.gitHub(), o)
}

// CreatePR is `git exarchos pr create` (ghevidence.CreatePR).
func CreatePR(r *Repo, o ghevidence.PRCreateOptions) (*ghevidence.PRCreateResult, error) {
	return ghevidence.CreatePR(r.gitHub(), o)
}

// ImportReviews is `git exarchos review import` (ghevidence.ImportReviews).
func ImportReviews(r *Repo, o ghevidence.ReviewImportOptions) (*ghevidence.ReviewImportResult, error) {
	return ghevidence.ImportReviews(r.gitHub(), o)
}

// FindPR is `git exarchos pr find` (ghevidence.FindPR).
func FindPR(r *Repo, o ghevidence.PRFindOptions) (*ghevidence.PRResult, error) {
	return ghevidence.FindPR(r.gitHub(), o)
}

// RefreshPR is `git exarchos pr refresh` (ghevidence.RefreshPR).
func RefreshPR(r *Repo, o ghevidence.PRRefreshOptions) (*ghevidence.PRResult, error) {
	return ghevidence.RefreshPR(r.gitHub(), o)
}

// Cleanup is `git exarchos cleanup` (ghevidence.Cleanup).
func Cleanup(r *Repo, o ghevidence.CleanupOptions) (*ghevidence.CleanupResult, error) {
	return ghevidence.Cleanup(r.gitHub(), o)
}

// MergePR is `git exarchos pr merge` (ghevidence.MergePR): the user's decision, merged through
// GitHub's merge API.
func MergePR(r *Repo, o ghevidence.PRMergeOptions) (*ghevidence.PRMergeResult, error) {
	return ghevidence.MergePR(r.gitHub(), o)
}
