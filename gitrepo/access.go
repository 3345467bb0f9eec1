package gitrepo

import "github.com/go-git/go-git/v5/plumbing"

// The repository as its consumers use it: objects, refs and config, each read first by the fast
// path here and else by git (catfile.go, refs_git.go, config.go). gitstore names what it needs of
// these in its own interface (gitstore.Git); Repo is its implementation.

// ReadRaw is an object's type and content (Objects.Raw).
func (s *Repo) ReadRaw(h Hash) (plumbing.ObjectType, []byte, error) { return s.st.Raw(h) }

// HasObject reports whether the fast path holds an object, without asking git (Objects.HasLocal).
func (s *Repo) HasObject(h Hash) bool { return s.st.HasLocal(h) }

// ObjectExists reports whether git can read an object (Objects.Exists).
func (s *Repo) ObjectExists(h Hash) bool { return s.st.Exists(h) }

// WriteObject stores an object as a loose file (Objects.WriteLoose).
func (s *Repo) WriteObject(t plumbing.ObjectType, content []byte) (Hash, error) {
	return s.st.WriteLoose(t, content)
}

// LooseObjectPath is where an object's loose file is (Objects.LoosePath).
func (s *Repo) LooseObjectPath(h Hash) string { return s.st.LoosePath(h) }

// Reindex lists the packs again on the next read (Objects.Reindex).
func (s *Repo) Reindex() { s.st.Reindex() }

// Ref resolves one ref: from its file or packed-refs, or through git (ReadRef).
func (s *Repo) Ref(name string) (Hash, bool, error) { return ReadRef(s.Loc.CommonDir, name) }

// Refs lists the refs under prefix (ScanRefs).
func (s *Repo) Refs(prefix string, valid func(rest string) bool) (map[string]Hash, []string, []BadRef, error) {
	return ScanRefs(s.Loc.CommonDir, prefix, valid)
}

// UpdateRef moves name from old to new, a compare-and-swap (CasRef).
func (s *Repo) UpdateRef(name string, newH, oldH Hash) error {
	return CasRef(s.Loc.CommonDir, name, newH, oldH)
}

// LockRef takes name's lock (see RefLock).
func (s *Repo) LockRef(name string) (*RefLock, error) { return LockRef(s.Loc.CommonDir, name) }
