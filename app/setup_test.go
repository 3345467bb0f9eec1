package app

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	gitexarchos "github.com/exarchos/git-exarchos"
	"github.com/exarchos/git-exarchos/internal/agentenv"
	"github.com/exarchos/git-exarchos/internal/faults"
	"github.com/exarchos/git-exarchos/internal/gittest"
)

// setupRepo is a repository on main with a bare origin, and a scratch HOME (no signing key).
func setupRepo(t *testing.T) (string, *Repo) {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir, _ := newRepo(t, "main")
	origin := t.TempDir()
	gittest.Git(t, origin, "", "init", "-q", "--bare")
	gittest.Git(t, dir, "", "remote", "add", "origin", origin)
	gittest.Git(t, dir, "", "push", "-q", "origin", "main")
	gittest.Git(t, dir, "", "fetch", "-q", "origin")
	r, err := Open(dir)
	require.NoError(t, err)
	return dir, r
}

func statuses(res *SetupResult) map[string]string {
	out := map[string]string{}
	for _, st := range res.Steps {
		out[st.Step] = st.Status
	}
	return out
}

// The file setup writes is, byte for byte, the one this repository ships (and ci_script_test.go runs).
func TestSetupWritesTheShippedVerifyWorkflow(t *testing.T) {
	dir, r := setupRepo(t)
	_, err := Setup(r, SetupOptions{})
	require.NoError(t, err)
	shipped, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(gitexarchos.VerifyWorkflowPath)))
	require.NoError(t, err)
	written, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(gitexarchos.VerifyWorkflowPath)))
	require.NoError(t, err)
	require.Equal(t, string(shipped), string(written))
}

// A setup killed after any step leaves every file it writes absent or whole (no temporary file
// beside it), and a second run finishes the rest; a third changes nothing.
func TestSetupKilledBetweenSteps(t *testing.T) {
	if !canKill() {
		t.Skip("no fault points on this platform")
	}
	exe := gittest.FaultsBinary(t)
	for step := 1; step <= 5; step++ {
		t.Run("after step "+strconv.Itoa(step), func(t *testing.T) {
			dir, _ := setupRepo(t)
			cmd := exec.Command(exe, "setup", "--commit")
			cmd.Dir = dir
			cmd.Env = append(agentFreeEnv(), faults.Env+"="+strconv.Itoa(step))
			out, err := cmd.CombinedOutput()
			require.True(t, gittest.KilledBySIGKILL(err), "not killed after step %d: %v\n%s", step, err, out)

			checkWholeFiles(t, dir)
			r, err := Open(dir)
			require.NoError(t, err)
			res, err := Setup(r, SetupOptions{Commit: true})
			require.NoError(t, err)
			require.Equal(t, StepDone, statuses(res)["commit"], "%+v", res.Steps)
			checkWholeFiles(t, dir)
			again, err := Setup(r, SetupOptions{Commit: true})
			require.NoError(t, err)
			for _, st := range again.Steps {
				require.NotEqual(t, StepDone, st.Status, "%s done again: %+v", st.Step, st)
			}
			require.Equal(t, "", strings.TrimSpace(gittest.Git(t, dir, "", "status", "--porcelain")))
		})
	}
}

func canKill() bool { _, err := exec.LookPath("go"); return err == nil }

// agentFreeEnv is the test's environment without the agent's variables, so the child runs as a
// user's terminal would, inside an agent session or not.
func agentFreeEnv() []string {
	return append(agentenv.Strip(gittest.Env()), "HOME="+os.Getenv("HOME"))
}

// checkWholeFiles: no temporary file left, and each file setup writes is absent or complete.
func checkWholeFiles(t *testing.T, dir string) {
	t.Helper()
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Name() == ".git" && d.IsDir() {
			return err
		}
		require.NotContains(t, d.Name(), ".tmp-", "temporary file left: %s", p)
		return nil
	}))
	for _, rel := range []string{".claude/settings.json", MCPConfigFile} {
		b, err := os.ReadFile(filepath.Join(dir, rel))
		if os.IsNotExist(err) {
			continue
		}
		require.NoError(t, err)
		require.True(t, json.Valid(b), "%s is not whole: %q", rel, b)
	}
	if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(gitexarchos.VerifyWorkflowPath))); err == nil {
		require.Equal(t, string(gitexarchos.VerifyWorkflow), string(b))
	}
}

// On a terminal setup asks before a human's step: no leaves it for a human and changes nothing,
// yes does it; the question about the key says what an unprotected key means.
func TestSetupAsksBeforeAHumansStep(t *testing.T) {
	dir, r := setupRepo(t)
	key := sshKey(t, dir)
	gittest.Git(t, dir, "", "config", "user.signingkey", key) // the private half: setup offers its .pub
	var asked []string
	answer := false
	ask := func(q string) bool { asked = append(asked, q); return answer }

	res, err := Setup(r, SetupOptions{Confirm: ask})
	require.NoError(t, err)
	require.Equal(t, StepLeftForHuman, statuses(res)["signer"])
	require.Equal(t, StepLeftForHuman, statuses(res)["commit"])
	require.Len(t, asked, 3) // the signer, the commit, exarchos.autoPush (origin is not on GitHub: not asked)
	require.Contains(t, asked[2], "exarchos.autoPush")
	require.Contains(t, asked[0], key+".pub")
	require.Contains(t, asked[0], "without a passphrase: any process running as you (an agent too) can sign with it")
	require.NoFileExists(t, filepath.Join(dir, ".exarchos", "allowed_signers"))
	require.Equal(t, "initial", gittest.Git(t, dir, "", "log", "-1", "--format=%s"))

	answer, asked = true, nil
	res, err = Setup(r, SetupOptions{Confirm: ask})
	require.NoError(t, err)
	require.Equal(t, StepDone, statuses(res)["signer"], "%+v", res.Steps)
	require.Equal(t, StepDone, statuses(res)["commit"], "%+v", res.Steps)
	require.Equal(t, "exarchos: set up the repository", gittest.Git(t, dir, "", "log", "-1", "--format=%s"))
	require.Contains(t, gittest.Git(t, dir, "", "show", "--name-only", "--format=", "HEAD"), ".exarchos/allowed_signers")

	// In an agent's environment nothing is asked, and the steps say whom to ask.
	asked = nil
	gittest.Git(t, dir, "", "config", "user.email", "other@example.com")
	r, err = Open(dir)
	require.NoError(t, err)
	r.Environ = agentenv.Env{"CLAUDE_CODE_SESSION_ID=s1"}
	res, err = Setup(r, SetupOptions{Confirm: ask})
	require.NoError(t, err)
	require.Empty(t, asked)
	require.Equal(t, StepLeftForHuman, statuses(res)["signer"])
	require.Contains(t, res.Steps[4].Detail, "ask the user to run `git exarchos setup --signer` in their own terminal")
	r.Environ = agentenv.Env{"CLAUDE_CODE_ENTRYPOINT=cli"}
	_, err = Setup(r, SetupOptions{Signer: true})
	require.ErrorContains(t, err, "CLAUDE_CODE_ENTRYPOINT is set")
}

// A key given in the configuration itself (user.signingkey key::<public key>) is offered too.
func TestSetupSignerFromALiteralKey(t *testing.T) {
	dir, _ := setupRepo(t)
	pub, err := os.ReadFile(sshKey(t, dir) + ".pub")
	require.NoError(t, err)
	gittest.Git(t, dir, "", "config", "user.signingkey", "key::"+strings.TrimSpace(string(pub)))
	r, err := Open(dir)
	require.NoError(t, err)
	res, err := Setup(r, SetupOptions{Signer: true})
	require.NoError(t, err)
	require.Equal(t, StepDone, statuses(res)["signer"], "%+v", res.Steps)
	signers, err := os.ReadFile(filepath.Join(dir, ".exarchos", "allowed_signers"))
	require.NoError(t, err)
	f := strings.Fields(string(pub))
	require.Contains(t, string(signers), "test@example.com namespaces=\"git-exarchos\" "+f[0]+" "+f[1])
	res, err = Setup(r, SetupOptions{Signer: true})
	require.NoError(t, err)
	require.Equal(t, StepAlready, statuses(res)["signer"])
}

// sshKey makes an SSH key without a passphrase and sets gpg.format ssh in dir; it returns the
// private key's path.
func sshKey(t *testing.T, dir string) string {
	t.Helper()
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		t.Skip("no ssh-keygen")
	}
	key := filepath.Join(t.TempDir(), "k")
	out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "k", "-f", key).CombinedOutput()
	require.NoError(t, err, "%s", out)
	gittest.Git(t, dir, "", "config", "gpg.format", "ssh")
	return key
}

// Issue 37 item 9: `setup --signer --commit` killed at any point (after each step, and at each
// instant of the signers change) and run again finishes: the signer is committed and nothing is
// left untracked (no .exarchos/.signers-change, no staged copy).
func TestSetupSignerKilledAnywhereFinishes(t *testing.T) {
	if !canKill() {
		t.Skip("no fault points on this platform")
	}
	exe := gittest.FaultsBinary(t)
	points := []string{"1", "2", "3", "4", "5", "6", "7", "5:signers-staged", "5:signers-committed", "5:signers-half", "5:atomicfile-written"}
	for _, point := range points {
		t.Run(point, func(t *testing.T) {
			dir, _ := setupRepo(t)
			key := sshKey(t, dir)
			gittest.Git(t, dir, "", "config", "user.signingkey", key)
			cmd := exec.Command(exe, "setup", "--signer", "--commit")
			cmd.Dir = dir
			cmd.Env = append(agentFreeEnv(), faults.Env+"="+point)
			out, err := cmd.CombinedOutput()
			require.True(t, gittest.KilledBySIGKILL(err), "not killed at %s: %v\n%s", point, err, out)

			cmd = exec.Command(exe, "setup", "--signer", "--commit")
			cmd.Dir = dir
			cmd.Env = agentFreeEnv()
			out, err = cmd.CombinedOutput()
			require.NoError(t, err, "setup run again after a kill at %s:\n%s", point, out)
			checkWholeFiles(t, dir)
			require.Equal(t, "", strings.TrimSpace(gittest.Git(t, dir, "", "status", "--porcelain", "--untracked-files=all")), "left behind after a kill at %s", point)
			require.Contains(t, gittest.Git(t, dir, "", "show", "HEAD:.exarchos/allowed_signers"), "test@example.com namespaces=")
		})
	}
}
