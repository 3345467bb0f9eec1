package gitstore

import (
	"strings"

	"github.com/exarchos/git-exarchos/gitrepo"
)

// Heads returns the head commit of every workflow, from the refs alone: no object is read, so it
// costs the same whether the objects are loose or in a pack of any size. Callers that cache what
// they derive from a workflow's head key it by this commit.
func (s *Store) Heads() (map[string]string, error) {
	refs, err := gitrepo.ListRefs(s.Loc.CommonDir, RefPrefix)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(refs))
	for name, h := range refs {
		feature := strings.TrimPrefix(name, RefPrefix)
		if ValidateFeature(feature) == nil {
			out[feature] = h.String()
		}
	}
	return out, nil
}
