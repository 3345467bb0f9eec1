package hookrun

// The controls: what the agent must not change, watched after every tool call (PostToolUse). The
// Bash reader refuses the commands it can read that write them; this catches what it cannot read
// (python writing .claude/settings.local.json, `git checkout <rev> -- .claude/settings.json`, a
// script writing .git/hooks/post-checkout or an alias into .git/config, `git fast-import --force`
// rewinding a workflow ref). It must cost next to nothing on every call, so the common path is one
// small file read and a stat per watched path, compared with the stamps kept from the last call;
// only when a stamp moved is anything read, and then what matters in the file is compared:
//
//   - Claude Code's settings (the project's .claude/settings.json and settings.local.json, the
//     user's ~/.claude/settings.json): disableAllHooks, allowManagedHooksOnly and hooks;
//   - the other clients' hook files (.codex/hooks.json, .gemini/ and .qwen/settings.json, in the
//     worktree and the home directory, ~/.copilot/hooks/exarchos.json) and Codex's config.toml:
//     their hooks and what turns them off (hook_controls_clients.go);
//   - git's configuration (the repository's config, config.worktree and the files they include):
//     the keys the Bash reader refuses to set (aliases, core.hooksPath, includes, exarchos.*,
//     refspecs reaching refs/exarchos) and core.fsmonitor, which git runs;
//   - the git hooks (.git/hooks, or core.hooksPath): every file but git's *.sample;
//   - refs/exarchos/*: a ref now at a commit git exarchos did not write last (gitstore's
//     ref-write log) moved by something else; its workflow is held (policed tools denied) until
//     the ref is restored or a human accepts it (`git exarchos hooks accept`).
//
// A changed control blocks the call at once with the exact undo (the kept copy put back), and
// keeps blocking until it is undone or a human accepts it. The kept copies and stamps live under
// <common git dir>/exarchos/controls/, which the hook refuses the agent to write.

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/hooks"
	"github.com/exarchos/git-exarchos/internal/atomicfile"
	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/trust"
)

const controlsDir = "exarchos/controls"

// changedStamp is the stamp of a control that differs from what was accepted: no file has it, so
// every call reads that control again until it is undone or accepted.
const changedStamp = "changed"

// controlState is what the last call saw.
type controlState struct {
	// Stamps: every watched path (files and the directories whose entries matter) → its stat stamp.
	Stamps map[string]string `json:"stamps"`
	// Controls: each control file → the digest of what matters in it ("" when it does not exist).
	Controls map[string]string `json:"controls"`
	// Refs: each refs/exarchos/* ref → its commit; RefStamps: each loose ref → the settled stamp
	// of the file its commit was read from, a ref without one read again next time. Both are kept
	// as lines after the JSON (hook_controls_refs.go); OldRefs is Refs as an older version kept it.
	Refs      map[string]string `json:"-"`
	RefStamps map[string]string `json:"-"`
	OldRefs   map[string]string `json:"refs,omitempty"`
	// refFiles: each entry of the loose refs' directory → its stamp, for the stamps file.
	refFiles map[string]string
	// LogEnd is where gitstore's ref-write log was read to; MovesEnd, the journal of this
	// worktree's own moves (hook_controls_moves.go).
	LogEnd   int64 `json:"logEnd"`
	MovesEnd int64 `json:"movesEnd,omitempty"`
}

// controlKind is how a control file's content is judged.
type controlKind int

const (
	kindSettings controlKind = iota
	kindConfig
	kindGitHook
	kindClientSettings // another client's hook file (hook_controls_clients.go)
)

// control is one watched file.
type control struct {
	path string
	kind controlKind
}

// controlsPath is the state kept for the worktree at root: each worktree has its own settings
// files, so its own baseline.
func (r *Repo) controlsPath(root string) string {
	return filepath.Join(r.CommonDir(), filepath.FromSlash(controlsDir), "state-"+project.HashHex(root)[:16]+".json")
}

// savedCopy is where the content of a control file was kept when it was last accepted.
func (r *Repo) savedCopy(path string) string {
	return filepath.Join(r.CommonDir(), filepath.FromSlash(controlsDir), "saved", project.HashHex(path)[:24])
}

// CheckControls is PostToolUse's watch: "" when nothing the agent must not change has changed
// since the last call, else the block with the exact undo. root is the worktree the call ran in.
func (r *Repo) CheckControls(root string) string {
	if r.stampsHold(root) {
		return "" // the common path: nothing watched was touched
	}
	prev, err := r.loadControls(root)
	if err != nil {
		prev = nil
	}
	cur, controls := r.observeControls(root, prev)
	if prev == nil {
		r.acceptControls(root, cur, controls)
		return "" // the first call: what is there is the baseline
	}
	var problems []string
	for _, c := range controls {
		before, known := prev.Controls[c.path]
		now := cur.Controls[c.path]
		if !known && sameControl(now, "") || sameControl(before, now) {
			continue
		}
		if !known {
			before = "" // a control file that appeared (an include, a hook in a new hooksPath)
		}
		problems = append(problems, r.controlChanged(c, before))
		cur.Controls[c.path] = before     // kept as accepted: blocks until undone or accepted
		cur.Stamps[c.path] = changedStamp // and looked at again on every call until then
	}
	problems = append(problems, r.refsMovedOutside(prev, cur)...)
	cur.MovesEnd = prev.MovesEnd
	r.saveControls(root, cur, controls, prev)
	if len(problems) == 0 {
		return ""
	}
	return "git exarchos: something changed what the hooks and git run, outside git exarchos, during this tool call. " +
		"The agent may not change these; " + strings.Join(problems, "; ") +
		". If the user made the change, they accept it with `git exarchos hooks accept` in their own terminal."
}

// stampsHold reports whether every watched path still has the stamp the last call kept. The
// stamps have a file of their own, "<stamp>\t<path>" lines, so the common path decodes no JSON;
// the loose refs follow in a block of their own (refFilesLine).
func (r *Repo) stampsHold(root string) bool {
	refsToken := r.refsToken(root) // before the stamps are read: a change after it changes the next one
	b, err := os.ReadFile(r.stampsPath(root))
	if err != nil || len(b) == 0 {
		return false
	}
	stampsSum := stampsSum(b)
	var refsDir string
	var names, kept []string
	for len(b) > 0 {
		line, rest, _ := bytes.Cut(b, []byte{'\n'})
		b = rest
		stamp, p, ok := bytes.Cut(line, []byte{'\t'})
		switch {
		case !ok:
			return false
		case refsDir != "":
			names, kept = append(names, string(p)), append(kept, string(stamp))
		case string(stamp) == refFilesLine:
			refsDir = string(p)
		case gitrepo.FileStamp(string(p)) != string(stamp):
			return false
		}
	}
	return refsDir == "" || r.refsUnchanged(root, refsToken, stampsSum) || r.refFilesHoldUnder(root, refsToken, stampsSum, refsDir, names, kept)
}

func (r *Repo) stampsPath(root string) string {
	return filepath.Join(r.CommonDir(), filepath.FromSlash(controlsDir), "stamps-"+project.HashHex(root)[:16])
}

// writeStamps keeps st's stamps for the next call's common path (written after the state, so a
// crash between the two leaves stamps that send the next call to read the state again).
func (r *Repo) writeStamps(root string, st *controlState) {
	var b strings.Builder
	for p, s := range st.Stamps {
		if s == changedStamp || strings.ContainsAny(p, "\t\n") {
			_ = os.Remove(r.stampsPath(root)) // a control differs: every call reads them all
			return
		}
		b.WriteString(s + "\t" + p + "\n")
	}
	if st.refFiles != nil {
		b.WriteString(refFilesLine + "\t" + r.refsDir() + "\n")
		for name, s := range st.refFiles {
			if strings.ContainsAny(name, "\t\n") {
				_ = os.Remove(r.stampsPath(root))
				return
			}
			b.WriteString(s + "\t" + name + "\n")
		}
	}
	_ = atomicfile.Write(r.stampsPath(root), []byte(b.String()), 0o644)
}

func (r *Repo) loadControls(root string) (*controlState, error) {
	b, err := os.ReadFile(r.controlsPath(root))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	st, err := decodeControls(b)
	if err != nil {
		return nil, nil // damaged: judged as the first call would (nothing kept to compare)
	}
	r.applyControlsJournal(root, st)
	return st, nil
}

// observeControls reads what is watched now: the control files and their digests, the stamps of
// every watched path, the workflow refs (those whose files did not move since prev read from it).
func (r *Repo) observeControls(root string, prev *controlState) (*controlState, []control) {
	st := &controlState{Stamps: map[string]string{}, Controls: map[string]string{}, Refs: map[string]string{}}
	var controls []control
	add := func(p string, k controlKind) {
		controls = append(controls, control{p, k})
		st.Stamps[p] = gitrepo.FileStamp(p)
		st.Controls[p] = controlDigest(p, k)
	}
	loc := r.Location()
	if root != "" {
		st.Stamps[filepath.Join(root, ".claude")] = gitrepo.FileStamp(filepath.Join(root, ".claude"))
		add(filepath.Join(root, ".claude", "settings.json"), kindSettings)
		add(filepath.Join(root, ".claude", "settings.local.json"), kindSettings)
	}
	if home, err := os.UserHomeDir(); err == nil {
		add(filepath.Join(home, ".claude", "settings.json"), kindSettings)
	}
	for _, p := range clientControlPaths(root, userHome()) {
		add(p, kindClientSettings)
	}
	configs := append([]string{filepath.Join(loc.CommonDir, "config"), filepath.Join(loc.GitDir, "config.worktree")}, userGitConfigs()...)
	hooksDir := filepath.Join(loc.CommonDir, "hooks")
	for seen := map[string]bool{}; len(configs) > 0; configs = configs[1:] {
		p := configs[0]
		if seen[p] || len(seen) > 16 {
			continue
		}
		seen[p] = true
		add(p, kindConfig)
		includes, hp := configIncludes(p)
		configs = append(configs, includes...)
		if hp != "" {
			hooksDir = hp
			if !filepath.IsAbs(hp) {
				hooksDir = filepath.Join(root, hp)
			}
		}
	}
	st.Stamps[hooksDir] = gitrepo.FileStamp(hooksDir)
	if entries, err := os.ReadDir(hooksDir); err == nil {
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".sample") {
				add(filepath.Join(hooksDir, e.Name()), kindGitHook)
			}
		}
	}
	refsDir := filepath.Join(loc.CommonDir, "refs", "exarchos")
	st.Stamps[refsDir] = gitrepo.FileStamp(refsDir)
	for _, p := range []string{filepath.Join(loc.CommonDir, "packed-refs"), filepath.Join(loc.CommonDir, "reftable", "tables.list")} {
		st.Stamps[p] = gitrepo.FileStamp(p)
	}
	st.refFiles = r.stampRefFiles()
	st.Refs, st.RefStamps = r.workflowRefs(prev)
	return st, controls
}

// DetectRefRewrites runs the hook's check of the workflow refs now (fsck calls it; verify may) and
// returns the workflows held because their ref moved outside git exarchos. Before the hook's first
// call in this repository there is nothing to compare with: only what it held is reported.
func (r *Repo) DetectRefRewrites() []HeldRef {
	root := r.WorkTree()
	if prev, err := r.loadControls(root); err == nil && prev != nil {
		cur := &controlState{}
		cur.Refs, cur.RefStamps = r.workflowRefs(prev)
		r.refsMovedOutside(prev, cur)
		prev.Refs, prev.RefStamps, prev.LogEnd = cur.Refs, cur.RefStamps, cur.LogEnd
		if b, err := encodeControls(prev); err == nil {
			_ = os.Remove(r.stampsPath(root)) // the hook's next call compares the refs again
			_ = atomicfile.Write(r.controlsPath(root), b, 0o644)
		}
	}
	return r.RefRewrites()
}

// noneRelevant is the digest of a control file that holds nothing that matters: the same, for the
// check, as no file (creating settings.local.json with permissions changes nothing), but put back
// by copy, not by removal.
const noneRelevant = "-"

// sameControl reports whether two digests say the same about what matters.
func sameControl(a, b string) bool {
	return a == b || (a == "" || a == noneRelevant) && (b == "" || b == noneRelevant)
}

// controlDigest is a digest of what matters in a control file ("" when it does not exist).
func controlDigest(p string, k controlKind) string {
	b, err := os.ReadFile(p)
	if err != nil {
		return ""
	}
	var what []byte
	switch k {
	case kindSettings:
		var s map[string]json.RawMessage
		if json.Unmarshal(b, &s) != nil {
			what = append([]byte("unreadable:"), b...) // Claude Code ignores a settings file it cannot read
			break
		}
		if s["disableAllHooks"] == nil && s["allowManagedHooksOnly"] == nil && s["hooks"] == nil {
			return noneRelevant // no hook setting (the client writes permissions here)
		}
		what, _ = json.Marshal(map[string]json.RawMessage{"disableAllHooks": s["disableAllHooks"], "allowManagedHooksOnly": s["allowManagedHooksOnly"], "hooks": s["hooks"]})
	case kindClientSettings:
		if what = clientSettingsWhat(p, b); what == nil {
			return noneRelevant
		}
	case kindConfig:
		lines := protectedConfigLines(b)
		if len(lines) == 0 {
			return noneRelevant // nothing that changes what git runs
		}
		what = []byte(strings.Join(lines, "\n"))
	default:
		what = b
	}
	sum := sha256.Sum256(what)
	return hex.EncodeToString(sum[:12])
}

// protectedConfigLines are the settings of a config file that change what git and the hooks run,
// as "key=value" lines in file order.
func protectedConfigLines(b []byte) []string {
	var out []string
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			head, rest, _ := strings.Cut(line[1:], "]")
			name, sub, hasSub := strings.Cut(head, " ")
			section = strings.ToLower(strings.TrimSpace(name))
			if hasSub {
				section += "." + strings.Trim(strings.TrimSpace(sub), `"`)
			}
			if line = strings.TrimSpace(rest); line == "" {
				continue
			}
		}
		key, value, _ := strings.Cut(line, "=")
		full := section + "." + strings.ToLower(strings.TrimSpace(key))
		value = strings.TrimSpace(value)
		lk := strings.ToLower(full)
		if hooks.ProtectedConfigKey(full, value) || runsProgram(lk) {
			out = append(out, full+"="+value)
		}
	}
	return out
}

// userGitConfigs are the user's git configuration files, which git reads in every repository
// (issue 38 item 7: core.hooksPath written into ~/.gitconfig ran the agent's hooks in the user's
// next git command): GIT_CONFIG_GLOBAL when set, else ~/.gitconfig and the XDG one. Watched as the
// repository's config is, and no file tool may write them.
func userGitConfigs() []string {
	if g := os.Getenv("GIT_CONFIG_GLOBAL"); g != "" {
		if g == os.DevNull {
			return nil
		}
		return []string{g}
	}
	var out []string
	home, err := os.UserHomeDir()
	if err == nil {
		out = append(out, filepath.Join(home, ".gitconfig"))
	}
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		out = append(out, filepath.Join(x, "git", "config"))
	} else if err == nil {
		out = append(out, filepath.Join(home, ".config", "git", "config"))
	}
	return out
}

// programKeys are the config keys (lower case; "*" a subsection) whose value git runs as a
// program, or which change the program it runs, beside those the Bash reader refuses to set
// (hooks.ProtectedConfigKey): a smudge filter or a pager runs in the user's next checkout or log.
var programKeys = []string{
	"core.fsmonitor", "core.editor", "core.pager", "core.sshcommand", "core.askpass", "core.gitproxy",
	"core.alternaterefscommand", "core.worktree", "sequence.editor", "diff.external", "gpg.program", "gpg.*.program",
	"filter.*.smudge", "filter.*.clean", "filter.*.process", "diff.*.textconv", "diff.*.command", "merge.*.driver",
	"credential.helper", "credential.*.helper", "pager.*", "difftool.*.cmd", "mergetool.*.cmd", "uploadpack.packobjectshook",
	"remote.*.uploadpack", "remote.*.receivepack", "remote.*.proxy", "http.proxy", "protocol.allow", "protocol.*.allow",
	"web.browser", "browser.*.cmd", "man.*.cmd", "sendemail.smtpserver", "ssh.variant", "safe.directory",
}

// runsProgram reports whether the config key lk (lower case, "section.sub.key") is one of programKeys.
func runsProgram(lk string) bool {
	for _, k := range programKeys {
		pre, post, wild := strings.Cut(k, "*")
		if k == lk || wild && strings.HasPrefix(lk, pre) && strings.HasSuffix(lk, post) && len(lk) > len(pre)+len(post) {
			return true
		}
	}
	return false
}

// configIncludes are the files a config file includes, and the core.hooksPath it sets.
func configIncludes(p string) (includes []string, hooksPath string) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, ""
	}
	for _, kv := range protectedConfigLines(b) {
		k, v, _ := strings.Cut(kv, "=")
		v = strings.Trim(v, `"`)
		lk := strings.ToLower(k)
		switch {
		case lk == "include.path" || strings.HasPrefix(lk, "includeif.") && strings.HasSuffix(lk, ".path"):
			if strings.HasPrefix(v, "~/") {
				if home, err := os.UserHomeDir(); err == nil {
					v = filepath.Join(home, v[2:])
				}
			} else if !filepath.IsAbs(v) {
				v = filepath.Join(filepath.Dir(p), v)
			}
			includes = append(includes, v)
		case lk == "core.hookspath":
			hooksPath = v
		}
	}
	return includes, hooksPath
}

// controlChanged says what changed in a control file and how to put it back exactly.
func (r *Repo) controlChanged(c control, before string) string {
	what := map[controlKind]string{kindSettings: "Claude Code's hook settings", kindConfig: "git configuration that changes what git runs", kindGitHook: "a git hook", kindClientSettings: "an agent client's hook settings"}[c.kind]
	if before == "" {
		return fmt.Sprintf("%s %s was added (undo: `rm -- %s`)", what, c.path, hooks.ShellQuote(c.path))
	}
	saved := r.savedCopy(c.path)
	if _, err := os.Stat(saved); err != nil {
		return fmt.Sprintf("%s %s changed (no copy was kept to put back: restore it by hand)", what, c.path)
	}
	return fmt.Sprintf("%s %s changed (undo: `cp -- %s %s`)", what, c.path, hooks.ShellQuote(saved), hooks.ShellQuote(c.path))
}

// saveControls keeps cur, and a copy of each control file whose accepted digest changed.
func (r *Repo) saveControls(root string, cur *controlState, controls []control, prev *controlState) {
	for _, c := range controls {
		if now := cur.Controls[c.path]; now != "" && (prev == nil || prev.Controls[c.path] != now) && controlDigest(c.path, c.kind) == now {
			if b, err := os.ReadFile(c.path); err == nil {
				_ = os.MkdirAll(filepath.Dir(r.savedCopy(c.path)), 0o755)
				_ = atomicfile.Write(r.savedCopy(c.path), b, 0o600)
			}
		}
	}
	b, err := encodeControls(cur)
	if err != nil {
		return
	}
	_ = os.MkdirAll(filepath.Dir(r.controlsPath(root)), 0o755)
	_ = os.Remove(r.stampsPath(root))
	if atomicfile.Write(r.controlsPath(root), b, 0o644) == nil {
		r.writeStamps(root, cur)
	}
}

// acceptControls takes what is there now as accepted (the first call, and `hooks accept`).
func (r *Repo) acceptControls(root string, cur *controlState, controls []control) {
	_, cur.LogEnd, _ = gitstore.RefWritesSince(r.CommonDir(), 0)
	cur.MovesEnd = r.controlsJournalEnd(root)
	r.saveControls(root, cur, controls, nil)
}

// refsMovedOutside compares the workflow refs with the last call's: a ref not at the commit git
// exarchos last wrote to it (its ref-write log since then) was moved by something else, and its
// workflow is held.
func (r *Repo) refsMovedOutside(prev, cur *controlState) []string {
	own, end, err := gitstore.RefWritesSince(r.CommonDir(), prev.LogEnd)
	if err != nil {
		return []string{"the ref-write log cannot be read (" + err.Error() + ")"}
	}
	cur.LogEnd = end
	// Only the refs that differ are sorted (for the report's order): with a thousand refs, sorting
	// them all was most of this comparison.
	var sorted []string
	for n, h := range prev.Refs {
		if cur.Refs[n] != h {
			sorted = append(sorted, n)
		}
	}
	for n := range cur.Refs {
		if _, ok := prev.Refs[n]; !ok {
			sorted = append(sorted, n)
		}
	}
	sort.Strings(sorted)
	var out []string
	for _, name := range sorted {
		before, now := prev.Refs[name], cur.Refs[name]
		if w, ok := own[name]; ok && (w == now || now == "" && strings.Trim(w, "0") == "") {
			continue
		}
		feature := strings.TrimPrefix(name, gitstore.RefPrefix)
		if h, held := r.heldRef(feature); held && h.From == now {
			_ = os.Remove(r.heldPath(feature)) // put back where it was: no longer held
			continue
		}
		h := HeldRef{Feature: feature, Ref: name, From: before, To: now, Seen: time.Now().UTC().Format(time.RFC3339)}
		r.hold(h)
		out = append(out, fmt.Sprintf("%s moved from %s to %s by something other than git exarchos, so workflow %s is held (its policed tools are denied) until the user restores it (`%s`) or accepts it (`git exarchos hooks accept %s`)",
			name, OrNone(before), OrNone(now), feature, h.Undo(), feature))
	}
	return out
}

func OrNone(h string) string {
	if h == "" {
		return "nothing"
	}
	return project.Short(h)
}

// HeldRef is a workflow ref moved outside git exarchos, as the hook saw it.
type HeldRef struct {
	Feature string `json:"feature"`
	Ref     string `json:"ref"`
	From    string `json:"from,omitempty"` // the commit it was at ("" : it did not exist)
	To      string `json:"to,omitempty"`   // where it was moved ("" : deleted)
	Seen    string `json:"seen"`
}

// Undo is the command that puts the ref back where it was.
func (h HeldRef) Undo() string {
	switch {
	case h.From == "":
		return "git update-ref -d " + h.Ref + " " + h.To
	case h.To == "":
		return "git update-ref " + h.Ref + " " + h.From
	}
	return "git update-ref " + h.Ref + " " + h.From + " " + h.To
}

func (r *Repo) heldPath(feature string) string {
	return filepath.Join(r.CommonDir(), filepath.FromSlash(controlsDir), "held", feature+".json")
}

func (r *Repo) hold(h HeldRef) {
	if old, ok := r.heldRef(h.Feature); ok {
		h.From = old.From // held already: the first commit it left is the one to go back to
	}
	b, _ := json.Marshal(h)
	_ = os.MkdirAll(filepath.Dir(r.heldPath(h.Feature)), 0o755)
	_ = atomicfile.Write(r.heldPath(h.Feature), b, 0o644)
}

func (r *Repo) heldRef(feature string) (HeldRef, bool) {
	b, err := os.ReadFile(r.heldPath(feature))
	if err != nil {
		return HeldRef{}, false
	}
	var h HeldRef
	if json.Unmarshal(b, &h) != nil {
		return HeldRef{Feature: feature, Ref: gitstore.RefName(feature)}, true // damaged: still held
	}
	return h, true
}

// Held says why feature is held (its ref moved outside git exarchos and was neither restored nor
// accepted), or "". A ref put back where it was lifts the hold. One stat when nothing is held.
func (r *Repo) Held(feature string) string {
	h, ok := r.heldRef(feature)
	if !ok {
		return r.heldDecision(feature)
	}
	if cur, _, err := gitrepo.ReadRef(r.CommonDir(), h.Ref); err == nil && h.From != "" && cur.String() == h.From {
		_ = os.Remove(r.heldPath(feature))
		return r.heldDecision(feature)
	}
	return fmt.Sprintf("git exarchos: workflow %s is held: %s was moved from %s to %s by something other than git exarchos (seen %s), which may have rewritten its log. "+
		"Policed tools are denied until the user restores it (`%s`) or accepts it (`git exarchos hooks accept %s`) in their own terminal.",
		feature, h.Ref, OrNone(h.From), OrNone(h.To), h.Seen, h.Undo(), feature)
}

// heldForDecision reports whether feature has a decision run detached not yet accepted.
func (r *Repo) heldForDecision(feature string) bool {
	_, ok := trust.DetachedDecision(r.CommonDir(), feature)
	return ok
}

// heldDecision says why feature is held for a human decision run detached (trust/detached.go),
// or "": one stat when there is none.
func (r *Repo) heldDecision(feature string) string {
	n, ok := trust.DetachedDecision(r.CommonDir(), feature)
	if !ok {
		return ""
	}
	return fmt.Sprintf("git exarchos: workflow %s is held: the human decision `git exarchos %s` was run at %s by a process detached from every terminal and left to pid 1 "+
		"(%s, pid %d, started %s, after an agent session began here), as a command left running by an agent's tool call is, and nothing in its process tree says who started it. "+
		"Policed tools are denied until the user, in their own terminal, accepts it as theirs (`git exarchos hooks accept %s`) or undoes it (`%s`, then `git exarchos hooks accept %s`).",
		feature, n.Command, n.Noted, n.Process, n.Pid, n.Started, feature, n.Undo(), feature)
}

// RefRewrites lists the workflows held because their ref moved outside git exarchos (fsck and
// verify report them).
func (r *Repo) RefRewrites() []HeldRef {
	entries, err := os.ReadDir(filepath.Dir(r.heldPath("x")))
	if err != nil {
		return nil
	}
	var out []HeldRef
	for _, e := range entries {
		if f, ok := strings.CutSuffix(e.Name(), ".json"); ok && r.Held(f) != "" {
			h, _ := r.heldRef(f)
			out = append(out, h)
		}
	}
	return out
}

// ownControlWrites runs fn, a command's own write of something PostToolUse watches (the git hooks,
// a settings file, a refspec in git's config), and takes the result as accepted when nothing else
// had changed the controls before it: the agent's own `hooks install` or `remote setup` does not
// block it, and a change made outside before it stays reported.
func (r *Repo) OwnControlWrites(fn func() error) error {
	clean := r.CheckControls(r.WorkTree()) == ""
	err := fn()
	if clean {
		r.AcceptControls()
	}
	return err
}

// AcceptControls takes the controls as they are now as accepted (install's own writes).
func (r *Repo) AcceptControls() {
	cur, controls := r.observeControls(r.WorkTree(), nil)
	r.acceptControls(r.WorkTree(), cur, controls)
	// The other worktrees' states take the refs as they are too, or they would find the
	// accepted move again.
	states, _ := filepath.Glob(filepath.Join(r.CommonDir(), filepath.FromSlash(controlsDir), "state-*.json"))
	for _, p := range states {
		b, err := os.ReadFile(p)
		if err != nil || p == r.controlsPath(r.WorkTree()) {
			continue
		}
		st, err := decodeControls(b)
		if err != nil {
			continue
		}
		st.Refs, st.RefStamps, st.LogEnd = cur.Refs, cur.RefStamps, cur.LogEnd
		if b, err := encodeControls(st); err == nil && atomicfile.Write(p, b, 0o644) == nil {
			_ = os.Remove(filepath.Join(filepath.Dir(p), "stamps-"+strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "state-"), ".json")))
		}
	}
}

// HooksAcceptOptions name what a human accepts: the controls as they are, and the held workflows.
type HooksAcceptOptions struct {
	Features []string // the held workflows to accept; none: every held one
	// Environ is the caller's environment (nil: the process's); an agent's is refused.
	Environ []string
}

// HooksAcceptResult says what was accepted.
type HooksAcceptResult struct {
	Accepted []HeldRef `json:"accepted"`
	Controls bool      `json:"controls"` // the watched settings, git hooks and configuration as they are now
	// Decisions are the human decisions run detached (trust/detached.go) accepted as the user's;
	// Kept, those this acceptance could not lift, with why.
	Decisions []trust.DetachedNote `json:"decisions"`
	Kept      []string             `json:"kept"`
}

// Text is what hooks accept prints.
func (res *HooksAcceptResult) Text() string {
	var b strings.Builder
	for _, h := range res.Accepted {
		to := h.To
		if to == "" {
			to = "nothing (deleted)"
		}
		fmt.Fprintf(&b, "accepted %s at %s\n", h.Ref, to)
	}
	for _, n := range res.Decisions {
		fmt.Fprintf(&b, "accepted as yours: `git exarchos %s`, run detached at %s\n", n.Command, n.Noted)
	}
	for _, k := range res.Kept {
		fmt.Fprintf(&b, "not accepted: %s\n", k)
	}
	b.WriteString("the watched settings, git hooks and configuration are accepted as they are\n")
	return b.String()
}

// DetachedDecisions are the notes of human decisions run detached, not yet accepted.
func (r *Repo) DetachedDecisions() []trust.DetachedNote {
	var out []trust.DetachedNote
	for _, f := range trust.DetachedFeatures(r.CommonDir()) {
		if n, ok := trust.DetachedDecision(r.CommonDir(), f); ok {
			out = append(out, n)
		}
	}
	return out
}

// HooksAccept is a human's acceptance of what changed outside git exarchos: the watched controls
// as they are now, and held workflows at the commit their ref now points to (fsck still shows
// what their log says; verify judges it).
func HooksAccept(r *Repo, o HooksAcceptOptions) (*HooksAcceptResult, error) {
	if err := trust.RefuseInAgent(trust.EnvironOr(o.Environ), "hooks accept"); err != nil {
		return nil, err
	}
	res := &HooksAcceptResult{Accepted: []HeldRef{}, Decisions: []trust.DetachedNote{}, Kept: []string{}}
	held := r.RefRewrites()
	for _, f := range o.Features {
		if r.Held(f) == "" {
			return nil, project.Usagef("workflow %s is not held (git exarchos fsck lists the held ones)", f)
		}
	}
	for _, h := range held {
		if len(o.Features) == 0 || slices.Contains(o.Features, h.Feature) {
			if err := os.Remove(r.heldPath(h.Feature)); err != nil {
				return nil, err
			}
			res.Accepted = append(res.Accepted, h)
		}
	}
	for _, n := range r.DetachedDecisions() {
		if len(o.Features) > 0 && !slices.Contains(o.Features, n.Feature) {
			continue
		}
		accepted, err := r.AcceptDetached(n.Feature)
		if err != nil {
			return nil, err
		}
		if !accepted {
			res.Kept = append(res.Kept, fmt.Sprintf("%s: its decision run detached stays held, as this acceptance runs detached too: run `git exarchos hooks accept %s` in your own terminal", n.Feature, n.Feature))
			continue
		}
		res.Decisions = append(res.Decisions, n)
	}
	r.AcceptControls()
	res.Controls = true
	return res, nil
}
