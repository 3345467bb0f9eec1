package ghevidence

import (
	"context"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"unicode"

	"github.com/exarchos/git-exarchos/ghclient"
	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/workflow"
)

// PRCreateOptions are `git exarchos pr create [<feature>]`.
type PRCreateOptions struct {
	Feature string
	Title   string // "" : the design's first heading, else the feature's name
	DryRun  bool   // compose the title and body, ask GitHub for nothing, record nothing
}

// PRCreateResult is what pr create did: the pull request (opened, or the open one updated) and
// the title and body it wrote.
type PRCreateResult struct {
	PRResult
	Created bool   `json:"created"` // opened now; false: the open one was updated (or, with --dry-run, would be)
	Draft   bool   `json:"draft"`   // a draft until the workflow's reviews have passed
	Title   string `json:"title"`
	Body    string `json:"body"`
	DryRun  bool   `json:"dryRun,omitempty"`
}

// maxBody is GitHub's limit on a pull request's body, in characters.
const maxBody = 65536

// CreatePR opens the workflow's pull request through GitHub's API, or updates the open one, with
// the title and body composed from the workflow (design and plan, tasks, findings, how to verify),
// a draft until the workflow's reviews have passed (and made ready once they have), and links it
// as `pr link` does. It refuses a branch with no commits of its own, or one not pushed as it is.
func CreatePR(r *Repo, o PRCreateOptions) (*PRCreateResult, error) {
	feature, st, _, err := r.ResolveState(o.Feature)
	if err != nil {
		return nil, err
	}
	facts := r.Store.Facts()
	tip, err := facts.BranchTip(st.Branch)
	if err != nil {
		return nil, err
	}
	base := r.Base()
	baseName := BaseBranchName(base.Ref)
	if base.Commit == "" {
		return nil, project.Usagef("no base branch to open the pull request into: %s", base.Problem)
	}
	if in, err := facts.IsAncestor(tip, base.Commit); err != nil {
		return nil, err
	} else if in {
		return nil, project.Usagef("branch %s has no commits of its own (its tip %s is on %s): commit the work first, then run git exarchos pr create %s", st.Branch, shortSHA(tip), baseName, feature)
	}
	passed, err := r.reviewsPassed(feature)
	if err != nil {
		return nil, err
	}
	repo, err := r.OriginRepo()
	if err != nil {
		return nil, err
	}
	res := &PRCreateResult{PRResult: PRResult{Feature: feature, Warnings: []string{}, Appended: []workflow.Event{}}, Draft: !passed, DryRun: o.DryRun}
	res.Title = o.Title
	if res.Title == "" {
		res.Title = r.prTitle(feature, st, tip)
	}
	res.Body = prBody(feature, st, repo, baseName, passed)
	if o.DryRun {
		return res, nil
	}
	if pushed, ok, err := facts.ResolveRef("refs/remotes/origin/" + st.Branch); err != nil {
		return nil, err
	} else if !ok || pushed != tip {
		return nil, project.Usagef("branch %s is not on origin as it is here (tip %s): push it first (git push -u origin %s), then run git exarchos pr create %s", st.Branch, shortSHA(tip), st.Branch, feature)
	}
	gh, err := r.Client(repo)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	prs, err := gh.FindPullRequests(ctx, st.Branch)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(prs, func(p ghclient.PullRequest) bool { return p.State == "open" && !p.Merged })
	var pr ghclient.PullRequest
	if i < 0 {
		if pr, err = gh.CreatePR(ctx, ghclient.NewPullRequest{Head: st.Branch, Base: baseName, Title: res.Title, Body: res.Body, Draft: res.Draft}); err != nil {
			return nil, err
		}
		res.Created = true
	} else {
		if pr, err = gh.EditPR(ctx, prs[i].Number, res.Title, res.Body); err != nil {
			return nil, err
		}
		if pr.Base != baseName {
			res.Warnings = append(res.Warnings, fmt.Sprintf("pull request #%d is into %s, not %s: change its base on GitHub if that is wrong", pr.Number, pr.Base, baseName))
		}
	}
	if pr.Draft && passed {
		if err := gh.MarkReady(ctx, pr.Number, pr.NodeID); err != nil {
			return nil, err
		}
		pr.Draft = false
	}
	res.Draft = pr.Draft
	linked, err := r.link(feature, st, gh, pr)
	if err != nil {
		return nil, err
	}
	linked.Warnings = append(res.Warnings, linked.Warnings...)
	res.PRResult = *linked
	return res, nil
}

// reviewsPassed reports whether the workflow left a phase through reviews-passed: the reviews a
// draft waits for have been given.
func (r *Repo) reviewsPassed(feature string) (bool, error) {
	events, _, err := r.Store.Events(feature, gitstore.EventFilter{Types: []string{workflow.EventTransitioned}})
	if err != nil {
		return false, err
	}
	for _, e := range events {
		var d workflow.TransitionedData
		if e.DecodeData(&d) == nil && (slices.Contains(d.Guards, "reviews-passed") || slices.Contains(d.Overridden, "reviews-passed")) {
			return true, nil
		}
	}
	return false, nil
}

// prTitle is the design's first Markdown heading at the branch's tip, else the feature's name.
func (r *Repo) prTitle(feature string, st workflow.State, tip string) string {
	if a, ok := st.Artifacts["design"]; ok && !a.Inline && a.Path != "" {
		dir, name := path.Split(a.Path)
		if files, err := r.Store.Facts().DirFiles(tip, strings.TrimSuffix(dir, "/")); err == nil {
			for _, line := range strings.Split(string(files[name]), "\n") {
				if h, ok := strings.CutPrefix(strings.TrimSpace(line), "# "); ok && strings.TrimSpace(h) != "" {
					return strings.TrimSpace(h)
				}
			}
		}
	}
	words := strings.FieldsFunc(feature, func(c rune) bool { return c == '-' || c == '_' || c == '.' })
	title := strings.Join(words, " ")
	if title == "" {
		return feature
	}
	rs := []rune(title)
	rs[0] = unicode.ToUpper(rs[0])
	return string(rs)
}

// prBody is the pull request's description: what the workflow knows, with a marker line so a
// reader (and a later pr create) can tell it was written from the workflow.
func prBody(feature string, st workflow.State, repo ghclient.Repo, baseName string, passed bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<!-- git-exarchos: written from workflow %s by `git exarchos pr create`; run it again to update -->\n\n", feature)
	fmt.Fprintf(&b, "Workflow `%s` (%s), phase **%s**.\n\n", feature, st.Type, st.Phase)
	var docs []string
	for _, name := range slices.Sorted(maps.Keys(st.Artifacts)) {
		a := st.Artifacts[name]
		switch {
		case a.Path != "":
			docs = append(docs, fmt.Sprintf("- %s: [%s](https://%s/%s/blob/%s/%s)", name, a.Path, repo.Host, repo.FullName(), st.Branch, a.Path))
		case a.Inline && a.Text != "":
			docs = append(docs, fmt.Sprintf("- %s: %s", name, oneLine(a.Text, 300)))
		}
	}
	if len(docs) > 0 {
		b.WriteString("### Design and plan\n\n" + strings.Join(docs, "\n") + "\n\n")
	}
	if len(st.Tasks) > 0 {
		b.WriteString("### Tasks\n\n")
		for _, t := range st.Tasks {
			mark := " "
			if t.Status == workflow.TaskCompleted {
				mark = "x"
			}
			line := fmt.Sprintf("- [%s] `%s` %s", mark, t.ID, oneLine(t.Title, 200))
			if t.Status == workflow.TaskFailed {
				line += " (failed: " + oneLine(t.Reason, 200) + ")"
			}
			b.WriteString(line + "\n")
		}
		b.WriteString("\n")
	}
	var open, closed []workflow.Finding
	for _, f := range st.Findings {
		if f.Closed == nil {
			open = append(open, f)
		} else {
			closed = append(closed, f)
		}
	}
	if len(open)+len(closed) > 0 {
		fmt.Fprintf(&b, "### Review findings\n\n%d open, %d resolved.\n\n", len(open), len(closed))
		for _, f := range open {
			fmt.Fprintf(&b, "- **%s** `%s` (%s, %s): %s\n", f.Severity, f.Where(), f.Dimension, f.ID, oneLine(f.Text, 300))
		}
		for _, f := range closed {
			fmt.Fprintf(&b, "- ~~%s `%s` (%s, %s): %s~~ (%s)\n", f.Severity, f.Where(), f.Dimension, f.ID, oneLine(f.Text, 200), f.Closed.By)
		}
		b.WriteString("\n")
	}
	b.WriteString("### How to verify\n\n")
	if !passed {
		b.WriteString("A draft until the workflow's reviews pass (`git exarchos pr create` again then marks it ready).\n\n")
	}
	fmt.Fprintf(&b, "- The workflow, replayed from its events: `git fetch origin '+refs/exarchos/*:refs/exarchos/*' && git exarchos verify --branch %s --base origin/%s --require`\n", st.Branch, baseName)
	seen := map[string]bool{}
	for _, v := range st.Validations {
		if v.AdHoc || seen[v.Command] {
			continue
		}
		seen[v.Command] = true
		fmt.Fprintf(&b, "- `%s` (exit %d at %s)\n", oneLine(v.Command, 200), v.ExitCode, shortSHA(v.Commit))
	}
	out := b.String()
	if len(out) > maxBody {
		cut := strings.LastIndex(out[:maxBody-200], "\n")
		out = out[:cut] + "\n\n… (cut at GitHub's limit: `git exarchos view findings " + feature + " --all` lists everything)\n"
	}
	return out
}

// oneLine is s on one line, at most n bytes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = strings.ToValidUTF8(s[:n], "") + "…"
	}
	return s
}

// BaseBranchName is the branch a base ref names (refs/remotes/origin/main, refs/heads/main: main).
func BaseBranchName(ref string) string {
	if rest, ok := strings.CutPrefix(ref, "refs/remotes/"); ok {
		_, b, _ := strings.Cut(rest, "/")
		return b
	}
	return strings.TrimPrefix(ref, "refs/heads/")
}
