package gitstore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Heads returns the head commit of every workflow, from the refs alone: no object is read, so it
// costs the same whether the objects are loose or in a pack of any size. Callers that cache what
// they derive from a workflow's head key it by this commit.
func (s *Store) Heads() (map[string]string, error) {
	refs, err := listRefs(s.Loc.CommonDir, RefPrefix)
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

// Head resolves one workflow's ref the way git does (the loose file, else packed-refs), reading
// nothing else: the hooks read the one workflow they need. ok is false when it does not exist;
// an error means the ref itself is malformed.
func (s *Store) Head(feature string) (commit string, ok bool, err error) {
	if err := ValidateFeature(feature); err != nil {
		return "", false, err
	}
	h, ok, err := readRef(s.Loc.CommonDir, RefName(feature))
	if err != nil || !ok {
		return "", ok, err
	}
	return h.String(), true, nil
}

// FeatureNames lists the names under refs/exarchos/ that are valid feature ids, loose or packed,
// without reading what the refs hold: an entry git would not read as a ref (a .DS_Store, an empty
// file, a symbolic ref, a name exarchos never writes) affects only itself.
func (s *Store) FeatureNames() ([]string, error) {
	seen := map[string]bool{}
	packed, err := readPackedRefs(s.Loc.CommonDir, RefPrefix)
	if err != nil {
		return nil, err
	}
	for name := range packed {
		seen[strings.TrimPrefix(name, RefPrefix)] = true
	}
	entries, err := os.ReadDir(filepath.Join(s.Loc.CommonDir, filepath.FromSlash(RefPrefix)))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("list %s: %w", RefPrefix, err)
	}
	for _, e := range entries {
		if e.Type().IsRegular() {
			seen[e.Name()] = true
		}
	}
	out := make([]string, 0, len(seen))
	for f := range seen {
		if ValidateFeature(f) == nil {
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out, nil
}
