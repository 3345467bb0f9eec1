package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/exarchos/git-exarchos/guards"
	"github.com/exarchos/git-exarchos/workflow"
	"github.com/exarchos/git-exarchos/workflowdef"
)

// DefinitionsDir holds the repository's own workflow definitions, one YAML file per type.
const DefinitionsDir = ".exarchos/workflows"

// Repository-defined workflows are read from the commit HEAD points at, never from the working
// tree and never from workflow refs: a definition is code (its shell guards run), so it must be
// something the repository's own history holds — committed, reviewable, the same for everyone on
// that commit. An uncommitted edit takes effect once committed; `git exarchos lint-workflow`
// checks a file before that.

// DefinitionSet is what HEAD defines: the definitions that parsed, and the problems of the others.
type DefinitionSet struct {
	Commit   string                 `json:"commit"`
	Defs     []*workflow.Definition `json:"definitions"`
	Problems workflowdef.Problems   `json:"problems,omitempty"`
}

// headCommit is the commit HEAD points at, read from files (no process): "" on an unborn branch.
func (r *Repo) headCommit() string {
	b, err := os.ReadFile(filepath.Join(r.Store.Loc.GitDir, "HEAD"))
	if err != nil {
		return ""
	}
	head := strings.TrimSpace(string(b))
	if ref, ok := strings.CutPrefix(head, "ref: "); ok {
		sha, found, err := r.Store.Facts().ResolveRef(ref)
		if err != nil || !found {
			return ""
		}
		return sha
	}
	return head
}

// Definitions reads and registers the workflow types defined at HEAD. It runs once per Repo.
func (r *Repo) Definitions() *DefinitionSet {
	if r.defs != nil {
		return r.defs
	}
	r.defs = &DefinitionSet{}
	commit := r.headCommit()
	if commit == "" || r.Store.Loc.WorkTree == "" {
		return r.defs
	}
	r.defs.Commit = commit
	// Read in process from the commit's tree: a repository without .exarchos/workflows costs a
	// commit and a tree read or two, and nothing is started or cached on disk.
	files, err := r.Store.Facts().DirFiles(commit, DefinitionsDir)
	if err != nil {
		r.defs.Problems = append(r.defs.Problems, workflowdef.Problem{File: DefinitionsDir, Message: err.Error()})
		return r.defs
	}
	names := make([]string, 0, len(files))
	for name := range files {
		if ext := path.Ext(name); ext == ".yaml" || ext == ".yml" {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, base := range names {
		name := DefinitionsDir + "/" + base
		def, ps := workflowdef.Parse(name, files[base])
		if len(ps) > 0 {
			r.defs.Problems = append(r.defs.Problems, ps...)
			continue
		}
		def.Source = name + "@" + commit[:12]
		if err := workflow.Register(def); err != nil {
			r.defs.Problems = append(r.defs.Problems, workflowdef.Problem{File: name, Message: err.Error()})
			continue
		}
		r.defs.Defs = append(r.defs.Defs, def)
	}
	return r.defs
}

// shellRunner runs shell guards in the worktree with sh, under the guard's timeout.
type shellRunner struct{ dir string }

func (sr shellRunner) RunGuard(g workflow.ShellGuard, s workflow.State) (bool, string, error) {
	timeout := time.Duration(g.TimeoutMs) * time.Millisecond
	if timeout <= 0 {
		timeout = workflowdef.DefaultGuardTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", g.Run)
	cmd.Dir = sr.dir
	cmd.Env = append(os.Environ(), "EXARCHOS_FEATURE="+s.Feature, "EXARCHOS_PHASE="+s.Phase, "EXARCHOS_TYPE="+s.Type)
	cmd.WaitDelay = 2 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	tail := strings.TrimSpace(out.String())
	if len(tail) > 400 {
		tail = "…" + tail[len(tail)-400:]
	}
	if ctx.Err() == context.DeadlineExceeded {
		return false, fmt.Sprintf("timed out after %s", timeout), nil
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return false, fmt.Sprintf("exit %d: %s", exit.ExitCode(), tail), nil
	}
	if err != nil {
		return false, "", err
	}
	return true, tail, nil
}

// evaluator is the guard evaluator of this repository: git facts, and shell guards run in the
// worktree.
func (r *Repo) evaluator() *guards.Evaluator {
	return &guards.Evaluator{Facts: r.Store.Facts(), Shell: shellRunner{dir: r.Store.Loc.WorkTree},
		Base: r.Base().Commit, Validation: r.declaredValidation()}
}

// factEvaluator reads facts only: no shell guard runs (the hook's summaries stay cheap).
func (r *Repo) factEvaluator() *guards.Evaluator {
	ev := r.evaluator()
	ev.Shell = nil
	return ev
}

// ValidateFile declares the validation commands of built-in workflow types, one shell command a
// line (# comments), read from the base branch like every rule.
const ValidateFile = ".exarchos/validate"

// declaredValidation reads ValidateFile at the base branch's tip; nil when there is none.
func (r *Repo) declaredValidation() []string {
	b, ok, err := r.BaseFile(ValidateFile)
	if err != nil || !ok {
		return nil
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return out
}

// forkPoint is the branch's merge-base with the base branch (the branch's tip when it has no base
// or is the base), recorded at init so that what the workflow's branch did stays measurable after
// its work is merged. A branch with no commit yet starts from the empty tree.
func (r *Repo) forkPoint(branch string) string {
	facts := r.Store.Facts()
	tip, err := facts.BranchTip(branch)
	if err != nil || tip == "" {
		return guards.EmptyTree
	}
	if base := r.Base().Commit; base != "" {
		if mb, ok, err := facts.MergeBase(tip, base); err == nil && ok {
			return mb
		}
	}
	return tip
}
