// Package trust decides who may make a human decision and whether a recorded one counts: the
// allowed signers and roles read from the protected base branch, each decision's verdict (its
// signature checked by a fixed ssh-keygen, cached per signers and checker), the fold that counts
// decisions by those verdicts (Projector, the store's only one) and so every read of a workflow's
// state and the feature a command means (state.go), signing a decision with git's own
// signing setup, the refusal of human decisions in an agent's environment (authority.go), and
// `signers add`, which writes the signer files (signers.go, signers_write.go).
//
// It may import project, gitstore, signing, workflow and the internal helpers; never
// the hook runtime, app or cmd. internal/archtest holds the rule.
package trust

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/internal/atomicfile"
	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/signing"
	"github.com/exarchos/git-exarchos/workflow"
)

// Who may make a human decision is .exarchos/allowed_signers on the protected base branch (git's
// allowed-signers format), optionally narrowed per decision kind by .exarchos/roles. With no
// allowed-signers file the repository is in unsigned mode: decisions count as they always did.
const (
	AllowedSignersPath = ".exarchos/allowed_signers"
	RolesPath          = ".exarchos/roles"
)

// UnprotectedNote is what status, rehydrate and SessionStart say in unsigned mode.
const UnprotectedNote = "human decisions are not protected: anyone (an agent too) can approve, override or unblock. " +
	"Turn protection on in your own terminal, on the base branch: `git exarchos setup --signer --commit` (adds your signing key to " + AllowedSignersPath + " and commits it there)"

// Trust is the signing mode of a repository, as status and verify report it.
type Trust struct {
	Mode    string `json:"mode"` // signed | unsigned | unreadable (the allowed signers exist but cannot be read)
	Base    string `json:"base"` // the ref the signers were read from
	Signers int    `json:"signers,omitempty"`
	Note    string `json:"note,omitempty"`
	// KeyWarning says, when it can tell, that the configured signing key protects nothing.
	KeyWarning string `json:"keyWarning,omitempty"`
	// KeyWarningShown: status showed this KeyWarning before, for the same key file (ShownKeyWarning);
	// the text form leaves it out, the JSON keeps KeyWarning.
	KeyWarningShown bool `json:"-"`
	keyState        string
	// BaseMoved says the base's tracking ref was moved by something other than a fetch, and the
	// signers were read at the value the last fetch gave it (project/trust_inputs.go).
	BaseMoved string `json:"baseMoved,omitempty"`
	// RulesError says that the rules on the base branch cannot be read (Rules.Err): every
	// governed command refuses until they can.
	RulesError string `json:"rulesError,omitempty"`
	// RolesProblem names the trust file that does not parse (Mode is then unreadable and Note says
	// which line and the fix).
	RolesProblem string `json:"rolesProblem,omitempty"`
}

// Repo is an opened repository with what trust knows about who may decide, loaded once, and the
// fold that counts decisions by it (Projector, state.go).
type Repo struct {
	*project.Repo
	trusted *trust
}

// Open gives p trust.
func Open(p *project.Repo) *Repo { return &Repo{Repo: p} }

// SetBase makes b the base branch the rules and signers are read from (verify's --base),
// forgetting the signers read from another.
func (r *Repo) SetBase(b *project.Base) {
	r.Repo.SetBase(b)
	r.trusted = nil
}

// Signed reports whether decisions must be signed here (signers on the base, or signers that
// cannot be read: fail closed).
func (r *Repo) Signed() bool { return r.trust().signed }

// Integrating makes a decision whose head is in tip's history count while fn runs (the other
// side of a merge being integrated: sync).
func (r *Repo) Integrating(tip string, fn func() error) error {
	t := r.trust()
	t.tips = append(t.tips, tip)
	defer func() { t.tips = t.tips[:len(t.tips)-1] }()
	return fn()
}

// trust is what a Repo knows about who may decide, loaded once.
type trust struct {
	signed  bool
	problem error
	// rolesBroken says problem is .exarchos/roles not parsing: the signers were read, and every
	// decision is refused until the roles parse.
	rolesBroken bool
	blob        string              // hash of allowed_signers + roles: verdicts are cached under it
	roles       map[string][]string // kind → principals; a kind not listed is open to every allowed signer
	allowed     []byte
	verifier    *signing.Verifier // made on first use (verifySSH)
	checker     string            // the checker's path and identity (checkerProgram), on first use
	count       int
	salt        string // this clone's, so a snapshot written elsewhere is folded again (see projector)
	cacheDir    string
	// tips are commits besides the ref's tip whose history a decision's head may be in (the
	// other side of a merge being integrated).
	tips    []string
	history map[string]map[string]bool // commits reachable from a feature's tips (headInHistory)
}

func (r *Repo) trust() *trust {
	if r.trusted != nil {
		return r.trusted
	}
	t := &trust{cacheDir: filepath.Join(r.CommonDir(), "exarchos", "verdicts")}
	r.trusted = t
	if b := r.Base(); b.Moved != "" && b.Commit == "" {
		// The base was moved locally and no fetched value is left: whether decisions must be
		// signed cannot be told, so none counts until it is fetched again (project/trust_inputs.go).
		t.signed, t.problem = true, errors.New(b.Problem)
		return t
	}
	files, err := r.BaseDir(path.Dir(AllowedSignersPath)) // one read serves both files
	if err != nil {
		// Signers that cannot be read are not "no signers": decisions are judged as in signed
		// mode, and none can be verified, so none takes effect until they can be read.
		t.problem, t.signed = err, true
		sum := sha256.Sum256([]byte("unreadable: " + err.Error()))
		t.blob = hex.EncodeToString(sum[:])
		t.salt = cloneSalt(r.CommonDir())
		return t
	}
	allowed, roles := files[path.Base(AllowedSignersPath)], files[path.Base(RolesPath)]
	if len(strings.TrimSpace(string(allowed))) == 0 {
		return t
	}
	t.signed = true
	if t.roles, err = parseRoles(roles); err != nil {
		t.problem, t.rolesBroken = rolesProblem(r.Base().Ref, err), true
	}
	sum := sha256.Sum256(append(append(slices.Clone(allowed), 0), roles...))
	t.blob = hex.EncodeToString(sum[:])
	for _, line := range strings.Split(string(allowed), "\n") {
		if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "#") {
			t.count++
		}
	}
	t.allowed = allowed
	t.salt = cloneSalt(r.CommonDir())
	return t
}

// knowChecker finds the checker once (one stat per place looked at).
func (t *trust) knowChecker() error {
	if t.checker != "" {
		return nil
	}
	_, id, err := checkerProgram()
	t.checker = id
	return err
}

// verify checks a signature with ssh-keygen; the verifier (a private copy of the allowed signers
// on disk) is made on first use, so reads whose verdicts are all cached never make it.
func (r *Repo) verifySSH(payload []byte, sig string) (string, error) {
	t := r.trust()
	if t.verifier == nil {
		prog, _, err := checkerProgram() // a fixed place, never gpg.ssh.program or PATH
		if err != nil {
			return "", err
		}
		v, err := signing.NewVerifier(t.allowed, prog)
		if err != nil {
			return "", err
		}
		t.verifier = v
	}
	return t.verifier.Verify(payload, sig)
}

// maxRolesLine is the longest line .exarchos/roles may hold: git's own line readers and
// bufio.Scanner stop at 64 KiB, and a reader that stopped there once read everything after it as
// "not narrowed".
const maxRolesLine = 64 << 10

// parseRoles reads "<kind> <principal>[,<principal>…]" lines; # starts a comment, and a line ends
// at "\n" or "\r\n" (a file committed from Windows reads as git shows it). A file that does not
// parse is an error, never fewer roles: what a cut or misspelt line meant to narrow is unknown, so
// the caller refuses every decision until it is fixed.
func parseRoles(b []byte) (map[string][]string, error) {
	out := map[string][]string{}
	for n, line := range strings.Split(string(b), "\n") {
		no := n + 1
		if len(line) > maxRolesLine {
			return nil, fmt.Errorf("line %d: longer than %d bytes", no, maxRolesLine)
		}
		line = strings.TrimSuffix(line, "\r")
		if !utf8.ValidString(line) || strings.ContainsFunc(line, func(c rune) bool { return unicode.IsControl(c) && c != '\t' }) {
			return nil, fmt.Errorf("line %d: not text (a control character or invalid UTF-8)", no)
		}
		line, _, _ = strings.Cut(line, "#")
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if !slices.Contains(workflow.DecisionKinds(), f[0]) {
			return nil, fmt.Errorf("line %d: unknown decision %q (decisions: %s)", no, f[0], strings.Join(workflow.DecisionKinds(), ", "))
		}
		if len(f) == 1 {
			return nil, fmt.Errorf("line %d: %s names no principal", no, f[0])
		}
		for _, p := range f[1:] {
			for _, name := range strings.Split(p, ",") {
				if name == "" {
					return nil, fmt.Errorf("line %d: an empty principal (a stray comma) in %q", no, p)
				}
				out[f[0]] = append(out[f[0]], name)
			}
		}
	}
	return out, nil
}

// rolesProblem says that the roles at base do not parse, with the fix.
func rolesProblem(base string, err error) error {
	return fmt.Errorf("%s on %s does not parse (%w), so no human decision takes effect until it does: fix it on the base branch, commit and push it (`git exarchos doctor` checks it again)", RolesPath, base, err)
}

// keyWarnedFile remembers the state of the signing key status last warned about.
const keyWarnedFile = "key-warned"

// ShownKeyWarning sets info.KeyWarningShown when status already showed this warning for this state
// of the key file (issue 41: every status repeated it), and otherwise remembers it as shown now, under
// .git/exarchos/, atomically. Another key, or the same file changed, is warned about again.
func (r *Repo) ShownKeyWarning(info *Trust) {
	if info.KeyWarning == "" || info.keyState == "" {
		return
	}
	p := filepath.Join(r.CommonDir(), "exarchos", keyWarnedFile)
	want := info.keyState + "\n"
	if b, err := os.ReadFile(p); err == nil && string(b) == want {
		info.KeyWarningShown = true
		return
	}
	_ = atomicfile.Write(p, []byte(want), 0o644) // not remembered: shown again next time
}

// cloneSalt is a random id kept in this clone's git directory. The signed-mode projector version
// carries it, so a state.json that arrived from elsewhere (pull, or a hand-made commit) is never
// read as is: the events are folded again with this clone's verdicts.
func cloneSalt(common string) string {
	p := filepath.Join(common, "exarchos", "clone-id")
	if b, err := os.ReadFile(p); err == nil && len(strings.TrimSpace(string(b))) > 0 {
		return strings.TrimSpace(string(b))
	}
	var r [8]byte
	_, _ = rand.Read(r[:])
	id := hex.EncodeToString(r[:])
	_ = os.MkdirAll(filepath.Dir(p), 0o755)
	_ = os.WriteFile(p, []byte(id+"\n"), 0o644)
	return id
}

// TrustInfo reports the signing mode for status, rehydrate and SessionStart.
func (r *Repo) TrustInfo() Trust {
	t := r.trust()
	info := Trust{Mode: "unsigned", Base: r.Base().Ref, BaseMoved: r.Base().Moved}
	switch {
	case t.rolesBroken:
		info.Mode, info.Signers, info.Note, info.RolesProblem = "unreadable", t.count, t.problem.Error(), RolesPath
	case t.problem != nil && info.BaseMoved != "":
		info.Mode = "unreadable"
		info.Note = fmt.Sprintf("no human decision takes effect until %s is fetched again: %v", info.Base, t.problem)
	case t.problem != nil:
		info.Mode = "unreadable"
		info.Note = fmt.Sprintf("the allowed signers on %s cannot be read, so no human decision takes effect until they can (%v): `git fetch` the base branch, or `git fsck` to see what is missing", info.Base, t.problem)
	case t.signed:
		info.Mode, info.Signers = "signed", t.count
	default:
		info.Note = UnprotectedNote
	}
	info.KeyWarning, info.keyState = signing.KeyProtectionState(r.SigningConfig())
	if err := r.RulesUnreadable(); err != nil { // kept per base commit (project/hook_rules.go): status pays one file read
		info.RulesError = err.Error()
	}
	return info
}

// trustNotes are the lines a session's context carries about decisions: unprotected (and how to
// protect them), or protected by a key that protects nothing.
func (r *Repo) TrustNotes() []string {
	info := r.TrustInfo()
	var out []string
	if info.Note != "" {
		out = append(out, info.Note)
	}
	if info.KeyWarning != "" {
		out = append(out, info.KeyWarning)
	}
	if info.RulesError != "" {
		out = append(out, info.RulesError)
	}
	return out
}

func (r *Repo) SigningConfig() signing.Config {
	c := signing.Config{}
	c.Format, _ = r.Config("gpg.format")
	c.SigningKey, _ = r.Config("user.signingkey")
	c.SSHProgram, _ = r.Config("gpg.ssh.program")
	c.GPGProgram, _ = r.Config("gpg.program")
	return c
}

// projectorVersion is the projector's version: the plain fold's in unsigned mode (so nothing
// changes for repositories without signers); in signed mode it names the signers and this clone,
// so a snapshot folded with other verdicts, or written elsewhere, is folded again here.
func (r *Repo) projectorVersion() string {
	t := r.trust()
	if !t.signed {
		return workflow.ProjectorVersion
	}
	blob := t.blob
	if len(blob) > 16 {
		blob = blob[:16]
	} else if blob == "" {
		blob = "unknown" // fail-closed mode (no base to read the signers from)
	}
	// The checker too: a snapshot folded with another checker's verdicts is folded again.
	_ = t.knowChecker()
	sum := sha256.Sum256([]byte(t.checker))
	return workflow.ProjectorVersion + "+signed:" + blob + ":" + hex.EncodeToString(sum[:4]) + ":" + t.salt
}

// verdictsFor gives the decisions among events their verdicts before a fold onto prev (signed
// mode only). The feature the signatures must name is the workflow's own.
func (r *Repo) verdictsFor(prev json.RawMessage, events []workflow.Event) []workflow.Event {
	if !r.trust().signed || !slices.ContainsFunc(events, func(e workflow.Event) bool { return workflow.DecisionKind(e) != "" }) {
		return events
	}
	feature := ""
	if st, err := workflow.DecodeState(prev); err == nil {
		feature = st.Feature
	}
	for i := 0; feature == "" && i < len(events); i++ {
		var d workflow.StartedData
		if events[i].Type == workflow.EventStarted && events[i].DecodeData(&d) == nil {
			feature = d.Feature
		}
	}
	return r.WithVerdicts(feature, events)
}

// withVerdicts returns events with a Verdict on every decision (a copy when any is set).
func (r *Repo) WithVerdicts(feature string, events []workflow.Event) []workflow.Event {
	var out []workflow.Event
	for i, e := range events {
		if workflow.DecisionKind(e) == "" {
			continue
		}
		if out == nil {
			out = slices.Clone(events)
		}
		v := r.verdict(feature, e)
		out[i].Verdict = &v
	}
	if out == nil {
		return events
	}
	return out
}

// verdict checks one decision against the allowed signers: signed, by an allowed key (and role),
// over this feature, id, type, data and time, on a head in this workflow's history. A good or a
// cryptographically bad verdict is cached on disk by payload + signature + signers, so each
// decision's signature is checked once however often status or the hook read it.
func (r *Repo) verdict(feature string, e workflow.Event) workflow.Verdict {
	t := r.trust()
	if e.Sig == nil {
		return workflow.Verdict{Reason: "unsigned: a human decision needs a signature by a key in " + AllowedSignersPath}
	}
	if t.problem != nil {
		return workflow.Verdict{Reason: "cannot check signatures: " + t.problem.Error()}
	}
	payload := workflow.SigningPayload(feature, e, e.Sig.Head)
	if err := t.knowChecker(); err != nil {
		return workflow.Verdict{Reason: "cannot check signatures: " + err.Error()}
	}
	// The key names the checker (path and file identity) and the signers: a verdict never
	// outlives either.
	h := sha256.New()
	h.Write(payload)
	h.Write([]byte{0})
	h.Write([]byte(e.Sig.Format + "\x00" + e.Sig.Sig + "\x00" + t.blob + "\x00" + t.checker))
	key := hex.EncodeToString(h.Sum(nil))
	cachePath := filepath.Join(t.cacheDir, key[:2], key[2:])
	v, cached := readVerdict(cachePath)
	if !cached {
		v = r.checkSignature(e, payload)
		writeVerdict(cachePath, v)
	}
	if !v.OK {
		return v
	}
	if e.Type == workflow.EventStarted {
		// A start is decided on no head: the workflow has none before it.
		if e.Sig.Head != "" {
			return workflow.Verdict{Reason: fmt.Sprintf("replayed: a start signed for workflow head %s, but a start comes before any head", project.Short(e.Sig.Head))}
		}
		return v
	}
	if ok, err := r.headInHistory(feature, e.Sig.Head); err != nil || !ok {
		return workflow.Verdict{Reason: fmt.Sprintf("replayed: signed for workflow head %s, which is not in the history of %s", project.Short(e.Sig.Head), feature)}
	}
	return v
}

func (r *Repo) checkSignature(e workflow.Event, payload []byte) workflow.Verdict {
	t := r.trust()
	if e.Sig.Format != signing.FormatSSH {
		return workflow.Verdict{Reason: fmt.Sprintf("a %s signature: %s lists SSH keys, so only SSH signatures are checked", e.Sig.Format, AllowedSignersPath)}
	}
	who, err := r.verifySSH(payload, e.Sig.Sig)
	if err != nil {
		if errors.Is(err, signing.ErrUnknownKey) {
			return workflow.Verdict{Reason: "signed by a key that is not in " + AllowedSignersPath}
		}
		return workflow.Verdict{Reason: "bad signature: it does not cover this event as stored (data changed, or made for another workflow or head)"}
	}
	kind := workflow.DecisionKind(e)
	if allowed, ok := t.roles[kind]; ok && !slices.Contains(allowed, who) {
		return workflow.Verdict{Reason: fmt.Sprintf("%s may not %s: %s names %s", who, kind, RolesPath, strings.Join(allowed, ", "))}
	}
	return workflow.Verdict{OK: true, Principal: who}
}

func readVerdict(p string) (workflow.Verdict, bool) {
	b, err := os.ReadFile(p)
	if err != nil {
		return workflow.Verdict{}, false
	}
	var v workflow.Verdict
	if json.Unmarshal(b, &v) != nil {
		return workflow.Verdict{}, false
	}
	return v, true
}

func writeVerdict(p string, v workflow.Verdict) {
	b, _ := json.Marshal(v)
	if os.MkdirAll(filepath.Dir(p), 0o755) != nil {
		return
	}
	tmp := fmt.Sprintf("%s.%d.tmp", p, os.Getpid())
	if os.WriteFile(tmp, b, 0o644) == nil {
		_ = os.Rename(tmp, p)
	}
}

// headInHistory reports whether head is the workflow's tip, an ancestor of it, or of a tip being
// integrated: a decision copied onto a state it was not made on names a head this history lacks.
// The history is walked once per set of tips and kept.
func (r *Repo) headInHistory(feature, head string) (bool, error) {
	if head == "" {
		return false, nil
	}
	t := r.trust()
	tips := slices.Clone(t.tips)
	if tip, ok, err := r.Facts().ResolveRef(gitstore.RefName(feature)); err == nil && ok {
		tips = append(tips, tip)
	}
	key := feature + " " + strings.Join(tips, " ")
	if t.history == nil {
		t.history = map[string]map[string]bool{}
	}
	seen, ok := t.history[key]
	if !ok {
		var err error
		if seen, err = r.Store.Reachable(tips...); err != nil {
			return false, err
		}
		t.history[key] = seen
	}
	return seen[head], nil
}

// signDecisions signs, in signed mode or when a signing key is configured, every decision among
// events decided on head. The events get their id and time now, since the signature covers them.
func (r *Repo) SignDecisions(feature, head string, events []workflow.NewEvent) error {
	t := r.trust()
	cfg := r.SigningConfig()
	var kinds []string
	for _, n := range events {
		if e, err := n.Stamp("", 0, r.Store.Now(), "", 0); err == nil && workflow.DecisionKind(e) != "" {
			kinds = append(kinds, workflow.DecisionKind(e))
		}
	}
	if len(kinds) == 0 {
		return nil
	}
	if strings.TrimSpace(cfg.SigningKey) == "" {
		if !t.signed {
			return nil // unsigned mode and no key: as before signing existed
		}
		return fmt.Errorf("%s is a human decision, and decisions in this repository must be signed (%s on %s): configure your key with `git config gpg.format ssh && git config user.signingKey ~/.ssh/id_ed25519.pub`", kinds[0], AllowedSignersPath, r.Base().Ref)
	}
	now := r.Store.Now().UTC().Truncate(1e6)
	for i := range events {
		n := &events[i]
		e, err := n.Stamp(n.ID, 0, now, "", 0)
		if err != nil {
			return err
		}
		if workflow.DecisionKind(e) == "" {
			continue
		}
		if n.ID == "" {
			n.ID = gitstore.NewID(now)
		}
		n.Time = now
		e.ID = n.ID
		format, sig, err := signing.Sign(cfg, workflow.SigningPayload(feature, e, head))
		if err != nil {
			return fmt.Errorf("sign the %s decision: %w", workflow.DecisionKind(e), err)
		}
		n.Sig = &workflow.Signature{Format: format, Head: head, Sig: sig}
	}
	return nil
}

// Presigned keeps the signatures one call made: decisions are signed before the compare-and-swap,
// on the head they are decided on, and a lost race reuses them while that head is the one it
// meets. Only a moved head needs a new signature (the signature binds it): the swap is left, the
// decisions are signed again outside it, and the user is told why the key is asked again.
type Presigned struct {
	head, key string
	events    []workflow.NewEvent // the decisions as signed, in order
	pending   []workflow.NewEvent // decided on a head with no signature yet (want)
	pendHead  string
	signs     int
	unsigned  bool // unsigned mode and no key: decisions are recorded unsigned, as before signing
}

// maxSigns bounds how often one call signs: a workflow that keeps moving under a decision would
// otherwise ask for the key without end.
const maxSigns = 4

// ErrSignAgain leaves the compare-and-swap loop to sign the decisions on the head it met.
var ErrSignAgain = errors.New("the workflow moved: the decision must be signed on its new head")

// decisionKey names the decisions among events by type and data ("" when there are none).
func decisionKey(events []workflow.NewEvent) string {
	var b strings.Builder
	for _, n := range events {
		e, err := n.Stamp("", 0, time.Time{}, "", 0)
		if err != nil || workflow.DecisionKind(e) == "" {
			continue
		}
		b.WriteString(e.Type + "\x00" + string(e.Data) + "\x00")
	}
	return b.String()
}

// Reuse gives out's decisions the id, time and signature made for them on head; false when they
// need signing (there are decisions, and none were signed for them on head).
func (p *Presigned) Reuse(head string, out []workflow.NewEvent) bool {
	key := decisionKey(out)
	if key == "" || p.unsigned {
		return true
	}
	if p.events == nil || p.head != head || p.key != key {
		return false
	}
	j := 0
	for i := range out {
		if e, err := out[i].Stamp("", 0, time.Time{}, "", 0); err != nil || workflow.DecisionKind(e) == "" {
			continue
		}
		s := p.events[j]
		out[i].ID, out[i].Time, out[i].Sig = s.ID, s.Time, s.Sig
		j++
	}
	return true
}

// Sign signs out's decisions on head and keeps them for reuse.
func (p *Presigned) Sign(r *Repo, feature, head string, out []workflow.NewEvent) error {
	if !r.trust().signed && strings.TrimSpace(r.SigningConfig().SigningKey) == "" {
		p.unsigned = true
		return nil
	}
	if p.signs == maxSigns {
		return fmt.Errorf("%w: %s moved %d times while a decision on it was being signed; run it again", gitstore.ErrConcurrent, feature, maxSigns)
	}
	if p.signs > 0 {
		r.notify(fmt.Sprintf("%s moved while the decision was being signed (now at %s): a signature binds the workflow head it decides on, so it is signed again", feature, project.Short(head)))
	}
	p.signs++
	if err := r.SignDecisions(feature, head, out); err != nil {
		return err
	}
	p.head, p.key, p.events = head, decisionKey(out), nil
	for _, n := range out {
		if e, err := n.Stamp("", 0, time.Time{}, "", 0); err == nil && workflow.DecisionKind(e) != "" {
			p.events = append(p.events, n)
		}
	}
	return nil
}

// Want keeps decisions met on a head they were not signed for (inside the swap), for Again.
func (p *Presigned) Want(head string, out []workflow.NewEvent) {
	p.pendHead, p.pending = head, slices.Clone(out)
}

// Again signs what want kept (outside the swap).
func (p *Presigned) Again(r *Repo, feature string) error {
	return p.Sign(r, feature, p.pendHead, p.pending)
}

// notify tells the user something they should know but that is not the command's result.
func (r *Repo) notify(msg string) {
	w := r.Notices
	if w == nil {
		w = os.Stderr
	}
	fmt.Fprintln(w, "git exarchos: "+msg)
}
