package hookrun

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/hooks"
	"github.com/exarchos/git-exarchos/internal/agentenv"
	"github.com/exarchos/git-exarchos/internal/atomicfile"
	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/trust"
	"github.com/exarchos/git-exarchos/workflow"
)

// A Claude Code session is bound to the workflows its first call found (SessionStart or the first
// PreToolUse): from then on its calls are judged by their policy whatever branch, directory or
// worktree they report, until a human releases it (`git exarchos hooks release`). The binding is
// recorded as a hook.session-bound event on each workflow (the audit trail) and kept, for the hot
// path, in a file per session under the user's state directory, outside every repository, so a
// call from outside the repository still finds it. The hook refuses writes to that directory.

// sessionRecord is one session's binding.
type sessionRecord struct {
	Root      string   `json:"root"`      // the worktree the session was bound in
	CommonDir string   `json:"commonDir"` // its repository
	Features  []string `json:"features"`
	Bound     string   `json:"bound"` // when (RFC 3339)
	// Seal: the record's seal under the session store's key (gitrepo/seal.go), so a binding
	// rewritten by anything but the hook is not believed (issue 38 item 10).
	Seal string `json:"seal,omitempty"`
}

// sealData is what a record's seal covers: the record without its seal, and the session's id.
func (rec sessionRecord) sealData(id string) []byte {
	rec.Seal = ""
	b, _ := json.Marshal(rec)
	return append([]byte(id+"\x00"), b...)
}

// sessionsKey is the session store's seal key (created on first use).
func sessionsKey(create bool) []byte {
	key, _ := gitrepo.SealKey(SessionsDir(), create)
	return key
}

// mirrorFile is the copy of session id's binding kept in the repository it is bound to, so a
// binding file deleted outside the hook is put back by the next call, not forgotten (issue 38
// item 10: deleting it left the session unbound).
func mirrorFile(commonDir, id string) string {
	return filepath.Join(trust.SessionsMirror(commonDir), filepath.Base(SessionFile(id)))
}

// readBinding reads and checks a binding file: nil when there is none, an error when it cannot be
// read, is damaged, or is not sealed by the hook.
func readBinding(path, id string) (*sessionRecord, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the binding of session %s: %w", id, err)
	}
	var rec sessionRecord
	if err := json.Unmarshal(b, &rec); err != nil || rec.CommonDir == "" || len(rec.Features) == 0 {
		return nil, fmt.Errorf("the binding of session %s (%s) is damaged: ask the user to run `git exarchos hooks release --session %s` in their own terminal", id, path, id)
	}
	if _, err := gitrepo.SealKey(SessionsDir(), false); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("the session store's seal key %s cannot be read (%v): ask the user to remove it (`rm -- %s`) and run `git exarchos hooks release --all` in their own terminal", gitrepo.SealKeyFile(SessionsDir()), err, gitrepo.SealKeyFile(SessionsDir()))
	}
	if !gitrepo.Sealed(sessionsKey(false), rec.sealData(id), rec.Seal) {
		return nil, fmt.Errorf("the binding of session %s (%s) was not written by the hook (its seal does not hold): ask the user to run `git exarchos hooks release --session %s` in their own terminal", id, path, id)
	}
	return &rec, nil
}

// SessionsDir is where session bindings are kept: $XDG_STATE_HOME/git-exarchos/sessions, else
// ~/.local/state/git-exarchos/sessions.
func SessionsDir() string {
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "git-exarchos", "sessions")
}

// plainSessionID reports whether id can name its file as it is: 1 to 128 of [A-Za-z0-9._-], not
// starting with a dot. (A loop, not a regexp: compiling one at package init costs every call.)
func plainSessionID(id string) bool {
	if len(id) == 0 || len(id) > 128 || id[0] == '.' {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// SessionFile is the file that keeps session id's binding (the hook refuses writes to it).
func SessionFile(id string) string {
	name := id
	if !plainSessionID(id) {
		sum := sha256.Sum256([]byte(id))
		name = "h-" + hex.EncodeToString(sum[:16])
	}
	return filepath.Join(SessionsDir(), name+".json")
}

// loadSession returns the session's binding, nil when it has none. A binding that cannot be read
// is an error: the hook then refuses rather than forget the session's workflow.
func loadSession(id string) (*sessionRecord, error) {
	return readBinding(SessionFile(id), id)
}

// restoreSession puts back session id's binding from the copy kept in the repository at
// commonDir, when the binding file is gone but the copy is there: nil when there is none.
func restoreSession(commonDir, id string) (*sessionRecord, error) {
	rec, err := readBinding(mirrorFile(commonDir, id), id)
	if rec == nil || err != nil {
		return nil, err
	}
	if b, err := os.ReadFile(mirrorFile(commonDir, id)); err == nil {
		_ = os.MkdirAll(SessionsDir(), 0o700)
		_ = atomicfile.Write(SessionFile(id), b, 0o600)
	}
	return rec, nil
}

// sessionBound reads the workflows a session is bound to. A workflow that no longer exists or has
// ended no longer holds the session; one that cannot be read is an error (fail closed).
func (h *hookRepo) sessionBound(rec *sessionRecord) ([]hooks.Bound, error) {
	if h.repo == nil || h.repo.CommonDir() != rec.CommonDir {
		r, err := Open(rec.Root)
		if err != nil {
			if r, err = Open(rec.CommonDir); err != nil {
				return nil, fmt.Errorf("open the repository this session is bound to (%s): %w", rec.Root, err)
			}
		}
		h.repo = r
	}
	var out []hooks.Bound
	for _, f := range rec.Features {
		st, ok, err := h.repo.hookState(f)
		if err != nil {
			return nil, fmt.Errorf("workflow %s, which this session is bound to: %w", f, err)
		}
		if !ok || !h.repo.IsActive(gitstore.Summary{Type: st.Type, Phase: st.Phase}) && !h.repo.heldForDecision(f) {
			continue // ended (but one a detached decision ended stays, held, until the user accepts it)
		}
		w := h.repo.boundOf(f, st)
		if rec.Root != "" {
			w.Root = rec.Root
		}
		out = append(out, w)
	}
	return out, nil
}

// rebindSession binds a session whose workflows have all ended to the workflows on the branch where
// it now runs (the call's directory, when it is in the session's repository, else the worktree it
// was bound in). An error (a state it cannot read) fails the call closed, as for any session.
func (h *hookRepo) rebindSession(in hooks.Input, dir string, rec *sessionRecord) ([]hooks.Bound, error) {
	r := h.repo
	if here, err := Open(dir); err == nil && here.CommonDir() == rec.CommonDir {
		r, h.repo = here, here
	}
	ws, err := r.BoundWorkflows()
	if err != nil {
		return nil, fmt.Errorf("session %s: its workflows ended, and the workflow now on its branch cannot be read: %w", in.SessionID, err)
	}
	if len(ws) > 0 {
		h.bindSession(in, dir, ws)
	}
	return ws, nil
}

// bindSession records that the session works on ws, in its binding file and as events.
func (h *hookRepo) bindSession(in hooks.Input, dir string, ws []hooks.Bound) {
	rec := sessionRecord{Root: h.repo.WorkTree(), CommonDir: h.repo.CommonDir(), Bound: time.Now().UTC().Format(time.RFC3339)}
	for _, w := range ws {
		rec.Features = append(rec.Features, w.Feature)
	}
	key := sessionsKey(true)
	if key == nil {
		return // no seal: unbound, the session is judged by its branch as before
	}
	rec.Seal = gitrepo.Seal(key, rec.sealData(in.SessionID))
	b, err := json.Marshal(rec)
	if err != nil {
		return
	}
	if err := atomicfile.Write(SessionFile(in.SessionID), b, 0o600); err != nil {
		return // unbound, the session is judged by its branch as before
	}
	if err := os.MkdirAll(filepath.Dir(mirrorFile(rec.CommonDir, in.SessionID)), 0o755); err == nil {
		_ = atomicfile.Write(mirrorFile(rec.CommonDir, in.SessionID), b, 0o600)
	}
	for _, w := range ws {
		_, _ = h.Record(w, nil, workflow.NewEvent{Type: workflow.EventHookSessionBound, ID: "hook:bound:" + in.SessionID,
			Data: workflow.SessionBoundData{SessionID: in.SessionID, Phase: w.State.Phase, Branch: h.repo.CurrentBranch(), Cwd: dir}})
	}
}

// HooksReleaseOptions selects the session bindings `git exarchos hooks release` removes.
type HooksReleaseOptions struct {
	Session string // one session id
	All     bool   // every session
	// Environ is the caller's environment (nil: the process's); an agent's is refused.
	Environ agentenv.Env
}

// HooksReleaseResult lists the sessions released.
type HooksReleaseResult struct {
	Released []string `json:"released"`
}

// HooksRelease releases sessions from their workflows: their next call is bound afresh, by the
// branch where it runs. A human's command: the hook refuses it to the agent.
func HooksRelease(o HooksReleaseOptions) (*HooksReleaseResult, error) {
	if err := trust.RefuseInAgent(trust.EnvironOr(o.Environ), "hooks release"); err != nil {
		return nil, err
	}
	if (o.Session == "") == !o.All {
		return nil, project.Usagef("name one session with --session <id>, or release every session with --all")
	}
	res := &HooksReleaseResult{Released: []string{}}
	if o.Session != "" {
		mirrored := dropMirror(o.Session)
		err := os.Remove(SessionFile(o.Session))
		if errors.Is(err, fs.ErrNotExist) && mirrored {
			err = nil // its file deleted outside the hook, its copy here: released all the same
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, project.Usagef("session %s is not bound to any workflow (nothing under %s)", o.Session, SessionsDir())
		}
		if err != nil {
			return nil, fmt.Errorf("release session %s: %w", o.Session, err)
		}
		res.Released = append(res.Released, o.Session)
		return res, nil
	}
	entries, err := os.ReadDir(SessionsDir())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("release the sessions: %w", err)
	}
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".json"); ok {
			dropMirror(name)
			if err := os.Remove(filepath.Join(SessionsDir(), e.Name())); err == nil {
				res.Released = append(res.Released, name)
			}
		}
	}
	return res, nil
}

// dropMirror removes the copy of session id's binding from the repository the binding names and
// from the one here (a binding file deleted outside leaves only the copy).
// It reports whether a copy was removed.
func dropMirror(id string) bool {
	var dirs []string
	if b, err := os.ReadFile(SessionFile(id)); err == nil {
		var rec sessionRecord
		if json.Unmarshal(b, &rec) == nil && rec.CommonDir != "" {
			dirs = append(dirs, rec.CommonDir)
		}
	}
	if loc, err := gitrepo.Discover("."); err == nil {
		dirs = append(dirs, loc.CommonDir)
	}
	removed := false
	for _, d := range dirs {
		if os.Remove(mirrorFile(d, id)) == nil {
			removed = true
		}
	}
	return removed
}
