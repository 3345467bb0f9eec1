package trust_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/internal/faults"
	"github.com/exarchos/git-exarchos/internal/gittest"
)

// TestSignersAddKilledLeavesBothOldOrBothNew (issue 28): `signers add --role` killed at every
// point of its write leaves allowed_signers and roles both old, or both new once the next call
// finishes the change; never an empty roles file, never one ahead of the other, nothing staged left.
func TestSignersAddKilledLeavesBothOldOrBothNew(t *testing.T) {
	if !faults.Enabled && testing.Short() {
		t.Skip("builds the faults binary")
	}
	exe := gittest.FaultsBinary(t)
	keys := t.TempDir()
	for _, name := range []string{"bob", "carol"} {
		out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", filepath.Join(keys, name)).CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	run := func(dir, point string, args ...string) error {
		cmd := exec.Command(exe, args...)
		cmd.Dir = dir
		cmd.Env = append(gittest.Env(), "CLAUDECODE=", "CLAUDE_CODE_SESSION_ID=", "CLAUDE_CODE_ENTRYPOINT=", "AI_AGENT=", "CLAUDE_PROJECT_DIR=", faults.Env+"="+point)
		out, err := cmd.CombinedOutput()
		if err != nil && !gittest.KilledBySIGKILL(err) {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		return err
	}
	const oldSigners = "alice@example.com namespaces=\"git-exarchos\" ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOLmxqvX0dUa6MjEAb2J5bKpmEvUHQvVB1Gzz6pcJC9P\n"
	const oldRoles = "approve alice@example.com\n"
	for _, point := range []string{"signers-staged", "signers-committed", "signers-half"} {
		t.Run(point, func(t *testing.T) {
			dir := gittest.NewRepoOnBranch(t, "main")
			gittest.WriteFile(t, dir, ".exarchos/allowed_signers", oldSigners)
			gittest.WriteFile(t, dir, ".exarchos/roles", oldRoles)
			read := func() (string, string) {
				s, err := os.ReadFile(filepath.Join(dir, ".exarchos", "allowed_signers"))
				require.NoError(t, err)
				r, err := os.ReadFile(filepath.Join(dir, ".exarchos", "roles"))
				require.NoError(t, err)
				return string(s), string(r)
			}
			err := run(dir, "0:"+point, "signers", "add", "bob@example.com", filepath.Join(keys, "bob.pub"), "--role", "approve", "--role", "reject")
			require.True(t, gittest.KilledBySIGKILL(err), "the fault point %s was reached", point)
			signers, roles := read()
			_, journal := os.Stat(filepath.Join(dir, filepath.FromSlash(".exarchos/.signers-change"))) // trust.signersJournal
			committed := journal == nil
			if !committed {
				assert.Equal(t, oldSigners, signers)
				assert.Equal(t, oldRoles, roles)
			}
			assert.NotEmpty(t, strings.TrimSpace(roles), "roles is never left empty")
			if strings.Contains(signers, "bob@") {
				assert.Contains(t, roles, "bob@", "signers never ahead of roles")
			}

			require.NoError(t, run(dir, "", "signers", "add", "carol@example.com", filepath.Join(keys, "carol.pub")))
			signers, roles = read()
			assert.Contains(t, signers, "carol@")
			assert.Equal(t, committed, strings.Contains(signers, "bob@"), "bob is in allowed_signers exactly when the change was committed")
			assert.Equal(t, committed, strings.Contains(roles, "reject bob@"), "and in roles with it")
			left, _ := filepath.Glob(filepath.Join(dir, ".exarchos", "*"))
			hidden, _ := filepath.Glob(filepath.Join(dir, ".exarchos", ".*"))
			assert.ElementsMatch(t, []string{filepath.Join(dir, ".exarchos", "allowed_signers"), filepath.Join(dir, ".exarchos", "roles")}, append(left, hidden...), "nothing staged or journalled is left")
		})
	}
}
