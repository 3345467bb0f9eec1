package hooks

import (
	"strings"
	"testing"
)

func TestCheckBash(t *testing.T) {
	refused := map[string]string{
		"git update-ref refs/exarchos/login HEAD":                          "refs",
		"git update-ref -d refs/exarchos/login":                            "refs",
		"git -C /repo update-ref 'refs/exarchos/login' abc":                "refs",
		"printf 'delete refs/exarchos/x\\n' | git update-ref --stdin":      "refs",
		"git update-ref --stdin <<EOF\ndelete refs/exarchos/x\nEOF":        "refs",
		"echo refs/exarchos/x | xargs git update-ref -d":                   "refs",
		"git push origin refs/exarchos/login":                              "refs",
		"git push origin :refs/exarchos/login":                             "refs",
		"git push --delete origin refs/exarchos/login":                     "refs",
		"git push origin 'refs/exarchos/*:refs/exarchos/*'":                "refs",
		"git fetch origin +refs/exarchos/*:refs/exarchos/*":                "refs",
		"rm -f .git/refs/exarchos/login":                                   "refs",
		"echo 0000 > .git/refs/exarchos/login":                             "refs",
		"echo x >> .git/refs/exarchos/a/b":                                 "refs",
		"sudo -u me git update-ref refs/exarchos/x HEAD":                   "refs",
		"env GIT_DIR=.git git update-ref refs/exarchos/x HEAD":             "refs",
		"ls && (cd sub; git update-ref refs/exarchos/x HEAD)":              "refs",
		"echo $(git update-ref refs/exarchos/x HEAD)":                      "refs",
		"git update-ref refs/ex\\archos/x HEAD":                            "refs",
		"git exarchos approve login":                                       "approve",
		"git exarchos approve":                                             "approve",
		"git-exarchos reject login --gaps x":                               "reject",
		"/usr/local/bin/git-exarchos unblock login --reason x":             "unblock",
		"git -c color.ui=never exarchos --json approve login":              "approve",
		"bash -c 'git exarchos approve login'":                             "approve",
		"sh -c \"eval 'git exarchos unblock login --reason r'\"":           "unblock",
		"timeout 5 git exarchos approve login":                             "approve",
		"git exarchos override login artifact-design --reason r":           "override",
		"git exarchos transition login plan --override artifact-design":    "override",
		"git exarchos transition login plan --override=artifact-design":    "override",
		"cd repo && git exarchos status && git exarchos approve login; ls": "approve",
		"git exarchos approve login 'unterminated":                         "approve", // bash refuses to parse it; the words still count
	}
	for cmd, want := range refused {
		got := CheckBash(cmd)
		if got == "" {
			t.Errorf("%q: allowed, want refused (%s)", cmd, want)
			continue
		}
		if want == "refs" && !strings.Contains(got, "writes refs/exarchos/* directly") ||
			want == "override" && !strings.Contains(got, "guard overrides") ||
			want != "refs" && want != "override" && !strings.Contains(got, "git exarchos "+want+"`") {
			t.Errorf("%q: reason %q does not say %s", cmd, got, want)
		}
	}
	allowed := []string{
		"",
		"go test ./...",
		"git log refs/exarchos/login",
		"git for-each-ref refs/exarchos/",
		"git show refs/exarchos/login:state.json | jq .",
		"cat .git/refs/exarchos/login",
		"git push origin login",
		"git fetch origin '+refs/exarchos/*:refs/exarchos-remotes/origin/*'",
		"git exarchos status login --json",
		"git exarchos transition login plan",
		"git exarchos set login artifacts.design=docs/design.md",
		"git exarchos log login --type guard.overridden",
		"git exarchos push origin",
		"git exarchos describe feature | grep approve",
		"echo 'git exarchos approve is for humans'",
		"grep -c approve notes.md",
		"git update-ref refs/heads/tmp HEAD",
	}
	for _, cmd := range allowed {
		if got := CheckBash(cmd); got != "" {
			t.Errorf("%q: refused (%s), want allowed", cmd, got)
		}
	}
}

func BenchmarkCheckBash(b *testing.B) {
	for b.Loop() {
		CheckBash("cd /repo && go test ./... 2>&1 | tail -20 && git status --short")
	}
}
