package project

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"gopkg.in/yaml.v3"

	"github.com/exarchos/git-exarchos/ghclient"
	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/guards"
	"github.com/exarchos/git-exarchos/workflow"
	"github.com/exarchos/git-exarchos/workflowdef"
)

// DefinitionsDir holds the repository's own workflow definitions, one YAML file per type.
const DefinitionsDir = ".exarchos/workflows"

// ConfigFile holds the repository's rule knobs (limits, requireChecks, stopGuard).
const ConfigFile = ".exarchos/config.yaml"

// Rules are what a repository's workflows are held to: the built-in types, the types the base
// branch defines (.exarchos/workflows/*.yaml), and the knobs of .exarchos/config.yaml, all read
// from the tip of the protected base branch (base.go), never from the checked-out HEAD, the
// working tree or local git config — an agent can commit on its own branch and set config, but it
// cannot quietly change what the base holds. One value, built once per process and passed down.
type Rules struct {
	Base *Base `json:"base"`
	// Defs are the types decisions are taken under: built-ins with the config's limits applied,
	// and the base's own types.
	Defs workflow.Definitions `json:"-"`
	// Repository are the base's own types (for describe and lint).
	Repository []*workflow.Definition `json:"definitions"`
	Config     Config                 `json:"config"`
	// ConfigID is the object id of .exarchos/config.yaml at the base ("" when there is none).
	ConfigID string `json:"configId,omitempty"`
	// Problems are the files at the base that did not parse; their types are missing.
	Problems workflowdef.Problems `json:"problems,omitempty"`
	// Legacy are the git config keys of earlier versions that are set here; they are not read
	// (legacy_config.go: a warning, and a refusal where one would have changed a decision).
	Legacy []string `json:"legacy,omitempty"`
	// Unreadable are the rule files that exist at the base but cannot be read (objects missing) or
	// do not parse (.exarchos/config.yaml): every governed command refuses until they can be
	// (Err), never running with the rules relaxed.
	Unreadable workflowdef.Problems `json:"unreadable,omitempty"`
}

// Config is .exarchos/config.yaml:
//
//	requireChecks: true        # synthesize → completed needs the PR's checks green
//	stopGuard: true            # Stop hooks hold the agent on unfinished phases
//	workflows:
//	  feature: {maxFixCycles: 5, planRevisions: 3, synthesisRetries: 3}
type Config struct {
	RequireChecks bool                  `yaml:"requireChecks" json:"requireChecks,omitempty"`
	StopGuard     bool                  `yaml:"stopGuard" json:"stopGuard,omitempty"`
	Workflows     map[string]TypeLimits `yaml:"workflows" json:"workflows,omitempty"`
}

// TypeLimits are one type's limits in the config; zero keeps the definition's.
type TypeLimits struct {
	MaxFixCycles     int `yaml:"maxFixCycles" json:"maxFixCycles,omitempty"`
	PlanRevisions    int `yaml:"planRevisions" json:"planRevisions,omitempty"`
	SynthesisRetries int `yaml:"synthesisRetries" json:"synthesisRetries,omitempty"`
	// CheckpointAfter asks for a checkpoint after this many events (workflow.Limits).
	CheckpointAfter int `yaml:"checkpointAfter" json:"checkpointAfter,omitempty"`
}

// Rules reads the rules from the base branch once per Repo.
func (r *Repo) Rules() *Rules {
	if r.rules == nil {
		r.rules = r.readRules()
	}
	return r.rules
}

func (r *Repo) readRules() *Rules {
	rl := &Rules{Base: r.Base()}
	problem := func(file, msg string) {
		rl.Problems = append(rl.Problems, workflowdef.Problem{File: file, Message: msg})
	}
	unreadable := func(file, msg string) {
		problem(file, msg)
		rl.Unreadable = append(rl.Unreadable, workflowdef.Problem{File: file, Message: msg})
	}
	var repoDefs []*workflow.Definition
	files, err := r.BaseDir(DefinitionsDir)
	if err != nil {
		unreadable(DefinitionsDir, err.Error())
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
			rl.Problems = append(rl.Problems, ps...)
			continue
		}
		def.Source = name + "@" + Short(rl.Base.Commit)
		def.ID = "blob:" + r.Store.ObjectFormat().Sum(plumbing.BlobObject, files[base]).String()
		repoDefs = append(repoDefs, def)
	}
	if src, ok, err := r.BaseFile(ConfigFile); err != nil {
		unreadable(path.Dir(ConfigFile), err.Error()) // the directory's files are read together
	} else if ok {
		dec := yaml.NewDecoder(bytes.NewReader(src))
		dec.KnownFields(true)
		if err := dec.Decode(&rl.Config); err != nil && !errors.Is(err, io.EOF) {
			unreadable(ConfigFile, yamlErrorWithKeys(err, src))
			rl.Config = Config{}
		}
		rl.ConfigID = "blob:" + r.Store.ObjectFormat().Sum(plumbing.BlobObject, src).String()
	}
	// Each definition's limits as the config sets them: the definition value carries the
	// effective limits, so Decide needs nothing else and records what it enforced.
	var all []*workflow.Definition
	for _, t := range workflow.BuiltinTypes() {
		d, _ := workflow.Builtin(t)
		all = append(all, d)
	}
	all = append(all, repoDefs...)
	var defs []*workflow.Definition
	for _, d := range all {
		l, ok := rl.Config.Workflows[d.Type]
		if ok && l != (TypeLimits{}) {
			d = d.Clone()
			if l.MaxFixCycles > 0 {
				d.SetMaxFixCycles(l.MaxFixCycles)
			}
			if l.PlanRevisions > 0 {
				d.Limits.PlanRevisions = l.PlanRevisions
			}
			if l.SynthesisRetries > 0 {
				d.Limits.SynthesisRetries = l.SynthesisRetries
			}
			if l.CheckpointAfter > 0 {
				d.Limits.CheckpointAfter = l.CheckpointAfter
			}
		}
		defs = append(defs, d)
	}
	for t, l := range rl.Config.Workflows {
		if l.MaxFixCycles < 0 || l.PlanRevisions < 0 || l.SynthesisRetries < 0 || l.CheckpointAfter < 0 {
			unreadable(ConfigFile, fmt.Sprintf("workflows.%s: limits must be positive (0 keeps the definition's)", t))
		}
	}
	// One bad repository type must not take the others (or the built-ins) down with it.
	defs = slices.DeleteFunc(defs, func(d *workflow.Definition) bool {
		if _, err := workflow.NewDefinitions(d); err != nil {
			problem(d.Source, err.Error())
			return true
		}
		return false
	})
	ds, err := workflow.NewDefinitions(defs...)
	if err != nil { // unreachable after the filter; kept so a future check cannot drop every type
		problem(DefinitionsDir, err.Error())
	}
	rl.Defs = ds
	for _, d := range defs {
		if !workflow.IsBuiltin(d.Type) {
			rl.Repository = append(rl.Repository, d)
		}
	}
	rl.Legacy = legacySet(r.Store, rl.Defs.Types())
	return rl
}

// Definition returns the definition of a workflow type under these rules, or a rejection that
// says what is missing and how to get it: the workflow keeps its state and does not move.
func (rl *Rules) Definition(typ string) (*workflow.Definition, error) {
	if d, ok := rl.Defs.Lookup(typ); ok {
		return d, nil
	}
	return nil, rl.missing(typ)
}

func (rl *Rules) missing(typ string) *workflow.Rejection {
	b := rl.Base
	msg := fmt.Sprintf("workflow type %q is not defined on the base branch %s", typ, b.Ref)
	switch {
	case b.Commit == "":
		msg += ": " + b.Problem
	default:
		msg += fmt.Sprintf(" (at %s): its definition must be a file in %s/ there", Short(b.Commit), DefinitionsDir)
		for _, p := range rl.Problems {
			msg += "; " + p.String()
		}
		if strings.HasPrefix(b.Ref, "refs/remotes/") {
			remote, _, _ := strings.Cut(strings.TrimPrefix(b.Ref, "refs/remotes/"), "/")
			msg += fmt.Sprintf("; if it was merged there since, run `git fetch %s`", remote)
		} else {
			msg += "; merge the definition into " + strings.TrimPrefix(b.Ref, "refs/heads/")
		}
		msg += ", or name the ref that has it with `git config --global exarchos.definitionsRef <ref>`. The workflow keeps its state and does not move until then"
	}
	return &workflow.Rejection{Code: workflow.CodeDefinitionMissing, Message: msg}
}

// yamlErrorWithKeys is a YAML decoding error on one line, with the key each line it names holds
// ("line 1: cannot unmarshal !!str `maybe` into bool" says neither which key nor what it takes).
func yamlErrorWithKeys(err error, src []byte) string {
	var parts []string
	for _, p := range strings.Split(strings.TrimPrefix(err.Error(), "yaml: unmarshal errors:\n"), "\n") {
		parts = append(parts, strings.TrimSpace(p))
	}
	msg := strings.Join(parts, "; ")
	lines := strings.Split(string(src), "\n")
	return yamlLineRe().ReplaceAllStringFunc(msg, func(m string) string {
		n, _ := strconv.Atoi(yamlLineRe().FindStringSubmatch(m)[1])
		if n < 1 || n > len(lines) {
			return m
		}
		key, _, ok := strings.Cut(strings.TrimSpace(lines[n-1]), ":")
		if !ok || key == "" {
			return m
		}
		return fmt.Sprintf("%s (key %s)", m, strings.TrimSpace(key))
	})
}

var yamlLineRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`line (\d+)`) })

// Err is the refusal of every governed command while the rules cannot be read as they are: a
// rule file at the base that exists but cannot be read or does not parse. A rule that cannot be
// read stops the call; it never relaxes it. (Git config keys of earlier versions only warn, and
// refuse a decision they would have changed: legacyChange.)
func (rl *Rules) Err() error {
	if len(rl.Unreadable) > 0 {
		return &RulesUnreadableError{Base: rl.Base.Ref, Problems: rl.Unreadable}
	}
	return nil
}

// RulesUnreadableError names the rule files at the base branch that cannot be read, and the fix.
type RulesUnreadableError struct {
	Base     string
	Problems workflowdef.Problems
}

func (e *RulesUnreadableError) Error() string {
	var ps []string
	for _, p := range e.Problems {
		ps = append(ps, p.String())
	}
	branch := strings.TrimPrefix(strings.TrimPrefix(e.Base, "refs/heads/"), "refs/remotes/")
	return fmt.Sprintf("the rules on the base branch %s cannot be read: %s. Every governed command refuses, and the hooks refuse policed tools, until they can: "+
		"fix the file on %s (`git exarchos lint` checks definitions; config.yaml takes requireChecks: true|false, stopGuard: true|false, workflows: {<type>: {maxFixCycles, planRevisions, synthesisRetries}}), "+
		"or, where objects are missing, `git fetch` the base branch (a partial or --shared clone: `git fsck` names what is gone)",
		e.Base, strings.Join(ps, "; "), branch)
}

// Types lists the types under these rules.
func (rl *Rules) Types() []string { return rl.Defs.Types() }

// shellRunner runs shell guards with sh (RunGate), under the guard's timeout, in a clean checkout of the
// workflow branch's tip: a guard judges what is committed, never an uncommitted file that the
// next commit may not carry.
type shellRunner struct{ loc gitrepo.Location }

func (sr shellRunner) RunGuard(g workflow.ShellGuard, s workflow.State) (bool, string, error) {
	tip, ok, err := sr.loc.BranchTip(s.Branch)
	if err != nil {
		return false, "", err
	}
	if !ok {
		return false, fmt.Sprintf("branch %s does not exist, so there is no commit to check", s.Branch), nil
	}
	dir, done, err := sr.loc.CleanCheckout(tip)
	if err != nil {
		return false, "", err
	}
	defer done()
	timeout := time.Duration(g.TimeoutMs) * time.Millisecond
	if timeout <= 0 {
		timeout = workflowdef.DefaultGuardTimeout
	}
	// The same runner as the quality gates (RunGate, gate_run.go): sh -c under a timeout that
	// kills the whole process group, only the end of the output kept.
	run, err := RunGate(dir, g.Run, timeout, "EXARCHOS_FEATURE="+s.Feature, "EXARCHOS_PHASE="+s.Phase, "EXARCHOS_TYPE="+s.Type, "EXARCHOS_COMMIT="+tip)
	if err != nil {
		return false, "", err
	}
	if run.TimedOut {
		return false, fmt.Sprintf("timed out after %s", timeout), nil
	}
	tail := run.Output
	if len(tail) > 400 {
		tail = "…" + tail[len(tail)-400:]
	}
	if run.ExitCode != 0 {
		return false, fmt.Sprintf("exit %d: %s", run.ExitCode, tail), nil
	}
	return true, tail, nil
}

// evaluator is the guard evaluator of this repository: git facts, and shell guards run in a clean
// checkout of the workflow branch.
func (r *Repo) Evaluator() *guards.Evaluator {
	return &guards.Evaluator{Facts: r.Store.Facts(), Shell: shellRunner{loc: r.Store.Loc},
		Base: r.Base().Commit, Validation: r.DeclaredValidation(), OfflineBase: r.offlineBase(), Agent: r.InAgent()}
}

// InAgent reports whether the caller runs in an agent's session (its environment's variables):
// the guards word their fixes for it, and the user's steps are said as the user's.
func (r *Repo) InAgent() bool {
	_, ok := r.Environ.Detect()
	return ok
}

// offlineBase is guards.Evaluator.OfflineBase: the base branch's short name where origin is no
// GitHub repository, "" where it is one. It reads the config only (no git process: the hook's
// summaries use it).
func (r *Repo) offlineBase() string {
	if url, ok := r.Store.Config("remote.origin.url"); ok {
		if _, err := ghclient.ParseRemoteURL(strings.TrimSpace(url)); err == nil {
			return ""
		}
	}
	ref := r.Base().Ref
	if short, ok := strings.CutPrefix(ref, "refs/heads/"); ok {
		return short
	}
	return strings.TrimPrefix(ref, "refs/remotes/")
}

// factEvaluator reads facts only: no shell guard runs (the hook's summaries stay cheap).
func (r *Repo) FactEvaluator() *guards.Evaluator {
	ev := r.Evaluator()
	ev.Shell = nil
	return ev
}

// ValidateFile declares the validation commands of built-in workflow types, one shell command a
// line (# comments), read from the base branch like every rule.
const ValidateFile = ".exarchos/validate"

// declaredValidation reads ValidateFile at the base branch's tip; nil when there is none.
func (r *Repo) DeclaredValidation() []string {
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
func (r *Repo) ForkPoint(branch string) string {
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

// Short is an object id cut to the twelve characters messages show.
func Short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
