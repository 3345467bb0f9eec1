package project

import (
	"strings"

	"github.com/exarchos/git-exarchos/gitrepo"
)

// The repository's git as the jobs and commands above the store ask it. The store holds only what
// the event log needs (gitstore.Git) and gives nothing of git away; project keeps the opened
// repository (Repo.git) and answers each question here by name. The packages whose row in
// internal/archtest's table allows gitrepo (saga, hookrun, teamsync: the jobs that run git's
// worktree and ref operations) take the Location itself; every other package above the store
// asks through the methods below, never through a Location (archtest's
// TestGitOnlyThroughNamedJobs).

// Location is where the repository is and how git is run there, for the job packages that run
// git themselves (saga's worktrees and rescue refs, hookrun's status and refs, teamsync).
func (r *Repo) Location() gitrepo.Location { return r.git.Loc }

// WorkTree is the root of the working tree this repository was opened in ("" in a bare one).
func (r *Repo) WorkTree() string { return r.git.Loc.WorkTree }

// CommonDir is the git directory every worktree shares (objects, refs, config).
func (r *Repo) CommonDir() string { return r.git.Loc.CommonDir }

// Facts reads what guards and the commands ask of commits, branches and worktrees.
func (r *Repo) Facts() gitrepo.Facts { return r.git.Facts() }

// CurrentBranch is the branch checked out in this worktree ("" when HEAD is detached).
func (r *Repo) CurrentBranch() string { return r.git.CurrentBranch() }

// HeadCommit is the commit checked out in this worktree ("" on an unborn branch).
func (r *Repo) HeadCommit() string { return r.git.HeadCommit() }

// Actor is who acts, from git's user.name and user.email.
func (r *Repo) Actor() (string, error) { return r.git.Actor() }

// Config, ConfigAll, ConfigBool and ConfigRemotes read git's configuration with git's rules.
func (r *Repo) Config(key string) (string, bool) { return r.git.Config(key) }
func (r *Repo) ConfigAll(key string) []string    { return r.git.ConfigAll(key) }
func (r *Repo) ConfigBool(key string) bool       { return r.git.ConfigBool(key) }
func (r *Repo) ConfigRemotes() []string          { return r.git.ConfigRemotes() }

// SetConfig sets key in the repository's own configuration (`git config key value`).
func (r *Repo) SetConfig(key, value string) error {
	_, err := r.git.Loc.Git(nil, "config", key, value)
	return err
}

// GlobalConfigAll is every value of key in the user's global configuration only (`git config
// --global --get-all`): settings a repository's own files must not be able to grant.
func (r *Repo) GlobalConfigAll(key string) []string {
	out, err := r.git.Loc.Git(nil, "config", "--global", "--get-all", key)
	if err != nil {
		return nil
	}
	return strings.Fields(out)
}

// RemoteURL is the URL git fetches remote from, after insteadOf rewrites (`git remote get-url`).
func (r *Repo) RemoteURL(remote string) (string, error) {
	out, err := r.git.Loc.Git(nil, "remote", "get-url", remote)
	return strings.TrimSpace(out), err
}

// BranchTip is the commit at the tip of a local branch (ok false when there is none).
func (r *Repo) BranchTip(branch string) (string, bool, error) { return r.git.Loc.BranchTip(branch) }

// RootCommits are the commits without parents reachable from commit.
func (r *Repo) RootCommits(commit string) ([]string, error) {
	out, err := r.git.Loc.Git(nil, "rev-list", "--max-parents=0", commit)
	return strings.Fields(out), err
}

// CleanCheckout checks commit out in a fresh temporary worktree, for a gate or a rerun to run in;
// done removes it.
func (r *Repo) CleanCheckout(commit string) (dir string, done func(), err error) {
	return cleanCheckout(r.git.Loc, commit)
}

// WorktreePaths are the paths of the repository's worktrees, the main one first.
func (r *Repo) WorktreePaths() ([]string, error) {
	wts, err := r.git.Loc.Worktrees()
	paths := make([]string, len(wts))
	for i, w := range wts {
		paths[i] = w.Path
	}
	return paths, err
}

// WorktreeStatus is the state of the worktree at path (`git status`).
func (r *Repo) WorktreeStatus(path string) (gitrepo.Status, error) {
	return r.git.Loc.WorktreeStatus(path)
}

// GitFormat is the repository's format as git reports it, for doctor.
type GitFormat struct {
	ObjectFormat, FormatVersion string
	// WorktreeConfig: extensions.worktreeConfig is on (the store falls back to the git binary).
	WorktreeConfig bool
}

// Format asks git for the repository's object format and format version.
func (r *Repo) Format() GitFormat {
	loc := r.git.Loc
	format, _ := loc.Git(nil, "rev-parse", "--show-object-format")
	version, _ := loc.Git(nil, "config", "--get", "core.repositoryformatversion")
	wtConfig, _ := loc.Git(nil, "config", "--get", "extensions.worktreeConfig")
	return GitFormat{ObjectFormat: strings.TrimSpace(format), FormatVersion: strings.TrimSpace(version), WorktreeConfig: strings.TrimSpace(wtConfig) == "true"}
}

// CommitPaths commits the given paths, and nothing else the user had staged, on the branch
// checked out (`git add`, then `git commit --only`).
func (r *Repo) CommitPaths(message string, paths []string) error {
	if _, err := r.git.Loc.Git(nil, append([]string{"add", "--"}, paths...)...); err != nil {
		return err
	}
	_, err := r.git.Loc.Git(nil, append([]string{"commit", "--quiet", "--only", "-m", message, "--"}, paths...)...)
	return err
}

// PorcelainStatus is `git status --porcelain --untracked-files=all` of the given paths.
func (r *Repo) PorcelainStatus(paths []string) (string, error) {
	return r.git.Loc.Git(nil, append([]string{"status", "--porcelain", "--untracked-files=all", "--"}, paths...)...)
}
