package gitstore

import (
	"errors"
	"fmt"
	"github.com/exarchos/git-exarchos/gitrepo"
	"regexp"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// CheckObjects checks the objects of the named workflows the way git does: it walks every object
// reachable from their refs (all history, not only the head Verify reads), reporting any that is
// missing or does not decode, then runs `git fsck --strict` and keeps the findings about those
// objects. git's checks (hash of the content, tree entry order and modes, header syntax, …) are
// the reference; a finding about an object no workflow reaches belongs to `git fsck`, not here.
//
// A finding is reported only when it stays: `git gc`/`repack` running beside (as `git maintenance`
// does in the background) moves objects between packs and deletes the old ones while both this
// walk and git's read them. A check with findings is run again (up to three more times, the pack
// list read afresh, longer while gc.pid is held), and only the findings every run made are kept.
func (s *Store) CheckObjects(features []string) ([]Problem, error) {
	problems, err := s.checkObjectsOnce(features)
	for attempt := 1; err == nil && len(problems) > 0 && attempt <= 3; attempt++ {
		wait := time.Duration(attempt) * 100 * time.Millisecond
		for deadline := time.Now().Add(30 * time.Second); s.git.GCRunning() && time.Now().Before(deadline); {
			time.Sleep(50 * time.Millisecond) // a gc in progress: its end is the moment to look again
		}
		time.Sleep(wait)
		s.git.Reindex()
		again, aerr := s.checkObjectsOnce(features)
		if aerr != nil {
			return nil, aerr
		}
		problems = stillThere(problems, again)
	}
	return problems, err
}

// stillThere keeps the problems of before that after reports again (the same workflow and path).
func stillThere(before, after []Problem) []Problem {
	seen := map[[2]string]bool{}
	for _, p := range after {
		seen[[2]string{p.Feature, p.Path}] = true
	}
	var out []Problem
	for _, p := range before {
		if seen[[2]string{p.Feature, p.Path}] {
			out = append(out, p)
		}
	}
	return out
}

func (s *Store) checkObjectsOnce(features []string) ([]Problem, error) {
	owner := map[gitrepo.Hash]string{} // object → the workflow whose walk reached it first
	tipOf := map[string]gitrepo.Hash{}
	var problems []Problem
	var args []string
	for _, f := range features {
		tip, ok, err := s.git.Ref(RefName(f))
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		tipOf[f] = tip
		args = append(args, tip.String())
		problems = append(problems, s.walkObjects(f, tip, owner)...)
	}
	if len(args) == 0 {
		return problems, nil
	}
	out, err := s.loc.Git(nil, append([]string{"fsck", "--strict", "--no-dangling", "--no-reflogs", "--no-progress"}, args...)...)
	if err != nil && gitrepo.ExitCode(err) < 0 {
		return nil, fmt.Errorf("run git fsck: %w", err)
	}
	var ge *gitrepo.GitError
	if errors.As(err, &ge) {
		out += "\n" + ge.Stderr
	}
	idRe := regexp.MustCompile(fmt.Sprintf(`\b[0-9a-f]{%d}\b`, 2*s.git.ObjectFormat().Size()))
	seen := map[string]bool{}
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || seen[line] {
			continue
		}
		for _, id := range idRe.FindAllString(line, -1) {
			h, _ := gitrepo.ParseHash(id)
			if f, ok := owner[h]; ok {
				seen[line] = true
				problems = append(problems, Problem{Feature: f, Commit: tipOf[f].String(), Path: id, Message: "git fsck: " + line})
				break
			}
		}
	}
	return problems, nil
}

// walkObjects visits every commit, tree and blob reachable from tip that no earlier walk reached,
// recording them in owner, and reports those that cannot be read or decoded.
func (s *Store) walkObjects(feature string, tip gitrepo.Hash, owner map[gitrepo.Hash]string) []Problem {
	var problems []Problem
	add := func(h gitrepo.Hash, path, format string, args ...any) {
		problems = append(problems, Problem{Feature: feature, Commit: tip.String(), Path: path, Message: h.String() + ": " + fmt.Sprintf(format, args...)})
	}
	type item struct {
		h    gitrepo.Hash
		typ  plumbing.ObjectType
		path string
	}
	queue := []item{{tip, plumbing.CommitObject, ""}}
	for len(queue) > 0 {
		it := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if _, done := owner[it.h]; done {
			continue
		}
		owner[it.h] = feature
		typ, content, err := s.git.ReadRaw(it.h)
		if err != nil {
			add(it.h, it.path, "%s unreadable: %v", it.typ, err)
			continue
		}
		if typ != it.typ {
			add(it.h, it.path, "is a %s, not a %s", typ, it.typ)
			continue
		}
		if got := s.git.ObjectFormat().Sum(typ, content); got != it.h {
			add(it.h, it.path, "content hashes to %s", got)
			continue
		}
		switch typ {
		case plumbing.CommitObject:
			c, err := gitrepo.DecodeCommit(content, s.git.ObjectFormat())
			if err != nil {
				add(it.h, it.path, "commit does not decode: %v", err)
				continue
			}
			queue = append(queue, item{c.Tree, plumbing.TreeObject, ""})
			for _, p := range c.Parents {
				queue = append(queue, item{p, plumbing.CommitObject, ""})
			}
		case plumbing.TreeObject:
			t, err := gitrepo.DecodeTree(content, s.git.ObjectFormat())
			if err != nil {
				add(it.h, it.path, "tree does not decode: %v", err)
				continue
			}
			for _, e := range t.Entries {
				p := strings.TrimPrefix(it.path+"/"+e.Name, "/")
				switch e.Mode {
				case filemode.Dir:
					queue = append(queue, item{e.Hash, plumbing.TreeObject, p})
				case filemode.Submodule:
				default:
					queue = append(queue, item{e.Hash, plumbing.BlobObject, p})
				}
			}
		}
	}
	return problems
}
