package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/exarchos/git-exarchos/guards"
	"github.com/exarchos/git-exarchos/hooks"
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
	cacheFile := filepath.Join(r.Store.Loc.CommonDir, "exarchos-cache", "defs", commit)
	if b, err := os.ReadFile(cacheFile); err == nil {
		var cached DefinitionSet
		if json.Unmarshal(b, &cached) == nil && cached.Commit == commit && workflow.Register(cached.Defs...) == nil {
			r.defs = &cached
			return r.defs
		}
	}
	defer func() {
		// A commit never changes, so the parsed definitions of one are exact; the hook reads them
		// from here instead of starting git.
		if b, err := json.Marshal(r.defs); err == nil {
			_ = hooks.WriteFileAtomic(cacheFile, b, 0o644)
		}
	}()
	out, err := r.Store.Loc.Git(nil, "ls-tree", "-z", "--full-tree", commit, DefinitionsDir+"/")
	if err != nil || strings.TrimSpace(out) == "" {
		return r.defs
	}
	for _, entry := range strings.Split(out, "\x00") {
		meta, name, ok := strings.Cut(entry, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) < 3 || f[1] != "blob" || (path.Ext(name) != ".yaml" && path.Ext(name) != ".yml") {
			continue
		}
		src, err := r.Store.Loc.Git(nil, "cat-file", "blob", f[2])
		if err != nil {
			r.defs.Problems = append(r.defs.Problems, workflowdef.Problem{File: name, Message: err.Error()})
			continue
		}
		def, ps := workflowdef.Parse(name, []byte(src))
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
	return &guards.Evaluator{Facts: r.Store.Facts(), Shell: shellRunner{dir: r.Store.Loc.WorkTree}}
}
