package hookrun

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/hooks"
	"github.com/exarchos/git-exarchos/project"
)

// GitHookOptions are one run of a git hook: its name, git's arguments and the streams.
type GitHookOptions struct {
	Name   string
	Args   []string
	Stdin  io.Reader
	Stderr io.Writer
	// Push pushes the workflow refs to a remote (`git exarchos push <remote>`).
	Push func(remote string) error
}

// InHookPushEnv is set while the pre-push hook pushes workflow refs, so the nested `git push`
// does not run the hook's work again.
const InHookPushEnv = "EXARCHOS_HOOK_PUSH"

// GitHook runs exarchos's part of a git hook. Its messages go to stderr, and nothing it finds
// fails the git command: a hook that breaks checkouts would be uninstalled, not heeded.
func GitHook(o GitHookOptions) error {
	say := func(format string, args ...any) { fmt.Fprintf(o.Stderr, "git exarchos: "+format+"\n", args...) }
	if !slices.Contains(hooks.GitHookNames, o.Name) {
		return project.Usagef("unknown git hook %q: exarchos handles %s", o.Name, strings.Join(hooks.GitHookNames, ", "))
	}
	r, err := Open(".")
	if err != nil {
		if errors.Is(err, gitrepo.ErrNotRepository) {
			return nil
		}
		say("%v", err)
		return nil
	}
	switch o.Name {
	case "post-checkout":
		// Arguments: previous HEAD, new HEAD, 1 for a branch checkout (0 for files).
		if len(o.Args) >= 3 && o.Args[2] != "1" {
			return nil
		}
		statusLines(r, say)
	case "post-merge":
		statusLines(r, say)
	case "pre-push":
		prePush(r, o, say)
	}
	return nil
}

// statusLines prints one line per workflow bound to the branch now checked out.
func statusLines(r *Repo, say func(string, ...any)) {
	bound, err := r.BoundWorkflows()
	if err != nil {
		say("%v", err)
		return
	}
	for _, w := range bound {
		say("%s", strings.TrimPrefix(hooks.StatusLine(w, r.Summary(w)), "git exarchos: "))
	}
}

// prePush pushes the workflow refs bound to the branches being pushed (exarchos.autoPush), or says
// which of them differ from the remote-tracking copies the last `git exarchos pull` fetched.
func prePush(r *Repo, o GitHookOptions, say func(string, ...any)) {
	if os.Getenv(InHookPushEnv) != "" || len(o.Args) == 0 {
		return
	}
	remote := o.Args[0]
	// stdin: "<local ref> <local sha> <remote ref> <remote sha>" per ref being pushed.
	var branches []string
	sc := bufio.NewScanner(o.Stdin)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 4 {
			if b, ok := strings.CutPrefix(f[0], "refs/heads/"); ok {
				branches = append(branches, b)
			}
		}
	}
	if len(branches) == 0 {
		return // tags, deletions, or the workflow refs themselves
	}
	all, err := r.Store.List()
	if err != nil {
		say("%v", err)
		return
	}
	var bound []string
	for _, s := range all {
		if slices.Contains(branches, s.Branch) {
			bound = append(bound, s.Feature)
		}
	}
	if len(bound) == 0 {
		return
	}
	if r.ConfigBool("exarchos.autoPush") {
		if err := o.Push(remote); err != nil {
			say("could not push the workflow refs to %s (the branch push goes on): %v; run git exarchos push %s", remote, err, remote)
		}
		return
	}
	facts := r.Facts()
	for _, f := range bound {
		local, ok, err := facts.ResolveRef(gitstore.RefName(f))
		if err != nil || !ok {
			continue
		}
		theirs, ok, err := facts.ResolveRef("refs/exarchos-remotes/" + remote + "/" + f)
		switch {
		case err != nil:
			say("%v", err)
		case !ok:
			say("workflow %s is not on %s yet: git exarchos push %s (or git config exarchos.autoPush true)", f, remote, remote)
		case local == theirs:
		default:
			ahead, _ := facts.IsAncestor(theirs, local)
			behind, _ := facts.IsAncestor(local, theirs)
			switch {
			case ahead:
				say("workflow %s has changes %s does not: git exarchos push %s (or git config exarchos.autoPush true)", f, remote, remote)
			case behind:
				say("workflow %s is behind %s's copy: git exarchos pull %s", f, remote, remote)
			default:
				say("workflow %s and %s's copy have diverged: git exarchos pull %s, then git exarchos push %s", f, remote, remote, remote)
			}
		}
	}
}
