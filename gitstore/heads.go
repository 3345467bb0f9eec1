package gitstore

import (
	"fmt"
	"strings"

	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/go-git/go-git/v5/plumbing"
)

// Heads returns the head commit of every workflow, from the refs alone: no object is read, so it
// costs the same whether the objects are loose or in a pack of any size. Callers that cache what
// they derive from a workflow's head key it by this commit.
func (s *Store) Heads() (map[string]string, error) {
	refs, _, _, err := s.git.Refs(RefPrefix, validFeature)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(refs))
	for name, h := range refs {
		out[strings.TrimPrefix(name, RefPrefix)] = h.String()
	}
	return out, nil
}

func validFeature(id string) bool { return ValidateFeature(id) == nil }

// workflowRefs returns the refs under prefix (refs/exarchos/ or a remote's tracking prefix) that
// name a workflow whose commit is stored, and every other entry there as a BadRef: one stray file
// or dangling ref costs only itself.
func (s *Store) workflowRefs(prefix string) (map[string]gitrepo.Hash, []gitrepo.BadRef, error) {
	refs, names, bad, err := s.git.Refs(prefix, validFeature)
	if err != nil {
		return nil, nil, err
	}
	reindexed := false
	for _, name := range names {
		h := refs[name]
		if s.git.ObjectExists(h) {
			continue
		}
		if !reindexed { // a concurrent gc may have just packed it
			s.git.Reindex()
			reindexed = true
			if s.git.ObjectExists(h) {
				continue
			}
		}
		delete(refs, name)
		bad = append(bad, gitrepo.BadRef{Name: name, Reason: fmt.Sprintf("points at commit %s, which is not stored", h), Fix: "git update-ref -d " + name, Missing: h})
	}
	// A ref to a blob or a tree is not a workflow: it is reported, and the others go on (one read
	// of each head, as list does).
	for _, name := range gitrepo.SortedNames(refs) {
		h := refs[name]
		if typ, _, err := s.git.ReadRaw(h); err == nil && typ != plumbing.CommitObject {
			delete(refs, name)
			bad = append(bad, gitrepo.BadRef{Name: name, Reason: fmt.Sprintf("points at %s %s, not a commit", typ, h), Fix: "git update-ref -d " + name})
		}
	}
	return refs, bad, nil
}

// BadRefs lists the entries under refs/exarchos/ that are not usable workflow refs, for fsck. A
// missing commit is reported only once it stays missing: a concurrent gc moves objects between
// loose files and packs, and may prune a new commit that its writer then puts back.
func (s *Store) BadRefs() ([]gitrepo.BadRef, error) {
	_, bad, err := s.workflowRefs(RefPrefix)
	if err != nil {
		return nil, err
	}
	out := []gitrepo.BadRef{}
	for _, b := range bad {
		if !b.Missing.IsZero() {
			if s.retryTransient(func() error {
				if !s.git.ObjectExists(b.Missing) {
					return plumbing.ErrObjectNotFound
				}
				return nil
			}) == nil {
				continue // it came back
			}
		}
		out = append(out, b)
	}
	return out, nil
}

// Head resolves one workflow's ref the way git does (the loose file, else packed-refs), reading
// nothing else: the hooks read the one workflow they need. ok is false when it does not exist;
// an error means the ref itself is malformed.
func (s *Store) Head(feature string) (commit string, ok bool, err error) {
	if err := ValidateFeature(feature); err != nil {
		return "", false, err
	}
	h, ok, err := s.git.Ref(RefName(feature))
	if err != nil || !ok {
		return "", ok, err
	}
	return h.String(), true, nil
}
