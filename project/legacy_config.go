package project

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/exarchos/git-exarchos/workflow"
)

// Git config keys of earlier versions. Rules are read from .exarchos/config.yaml on the base branch
// now; a key left behind is not read. It is a warning in status and doctor, and it refuses a
// decision only where honouring it would have changed that decision (a fix-cycle limit that would
// have opened or kept closed the circuit, checks that would have been required): silently deciding
// otherwise than the person who set it expects would be worse than saying so, and refusing every
// write for a key that changes nothing was worse than both (issue 30).

// legacyKeys are the git config keys earlier versions read rules from.
func legacyKeys(types []string) []string {
	keys := []string{"exarchos.requireChecks", "exarchos.stopGuard"}
	for _, t := range types {
		keys = append(keys, legacyFixCycles(t))
	}
	return keys
}

func legacyFixCycles(typ string) string { return "exarchos." + typ + ".maxFixCycles" }

// legacySet lists the legacy keys set in cfg that concern workflows of these types.
func legacySet(cfg interface {
	Config(string) (string, bool)
}, types []string) []string {
	var set []string
	for _, k := range legacyKeys(types) {
		if _, ok := cfg.Config(k); ok {
			set = append(set, k)
		}
	}
	return set
}

// legacyWarning says what a set of left-over keys means and how to move them.
func LegacyWarning(keys []string, base string) string {
	return fmt.Sprintf("git config %s: no longer read (rules come from %s on the base branch %s); move the setting there (e.g. `requireChecks: true`, `stopGuard: true`, `workflows: {feature: {maxFixCycles: 5}}`), commit it to the base branch, then run `git config --unset %s`",
		strings.Join(keys, ", "), ConfigFile, base, keys[0])
}

// LegacyWarnings are the warnings status shows for a workflow of type typ.
func (r *Repo) LegacyWarnings(typ string) []string {
	keys := legacySet(r.git, []string{typ})
	if len(keys) == 0 {
		return nil
	}
	return []string{LegacyWarning(keys, r.Base().Ref)}
}

// legacyChange refuses a decision that a left-over key would have changed: it decides the same
// commands again as the key would have had them decided (its fix-cycle limit, its requireChecks)
// and compares what each records or refuses. Nothing is decided twice unless a key is set.
func (r *Repo) LegacyChange(def *workflow.Definition, st workflow.State, cmds []workflow.Command, env workflow.Env, out []workflow.NewEvent, rej *workflow.Rejection) error {
	alt, altEnv, keys := def, env, []string(nil)
	if v, ok := r.Config(legacyFixCycles(st.Type)); ok {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
			alt = def.Clone()
			alt.SetMaxFixCycles(n)
			keys = append(keys, legacyFixCycles(st.Type)+"="+v)
		}
	}
	if v, ok := r.Config("exarchos.requireChecks"); ok {
		if b := r.ConfigBool("exarchos.requireChecks"); b != env.OptIn["checks-passed"] {
			altEnv.OptIn = map[string]bool{"checks-passed": b}
			keys = append(keys, "exarchos.requireChecks="+v)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	altOut, altRej, err := DecideAll(alt, st, cmds, altEnv)
	if err != nil || sameOutcome(out, rej, altOut, altRej) {
		return nil
	}
	return fmt.Errorf("%s would have changed this decision (%s instead of %s): %s",
		strings.Join(keys, ", "), outcome(altOut, altRej), outcome(out, rej), LegacyWarning(legacySet(r.git, []string{st.Type}), r.Base().Ref))
}

func sameOutcome(a []workflow.NewEvent, ar *workflow.Rejection, b []workflow.NewEvent, br *workflow.Rejection) bool {
	return outcome(a, ar) == outcome(b, br)
}

// outcome names what a decision does: the events it records and the refusal it gives.
func outcome(out []workflow.NewEvent, rej *workflow.Rejection) string {
	types := make([]string, 0, len(out)+1)
	for _, e := range out {
		types = append(types, e.Type)
	}
	types = slices.Compact(types)
	if rej != nil {
		types = append(types, "refused "+rej.Code)
	}
	if len(types) == 0 {
		return "nothing"
	}
	return strings.Join(types, ", ")
}
