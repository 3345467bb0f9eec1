package hookrun

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/exarchos/git-exarchos/fsmonitor"
	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/hooks"
	"github.com/exarchos/git-exarchos/internal/atomicfile"
	"github.com/exarchos/git-exarchos/project"
)

// Shell is what the Bash check needs about the repository enclosing dir: the directories no
// command may write (git's directories, the session bindings) and the repository's git aliases,
// resolved by git itself (only for a subcommand that is not one of git's own, so it rarely costs a
// process).
func (h *hookRepo) Shell(dir string) hooks.BashContext {
	ctx := hooks.BashContext{Protected: append([]string{SessionsDir()}, userGitConfigs()...)}
	r, err := h.open(dir)
	if err != nil {
		return ctx // no repository: aliases unknown (nil), so an unknown git subcommand is unreadable
	}
	loc := r.Location()
	ctx.Protected = append(ctx.Protected, loc.GitDir, loc.CommonDir)
	ctx.Alias = func(name string) (string, bool) {
		out, err := loc.Git(nil, "config", "--get", "alias."+name)
		if err != nil {
			return "", false
		}
		return strings.TrimSpace(out), true
	}
	return ctx
}

// Changes lists what the worktree the session works in changed: the index and the working tree
// against HEAD and the untracked files (worktreeChanges), and the files the branch changed since
// it left its base (`git diff base...HEAD`, cached by the two commits, so it runs once per new
// commit).
func (h *hookRepo) Changes(w hooks.Bound) ([]hooks.Change, error) {
	head, changes, err := h.worktreeChanges(w.Root)
	if err != nil {
		return nil, err
	}
	branch, err := h.branchChanges(w.Root, head)
	if err != nil {
		return nil, err
	}
	return append(changes, branch...), nil
}

// worktreeChanges is one `git status` (worktreeStatus), which lstats every tracked file: at 10,000
// files that costs more than the rest of the hook together. So its answer is kept under the token
// of the file-system monitor watching the worktree (package fsmonitor), the index's stamp and
// HEAD: while all three stay, nothing the status reads changed, and the kept answer is used. Where
// no monitor answers, one is started for the next calls (ClaudeHookOptions.StartMonitor) and this call runs the
// status; `git config exarchos.hookMonitor false` turns the monitor off.
func (h *hookRepo) worktreeChanges(root string) (head string, changes []hooks.Change, err error) {
	return h.repo.keptWorktreeChanges(root, h.monitor)
}

// WorktreeState is the paths the worktree at root changed (worktreeChanges' answer, kept under
// the monitor's token), for the guards of a command (engine's Env hands it to the facts,
// gitrepo.Facts.WithStatus): while the monitor runs and nothing moved, a transition starts no
// `git status`. A command starts no monitor; the hook does.
func (r *Repo) WorktreeState(root string) ([]string, error) {
	_, changes, err := r.keptWorktreeChanges(root, nil)
	paths := make([]string, len(changes))
	for i, c := range changes {
		paths[i] = c.Path
	}
	return paths, err
}

// keptWorktreeChanges is worktreeChanges for the worktree at root; start, when not nil, starts a
// monitor where none runs.
func (r *Repo) keptWorktreeChanges(root string, start func(root string)) (head string, changes []hooks.Change, err error) {
	loc, err := gitrepo.Discover(root)
	if err != nil {
		return "", nil, err
	}
	index := filepath.Join(loc.GitDir, "index")
	kept := filepath.Join(r.hookCache().dir, "effects", project.HashHex(root))
	token, terr := "", errMonitorOff
	if !r.HookMonitorOff() {
		token, terr = fsmonitor.Token(root)
	}
	if terr == nil {
		if head, changes, ok := readKeptStatus(kept, token, r.statusStamp(loc, index), loc.Head()); ok {
			return head, changes, nil
		}
	} else if errors.Is(terr, fsmonitor.ErrNotRunning) && start != nil {
		start(root)
	}
	stamp := r.statusStamp(loc, index)
	head, changes, err = worktreeStatus(root)
	if err != nil {
		return "", nil, err
	}
	// Kept only when the index did not change while the status read it: a `git add` racing with
	// it would otherwise be hidden under the new stamp.
	if terr == nil && gitrepo.FileStamp(index) != "" && stamp == r.statusStamp(loc, index) {
		writeKeptStatus(kept, token, stamp, head, changes)
	}
	return head, changes, nil
}

// statusStamp is what a kept status depends on besides the worktree the monitor watches: the
// index, and the ignore rules kept outside the worktree (.git/info/exclude, core.excludesFile, and
// which file that is), so an ignore rule added there is seen by the next call.
func (r *Repo) statusStamp(loc gitrepo.Location, index string) string {
	excludes, ok := r.Config("core.excludesFile")
	switch {
	case ok && strings.HasPrefix(excludes, "~/"):
		home, _ := os.UserHomeDir()
		excludes = filepath.Join(home, excludes[2:])
	case !ok:
		xdg := os.Getenv("XDG_CONFIG_HOME")
		if xdg == "" {
			home, _ := os.UserHomeDir()
			xdg = filepath.Join(home, ".config")
		}
		excludes = filepath.Join(xdg, "git", "ignore")
	}
	return gitrepo.FileStamp(index) + "|" + gitrepo.FileStamp(filepath.Join(loc.CommonDir, "info", "exclude")) + "|" + excludes + "=" + gitrepo.FileStamp(excludes)
}

// worktreeStatus is one `git status` of the worktree at root: HEAD's commit, and each path changed
// in the index or the working tree, or untracked.
func worktreeStatus(root string) (head string, changes []hooks.Change, err error) {
	// --no-optional-locks (StatusIn): the status never rewrites the index, as a background reader
	// should not (the agent's own git command would find index.lock taken), so the index's stamp
	// before and after it tells whether anyone else wrote it meanwhile.
	rep, err := gitrepo.StatusIn(root)
	if err != nil {
		return "", nil, err
	}
	if len(rep.Entries) > 0 {
		changes = make([]hooks.Change, 0, len(rep.Entries))
	}
	for _, e := range rep.Entries {
		where := "worktree"
		switch {
		case e.Untracked():
			where = "untracked"
		case e.Staged != '.':
			where = "index"
		}
		changes = append(changes, hooks.Change{Path: e.Path, Where: where})
	}
	return rep.Head, changes, nil
}

// keptStatus is a `git status` answer kept under what it was read at.
type keptStatus struct {
	Token   string         `json:"token"` // the file-system monitor's, read before the status
	Index   string         `json:"index"` // the index's stamp, the same before and after
	Head    string         `json:"head"`
	Changes []hooks.Change `json:"changes"`
}

func readKeptStatus(path, token, index, head string) (string, []hooks.Change, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", nil, false
	}
	var k keptStatus
	if json.Unmarshal(b, &k) != nil || k.Token != token || k.Index != index || index == "" || k.Head != head {
		return "", nil, false
	}
	return k.Head, k.Changes, true
}

func writeKeptStatus(path, token, index, head string, changes []hooks.Change) {
	b, err := json.Marshal(keptStatus{Token: token, Index: index, Head: head, Changes: changes})
	if err == nil {
		_ = os.MkdirAll(filepath.Dir(path), 0o755)
		_ = atomicfile.Write(path, b, 0o644)
	}
}

// errMonitorOff stands for the monitor's token when `exarchos.hookMonitor` is false.
var errMonitorOff = errors.New("exarchos.hookMonitor is false")

// hookMonitorOff reports whether `git config exarchos.hookMonitor false` asked for no monitor:
// then no monitor is started and nothing is kept, and every PostToolUse runs `git status`.
func (r *Repo) HookMonitorOff() bool {
	_, set := r.Config("exarchos.hookMonitor")
	return set && !r.ConfigBool("exarchos.hookMonitor")
}

// startMonitor starts a monitor of root, at most once a minute per tree, so that a monitor that
// cannot run (too many directories for the inotify watch limit) costs one start a minute, not one
// a call.
func (h *hookRepo) monitor(root string) {
	if h.startMonitor == nil {
		return
	}
	r := h.repo
	mark := filepath.Join(r.hookCache().dir, "effects", project.HashHex(root)+".started")
	if fi, err := os.Stat(mark); err == nil && time.Since(fi.ModTime()) < time.Minute {
		return
	}
	_ = os.MkdirAll(filepath.Dir(mark), 0o755)
	_ = os.WriteFile(mark, nil, 0o644) // O_TRUNC marks the time even on an empty file (POSIX)
	_ = h.startMonitor(root)
}

// branchChanges are the files changed between the base branch and head, cached per (base, head).
func (h *hookRepo) branchChanges(root, head string) ([]hooks.Change, error) {
	if head == "" || head == "(initial)" {
		return nil, nil
	}
	r := h.repo
	baseTip := r.Base().Commit // the protected base branch, the one the guards diff against
	if baseTip == "" {
		return nil, nil
	}
	// The entry carries a sha256 of the list, so an empty, cut or edited file is not taken for
	// "the branch changed nothing": it is computed again.
	key := filepath.Join(r.hookCache().dir, "branchdiff", baseTip+"-"+head)
	b, err := os.ReadFile(key)
	sum, list, ok := bytes.Cut(b, []byte{'\n'})
	if err != nil || !ok || string(sum) != project.HashHex(string(list)) {
		diff, err := gitrepo.GitIn(root, "diff", "--name-only", "-z", "--no-renames", baseTip+"..."+head)
		if err != nil {
			return nil, err
		}
		list = []byte(diff)
		_ = os.RemoveAll(filepath.Dir(key)) // one entry: older ones are for other commits
		_ = atomicfile.Write(key, append([]byte(project.HashHex(diff)+"\n"), list...), 0o644)
	}
	b = list
	var out []hooks.Change
	for _, p := range bytes.Split(b, []byte{0}) {
		if len(p) > 0 {
			out = append(out, hooks.Change{Path: string(p), Where: "branch"})
		}
	}
	return out, nil
}
