package gitstore

import (
	"errors"
	"fmt"
	"github.com/exarchos/git-exarchos/gitrepo"
	"slices"
	"strings"
)

const (
	// RemoteRefPrefix holds what was fetched from each remote: refs/exarchos-remotes/<remote>/<feature>.
	// Fetches never write refs/exarchos/* directly: local workflows move only by Integrate.
	RemoteRefPrefix = "refs/exarchos-remotes/"
	// TombstonePrefix remembers workflows deleted on a remote but kept here (no --prune), pointing at
	// the last tip seen there, so that push does not bring them back.
	TombstonePrefix = "refs/exarchos-tombstones/"
)

// ErrNoRemote means the named (or default) remote is not configured.
var ErrNoRemote = errors.New("no such remote")

// TrackingRef is where a remote's copy of a workflow is fetched to.
func TrackingRef(remote, feature string) string { return RemoteRefPrefix + remote + "/" + feature }

// FetchRefspec is the refspec that fetches a remote's workflows to their tracking refs.
func FetchRefspec(remote string) string {
	return "+" + RefPrefix + "*:" + RemoteRefPrefix + remote + "/*"
}

// Remotes lists the configured remotes.
func (s *Store) Remotes() ([]string, error) {
	out, err := s.loc.Git(nil, "remote")
	if err != nil {
		return nil, err
	}
	return strings.Fields(out), nil
}

// ResolveRemote checks a remote name, or picks the default: the current branch's upstream remote,
// else origin.
func (s *Store) ResolveRemote(given string) (string, error) {
	remotes, err := s.Remotes()
	if err != nil {
		return "", err
	}
	name := given
	if name == "" {
		name = "origin"
		if b := s.git.CurrentBranch(); b != "" {
			if r, ok := s.git.Config("branch." + b + ".remote"); ok && r != "" && r != "." && slices.Contains(remotes, r) {
				name = r
			}
		}
	}
	if !slices.Contains(remotes, name) {
		if len(remotes) == 0 {
			return "", fmt.Errorf("%w %q: this repository has no remotes; add one with `git remote add origin <url>`", ErrNoRemote, name)
		}
		return "", fmt.Errorf("%w %q: configured remotes are %s; name one, e.g. `git exarchos pull %s`", ErrNoRemote, name, strings.Join(remotes, ", "), remotes[0])
	}
	return name, nil
}

// RemoteWorkflows returns the tracking refs of a remote, by feature.
func (s *Store) RemoteWorkflows(remote string) (map[string]gitrepo.Hash, error) {
	return s.featureRefs(RemoteRefPrefix + remote + "/")
}

// Tombstones returns the workflows of a remote that were deleted there and kept here, by feature.
func (s *Store) Tombstones(remote string) (map[string]gitrepo.Hash, error) {
	return s.featureRefs(TombstonePrefix + remote + "/")
}

// LocalWorkflows returns every workflow's tip, by feature.
func (s *Store) LocalWorkflows() (map[string]gitrepo.Hash, error) { return s.featureRefs(RefPrefix) }

func (s *Store) featureRefs(prefix string) (map[string]gitrepo.Hash, error) {
	refs, _, err := s.workflowRefs(prefix)
	if err != nil {
		return nil, err
	}
	out := make(map[string]gitrepo.Hash, len(refs))
	for name, h := range refs {
		out[strings.TrimPrefix(name, prefix)] = h
	}
	return out, nil
}

// Fetch brings a remote's workflows into its tracking refs through the git binary (so credential
// helpers, SSH configuration and url rewrites apply). With no features it fetches them all and
// prunes tracking refs of workflows the remote no longer has; with features, only those. In a
// partial clone it asks for every blob (--no-filter): a workflow's log must be complete to merge.
func (s *Store) Fetch(remote string, features ...string) error {
	args := []string{"fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-recurse-submodules"}
	if f, ok := s.git.Config("remote." + remote + ".partialclonefilter"); ok && f != "" {
		args = append(args, "--no-filter")
	}
	if len(features) == 0 {
		args = append(args, "--prune", remote, FetchRefspec(remote))
	} else {
		args = append(args, remote)
		for _, f := range features {
			args = append(args, "+"+RefName(f)+":"+TrackingRef(remote, f))
		}
	}
	if _, err := s.loc.GitEnv(gitrepo.TolerantEnv, nil, args...); err != nil {
		return fmt.Errorf("fetch workflows from %s: %w", remote, err)
	}
	s.git.Reindex() // new packs arrived
	return nil
}

// PushedRef is git's verdict on one pushed workflow ref.
type PushedRef struct {
	Feature string
	// Flag is git's porcelain flag: ' ' fast-forward, '*' new, '=' up to date, '!' rejected.
	Flag    byte
	Summary string
	OK      bool
}

// Push pushes the given workflows (never forced) and reports git's verdict per ref, read from
// `git push --porcelain`. A ref the remote accepted has its tracking ref moved to the pushed tip.
// The error is for a push that failed as a whole (unreachable remote, no permission).
func (s *Store) Push(remote string, tips map[string]gitrepo.Hash) ([]PushedRef, error) {
	if len(tips) == 0 {
		return nil, nil
	}
	features := make([]string, 0, len(tips))
	for f := range tips {
		features = append(features, f)
	}
	slices.Sort(features)
	args := []string{"push", "--porcelain", "--no-verify", remote}
	for _, f := range features {
		// Push the exact commit examined, not whatever the ref holds by the time git reads it.
		args = append(args, tips[f].String()+":"+RefName(f))
	}
	out, pushErr := s.loc.GitEnv(gitrepo.TolerantEnv, nil, args...)
	byRef := map[string]PushedRef{}
	for _, line := range strings.Split(out, "\n") {
		flag, rest, ok := strings.Cut(line, "\t")
		if !ok || len(flag) != 1 {
			continue
		}
		spec, summary, _ := strings.Cut(rest, "\t")
		_, dst, _ := strings.Cut(spec, ":")
		byRef[dst] = PushedRef{Feature: strings.TrimPrefix(dst, RefPrefix), Flag: flag[0], Summary: summary, OK: flag[0] != '!'}
	}
	if len(byRef) == 0 && pushErr != nil {
		return nil, fmt.Errorf("push workflows to %s: %w", remote, pushErr)
	}
	res := make([]PushedRef, 0, len(features))
	for _, f := range features {
		r, ok := byRef[RefName(f)]
		if !ok {
			r = PushedRef{Feature: f, Flag: '!', Summary: "no verdict from git push"}
		}
		if r.OK {
			if err := s.setRef(TrackingRef(remote, f), tips[f]); err != nil {
				return nil, err
			}
		}
		res = append(res, r)
	}
	return res, nil
}

// setRef points name at h whatever it held (tracking refs and tombstones: only this process's
// view of the remote, never a workflow).
func (s *Store) setRef(name string, h gitrepo.Hash) error {
	for attempt := 0; attempt < maxAttempts; attempt++ {
		cur, _, err := s.git.Ref(name)
		if err != nil {
			return err
		}
		if cur == h {
			return nil
		}
		if err := s.git.UpdateRef(name, h, cur); !errors.Is(err, gitrepo.ErrStale) {
			return err
		}
	}
	return fmt.Errorf("%w: %s", ErrConcurrent, name)
}

// SetTombstone records that remote deleted feature, whose last tip there was h.
func (s *Store) SetTombstone(remote, feature string, h gitrepo.Hash) error {
	return s.setRef(TombstonePrefix+remote+"/"+feature, h)
}

// ClearTombstone forgets a tombstone (the workflow reappeared upstream, or was pruned here).
func (s *Store) ClearTombstone(remote, feature string) error {
	return s.setRef(TombstonePrefix+remote+"/"+feature, gitrepo.ZeroHash)
}

// DeleteIfUnchanged deletes a local workflow if its tip is still want (by compare-and-swap); it
// returns the move when it did (nil when the tip had moved on).
func (s *Store) DeleteIfUnchanged(feature string, want gitrepo.Hash) (*Move, error) {
	s.logRefWrite(RefName(feature), gitrepo.ZeroHash)
	err := s.git.UpdateRef(RefName(feature), gitrepo.ZeroHash, want)
	if errors.Is(err, gitrepo.ErrStale) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &Move{Feature: feature, From: want}, nil
}

// ContainedIn reports whether the local tip is an ancestor of (or equal to) other: nothing local
// would be lost by dropping it in favour of other.
func (s *Store) ContainedIn(local, other gitrepo.Hash) (bool, error) {
	return s.isAncestor(local, other)
}

// SetupRemote adds the fetch refspec of workflows to a remote, so a plain `git fetch` brings them
// to their tracking refs too. It reports whether it changed anything (false: already there).
func (s *Store) SetupRemote(remote string) (bool, error) {
	spec := FetchRefspec(remote)
	for _, v := range s.git.ConfigAll("remote." + remote + ".fetch") {
		if strings.TrimSpace(v) == spec {
			return false, nil
		}
	}
	if err := s.git.AddConfig("remote."+remote+".fetch", spec); err != nil {
		return false, fmt.Errorf("add fetch refspec to %s: %w", remote, err)
	}
	return true, nil
}

// isAncestor is Location.IsAncestor on object ids.
func (s *Store) isAncestor(anc, desc gitrepo.Hash) (bool, error) {
	return s.loc.IsAncestor(anc.String(), desc.String())
}
