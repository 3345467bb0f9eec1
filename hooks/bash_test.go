package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bashCase is one command and what the hook must say about it: a substring of the refusal, or ""
// for allowed.
type bashCase struct {
	cmd  string
	want string
}

const (
	wRefs     = "writes refs/exarchos/* directly"
	wOverride = "guard overrides"
	wProt     = "which the agent may not change"
	wConfig   = "setting git config"
	wUnknown  = "cannot read before it runs"
	wHooks    = "lifts the hooks' rules"
	wSigners  = "decides who may sign or commits on the base branch"
	wCopy     = "copying the git-exarchos binary"
	wLink     = "this link would reach"
)

func human(verb string) string { return "`git exarchos " + verb + "` is a human decision" }

// testCtx is a session in /repo (its git directory protected), the repository defining two
// aliases; waiting names the workflow waiting on a human, or "".
func testCtx(cwd, waiting string) BashContext {
	aliases := map[string]string{"ap": "exarchos approve", "shap": "!git exarchos approve", "co": "checkout", "lg": "log --oneline"}
	return BashContext{Cwd: cwd, Waiting: waiting, Protected: []string{"/repo/.git"}, Alias: func(n string) (string, bool) {
		v, ok := aliases[n]
		return v, ok
	}}
}

// TestCheckBashAlwaysRefused: the bypasses of issue 14 that write what the hooks depend on or make a
// human's decision are refused in every phase, waiting on a human or not.
func TestCheckBashAlwaysRefused(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nset -e\ngit exarchos approve login\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []bashCase{
		{"git update-ref refs/exarchos/login HEAD", wRefs},
		{"git update-ref -d refs/exarchos/login", wRefs},
		{"git -C /repo update-ref 'refs/exarchos/login' abc", wRefs},
		{"printf 'delete refs/exarchos/x\\n' | git update-ref --stdin", wRefs},
		{"git update-ref --stdin <<EOF\ndelete refs/exarchos/x\nEOF", wRefs},
		{"echo refs/exarchos/x | xargs git update-ref -d", wRefs},
		{"git push origin refs/exarchos/login", wRefs},
		{"git push origin :refs/exarchos/login", wRefs},
		{"git push --delete origin refs/exarchos/login", wRefs},
		{"git push origin 'refs/exarchos/*:refs/exarchos/*'", wRefs},
		{"git fetch origin +refs/exarchos/*:refs/exarchos/*", wRefs},
		{"rm -f .git/refs/exarchos/login", wRefs},
		{"echo 0000 > .git/refs/exarchos/login", wRefs},
		{"echo x >> .git/refs/exarchos/a/b", wRefs},
		{"sudo -u me git update-ref refs/exarchos/x HEAD", wRefs},
		{"env GIT_DIR=.git git update-ref refs/exarchos/x HEAD", wRefs},
		{"ls && (cd sub; git update-ref refs/exarchos/x HEAD)", wRefs},
		{"echo $(git update-ref refs/exarchos/x HEAD)", wRefs},
		{"git update-ref refs/ex\\archos/x HEAD", wRefs},
		// Refs behind the CLI's back (issue 14).
		{"cd .git/refs && echo 0000 > exarchos/f", wRefs},
		{"cd /repo/.git/refs; printf '%s\\n' abc > exarchos/f", wRefs},
		{"r=refs/exarch; git update-ref ${r}os/f HEAD", wRefs},
		{"git update-ref --stdin < /tmp/cmds", wRefs},
		{"cat /tmp/cmds | git update-ref --stdin", wRefs},
		{"git fetch origin 'refs/heads/x*:refs/exar*'", wRefs},
		{"git fetch origin 'refs/heads/*:refs/*'", wRefs},
		{"git fetch --mirror origin", wRefs},
		{"git push origin 'refs/heads/*:refs/*'", wRefs},
		{"git config remote.origin.fetch '+refs/*:refs/*'", wConfig},
		{"git config --add remote.origin.fetch '+refs/heads/*:refs/exarchos/*'", wConfig},
		{"git remote add --mirror=fetch m ../x", wConfig},
		{"git symbolic-ref refs/heads/x refs/exarchos/f", wRefs},
		{"sed -i s/a/b/ .git/packed-refs", wProt},
		{"cd .git && sed -i s/a/b/ packed-refs", wProt},
		{"perl -pi -e s/a/b/ .git/packed-refs; sed -i.bak s/a/b/ /repo/.git/packed-refs", wProt},
		// Standing the hook aside.
		{"echo '#!/bin/sh' > .git/hooks/pre-push", wProt},
		{"rm .git/exarchos/journal/*", wProt},
		{"rm -rf .git/exarchos-cache/hooks", wProt},
		{"printf 'x' | tee /repo/.git/exarchos-cache/hooks/state/login", wProt},
		{"echo '{}' > .claude/settings.json", wProt},
		{"sed -i '/exarchos/d' .claude/settings.local.json", wProt},
		{"mv .claude/settings.json /tmp/", wProt},
		{"mkdir -p .exarchos/workflows && cat > .exarchos/workflows/x.yaml", wProt},
		{"cp /tmp/def.yaml .exarchos/workflows/x.yaml", wProt},
		{"git config core.hooksPath /tmp/h", wConfig},
		{"git config --add alias.x 'exarchos approve'", wConfig},
		{"git config set alias.x 'exarchos approve'", wConfig},
		{"git config --global alias.x 'exarchos approve'", wConfig},
		{"git config exarchos.stopGuard false", wConfig},
		{"git config include.path /tmp/evil", wConfig},
		{"git config --edit", wConfig},
		{"git -c alias.x='exarchos approve' x", wConfig},
		{"git -c core.hooksPath=/dev/null commit -m x", wConfig},
		{"git --config-env=alias.x=EVIL x", wConfig},
		{"GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0='exarchos approve' git x", wConfig},
		{"env GIT_CONFIG_PARAMETERS=\"'alias.x=exarchos approve'\" git x", wConfig},
		{"git exarchos hooks uninstall --claude", wHooks},
		{"git exarchos hooks release --all", wHooks},
		{"git exarchos hooks accept", wHooks},
		{"git exarchos cancel g --human --reason x", "--human marks the user's own decision"},
		{"git exarchos init h2 --type oneshot --human", "--human marks the user's own decision"},
		{"git exarchos hooks accept login --json", wHooks},
		{"git exarchos signers add --role approve alice@example.com key.pub", wSigners},
		{"git exarchos setup --signer", wSigners},
		{"git exarchos setup --json --commit", wSigners},
		{"git exarchos setup --commit=true", wSigners},
		{"s=--signer; git exarchos setup $s", wSigners},
		{"cp $(which git-exarchos) /tmp/x", wCopy},
		{"install -m 755 /usr/local/bin/git-exarchos /tmp/x", wCopy},
		{"ln -s $(command -v git-exarchos) /tmp/x", wLink},
		{"ln -s .git/refs r", wLink},
		// Human decisions, however they are spelled.
		{"git exarchos approve login", human("approve")},
		// Merging the pull request is the user's (issue 40): exarchos's, gh's, the API's.
		{"git exarchos pr merge login --squash", "merges the pull request, a human decision"},
		{"git-exarchos --json pr merge", "merges the pull request, a human decision"},
		{"m=merge; git exarchos pr $m login", "merges the pull request, a human decision"},
		{"gh pr merge 12 --squash --admin", "merges the pull request, a human decision"},
		{"gh --repo acme/app pr merge 12", "merges the pull request, a human decision"},
		{"gh api -X PUT repos/acme/app/pulls/12/merge -f sha=abc", "merges the pull request, a human decision"},
		{"gh api graphql -f query='mutation { mergePullRequest(input: {pullRequestId: \"x\"}) { clientMutationId } }'", "merges the pull request, a human decision"},
		{"git exarchos acknowledge login 14 --reason mine", human("acknowledge")},
		{"git exarchos approve", human("approve")},
		{"git-exarchos reject login --gaps x", human("reject")},
		{"/usr/local/bin/git-exarchos unblock login --reason x", human("unblock")},
		{"git -c color.ui=never exarchos --json approve login", human("approve")},
		{"git exarchos grant login --tool Write --once --reason r", human("grant")},
		{"git exarchos budget extend login 10 --reason r", human("budget")},
		{"git exarchos -- approve login", human("approve")},
		{"git exarch\"os\" 'appr'ove login", human("approve")},
		{"bash -c 'git exarchos approve login'", human("approve")},
		{"bash -c -- 'git exarchos approve login'", human("approve")},
		{"sh -ec 'git exarchos approve login'", human("approve")},
		{"bash -xc 'git exarchos approve login'", human("approve")},
		{"sh -c \"eval 'git exarchos unblock login --reason r'\"", human("unblock")},
		{"env -S 'git exarchos approve login'", human("approve")},
		{"env -S'git exarchos approve login'", human("approve")},
		{"bash <<EOF\ngit exarchos approve login\nEOF", human("approve")},
		{"bash <<'EOF'\ngit exarchos approve login\nEOF", human("approve")},
		{"bash <<< 'git exarchos approve login'", human("approve")},
		{"timeout 5 git exarchos approve login", human("approve")},
		{"setsid git exarchos approve login", human("approve")},
		{"setsid -f git exarchos approve login", human("approve")},
		{"nohup nice -n 5 git exarchos approve login &", human("approve")},
		{"script -c 'git exarchos approve login' /dev/null", human("approve")},
		{"exec -a x git exarchos approve login", human("approve")},
		{"find . -maxdepth 0 -exec git exarchos approve login \\;", human("approve")},
		{"echo login | xargs git exarchos approve", human("approve")},
		{"bash " + script, human("approve")},
		{"source " + script, human("approve")},
		{"git ap login", human("approve")},
		{"git shap login", human("approve")},
		{"git exarchos override login artifact-design --reason r", wOverride},
		{"git exarchos transition login plan --override artifact-design", wOverride},
		{"git exarchos transition login plan --override=artifact-design", wOverride},
		{"cd repo && git exarchos status && git exarchos approve login; ls", human("approve")},
		{"git exarchos approve login 'unterminated", human("approve")}, // bash refuses to parse it; the words still count
	}
	for _, waiting := range []string{"", "login"} {
		for _, c := range cases {
			got := CheckBash(c.cmd, testCtx("/repo", waiting))
			if !strings.Contains(got, c.want) || got == "" {
				t.Errorf("waiting=%q %q:\n got %q\nwant it to say %q", waiting, c.cmd, got, c.want)
			}
		}
	}
}

// TestCheckBashUnreadableWhileWaiting: while a workflow waits on a human, a git or exarchos
// invocation whose verb cannot be read before it runs is refused; in other phases it is not the
// hook's business (the effects check and verify catch what it does).
func TestCheckBashUnreadableWhileWaiting(t *testing.T) {
	cases := []string{
		"c=approve; git exarchos $c login",
		"git exarchos $(echo approve) login",
		"git exarchos `echo approve` login",
		"git exarchos {approve,} login",
		"git exarchos ${x:-approve} login",
		"git exarchos $'\\x61pprove' login",
		"git exarchos appr?ve login",
		"f() { git exarchos \"$@\"; }; f approve login",
		"a=(git exarchos approve login); \"${a[@]}\"",
		"$GIT exarchos approve login",
		"g=git; $g exarchos approve login",
		"echo approve | xargs git exarchos",
		"echo approve | xargs -I{} git exarchos {} login",
		"find . -maxdepth 0 -exec git exarchos {} \\;",
		"echo 'git exarchos approve login' | sh",
		"echo 'git exarchos approve login' | bash -s",
		"bash < /tmp/cmds",
		"bash ./missing-script.sh",
		"bash -c \"$CMD\"",
		"eval \"$CMD\"",
		"/tmp/x approve login",
		"./ex approve login",
		"git nosuchalias login",
		"git --exec-path=/tmp/bin exarchos-copy approve",
		"python3 -c 'import os; os.system(\"git exarchos approve login\")'",
	}
	for _, cmd := range cases {
		if got := CheckBash(cmd, testCtx("/repo", "login")); !strings.Contains(got, wUnknown) && !strings.Contains(got, "is a human decision") {
			t.Errorf("waiting, %q:\n got %q\nwant refused as unreadable", cmd, got)
		}
		if got := CheckBash(cmd, testCtx("/repo", "")); got != "" {
			t.Errorf("not waiting, %q: refused (%s), want allowed", cmd, got)
		}
	}
}

// TestCheckBashHarmless: what mentions approve, --override or refs/exarchos without doing it, and
// everyday commands, stay allowed in every phase.
func TestCheckBashHarmless(t *testing.T) {
	allowed := []string{
		"",
		"gh pr view 12", "gh api repos/acme/app/pulls/12", "git exarchos pr create login", "git exarchos pr refresh", "gh pr list --search merge",
		"go test ./...",
		"go test ./... -run TestApprove 2>&1 | tail -5",
		"git log refs/exarchos/login",
		"git log refs/exarchos/login --oneline",
		"git for-each-ref refs/exarchos/",
		"git show refs/exarchos/login:state.json | jq .",
		"cat .git/refs/exarchos/login",
		"cat .git/HEAD && git rev-parse --git-dir",
		"grep -rn approve .git/COMMIT_EDITMSG",
		"git push origin login",
		"git push origin HEAD",
		"git fetch origin '+refs/exarchos/*:refs/exarchos-remotes/origin/*'",
		"git fetch origin main:refs/remotes/origin/main",
		"git exarchos status login --json",
		"git exarchos setup",
		"git exarchos setup --dry-run --json --plugin",
		"git exarchos signers list",
		"git exarchos transition login plan",
		"git exarchos transitions login",
		"git exarchos set login artifacts.design=docs/design.md",
		"git exarchos log login --type guard.overridden",
		"git exarchos push origin",
		"git exarchos hooks status",
		"git exarchos cancel login --reason 'start over'",
		"git exarchos describe feature | grep approve",
		"echo 'git exarchos approve is for humans'",
		"echo approve",
		"grep -c approve notes.md",
		"grep -rn -- --override docs/",
		"rg 'refs/exarchos' -n",
		"git commit -m 'docs: explain why git exarchos approve is a human step'",
		"git commit -am \"refs/exarchos/login is written by the CLI; never pass --override\"",
		"git log --grep approve",
		"git update-ref refs/heads/tmp HEAD",
		"git config --get alias.co",
		"git config user.name",
		"git config --list",
		"git config user.email me@example.com",
		"git -c color.ui=never status",
		"git co main",
		"git lg -5",
		"git status && git diff HEAD~1",
		"cd docs && echo hi > notes.md",
		"echo \"$HOME\" && ls $HOME",
		"for f in *.go; do gofmt -l $f; done",
		"make test 2>&1 | tail -5",
		"npm run build",
		"mkdir -p docs/design && touch docs/design/a.md",
		"cp README.md docs/",
		"sed -i s/foo/bar/ docs/design.md",
		"bash -c 'go vet ./...'",
		"find . -name '*.go' -exec gofmt -l {} +",
		"ls | xargs wc -l",
		// The agent's variables read, and other variables changed (issue 29).
		"echo $CLAUDECODE",
		"env | grep CLAUDE",
		"printenv AI_AGENT",
		"env FOO=1 go test ./...",
		"FOO=1 go test ./...",
		"unset FOO",
		"export PATH=$PATH:/opt/bin",
		"python3 -c 'print(1)'",
		"node -e 'console.log(process.env.HOME)'",
		"env -u FOO go test ./...",
		"env -vu FOO go test ./...",
		"env -C /tmp go test ./...",
		"alias ll='ls -l'",
	}
	for _, waiting := range []string{"", "login"} {
		for _, cmd := range allowed {
			if got := CheckBash(cmd, testCtx("/repo", waiting)); got != "" {
				t.Errorf("waiting=%q %q: refused (%s), want allowed", waiting, cmd, got)
			}
		}
	}
}

func TestProtectedPath(t *testing.T) {
	for target, want := range map[string]bool{
		".git/refs/exarchos/f":               true,
		"/repo/.git/config":                  true,
		"/elsewhere/.git/hooks/pre-commit":   true,
		".claude/settings.json":              true,
		".claude/settings.local.json":        true,
		"/home/u/.claude/settings.json":      true,
		".exarchos/workflows/docs.yaml":      true,
		"/repo/.git-state/x":                 false,
		".claude/agents/reviewer.md":         false,
		"docs/design.md":                     false,
		"src/git/refs.go":                    false,
		"/var/state/git-exarchos/sessions/a": true,
	} {
		if got := ProtectedPath(target, "/repo", []string{"/repo/.git", "/var/state/git-exarchos/sessions"}); got != want {
			t.Errorf("ProtectedPath(%q) = %v, want %v", target, got, want)
		}
	}
}

func BenchmarkCheckBash(b *testing.B) {
	ctx := testCtx("/repo", "login")
	for b.Loop() {
		CheckBash("cd /repo && go test ./... 2>&1 | tail -20 && git status --short", ctx)
	}
}

const wAgentEnv = "human decisions refuse to run where they are set"

// TestCheckBashRefusesClearingTheAgentsEnvironment: a command that clears or changes the variables
// by which a human decision knows it runs in the agent's session is refused, wherever in the
// command it is (issue 29 item 1), waiting on a human or not.
func TestCheckBashRefusesClearingTheAgentsEnvironment(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "clear.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nunset CLAUDECODE AI_AGENT\nmake ok\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	refused := []string{
		"env -u CLAUDECODE make ok",
		"env -uCLAUDECODE make ok",
		"env --unset=AI_AGENT make ok",
		"env --unset CLAUDE_CODE_SESSION_ID make ok",
		"env -u $v make ok",
		"env -i PATH=/usr/bin make ok",
		"env --ignore-environment make ok",
		"env - make ok",
		"env -iv make ok",
		"env -vu CLAUDECODE make ok",
		"env -0vuAI_AGENT make ok",
		"env -C /tmp -u CLAUDECODE make ok",
		"env CLAUDECODE= make ok",
		"env AI_AGENT=human make ok",
		"env -S 'CLAUDECODE= make ok'",
		"unset CLAUDECODE",
		"unset -v AI_AGENT; make ok",
		"unset $v",
		"CLAUDECODE= make -f ../Mk ok",
		"CLAUDECODE=0 python3 x.py",
		"CLAUDE_CODE_ENTRYPOINT=terminal make ok",
		"AI_AGENT=",
		"export AI_AGENT=",
		"export -n CLAUDECODE",
		"declare +x CLAUDECODE",
		"typeset CLAUDECODE=",
		"readonly AI_AGENT=",
		"f() { local CLAUDECODE; make ok; }; f",
		"(unset CLAUDECODE; make ok)",
		"echo $(CLAUDECODE= make ok)",
		"bash -c 'unset CLAUDECODE; make ok'",
		"sh -c \"env -i make ok\"",
		"eval 'unset AI_AGENT'",
		"true && { CLAUDECODE= ./ap.sh; }",
		"ls | CLAUDECODE= xargs make",
		"nohup env -i make ok &",
		"timeout 5 env -u CLAUDECODE make ok",
		"exec -c make ok",
		"su - $USER -c 'make ok'",
		"sudo -i make ok",
		"setpriv --reset-env make ok",
		"systemd-run --user make ok",
		"alias m='CLAUDECODE= make'",
		"bash " + script,
		"python3 -c 'import os; os.environ.pop(\"CLAUDECODE\"); os.system(\"make ok\")'",
		"python3 -c 'import os; os.environ.clear(); os.system(\"make ok\")'",
		"python3 -c 'import subprocess; subprocess.run([\"make\",\"ok\"], env={})'",
		"perl -e 'delete $ENV{AI_AGENT}; system(\"make ok\")'",
		"perl -e '%ENV = (); system(\"make ok\")'",
		"node -e 'require(\"child_process\").execSync(\"make ok\", {env: {}})'",
		"ruby -e 'ENV.delete(\"GEMINI_CLI\"); system(\"make ok\")'",
		// Every client's variables (issue 39).
		"CODEX_CI= make ok",
		"env -u CODEX_THREAD_ID -u CODEX_SESSION_ID make ok",
		"unset CODEX_TOOL_CALL_ID; make ok",
		"QWEN_CODE= make ok",
		"env -u COPILOT_CLI make ok",
		"(unset COPILOT_AGENT_SESSION_ID; make ok)",
		"export GEMINI_CLI=; make ok",
	}
	for _, waiting := range []string{"", "login"} {
		for _, cmd := range refused {
			if got := CheckBash(cmd, testCtx("/repo", waiting)); !strings.Contains(got, wAgentEnv) {
				t.Errorf("waiting=%q %q: got %q, want the agent-environment refusal", waiting, cmd, got)
			}
		}
	}
}
