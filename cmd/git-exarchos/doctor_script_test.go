package main

import (
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/exarchos/git-exarchos/ghclient/fakegithub"
)

func init() { extraScriptCmds["github-access"] = cmdGitHubAccess }

// cmdGitHubAccess sets what the fake GitHub says the token may do on the repository:
//
//	github-access pull push [admin] [scopes=repo,workflow]
func cmdGitHubAccess(ts *testscript.TestScript, neg bool, args []string) {
	v, ok := fakes.Load(ts)
	if neg || !ok {
		ts.Fatalf("usage: github start first; github-access [pull] [push] [admin] [scopes=a,b]")
	}
	perms := map[string]bool{"pull": false, "push": false, "admin": false}
	scopes := ""
	for _, a := range args {
		if s, ok := strings.CutPrefix(a, "scopes="); ok {
			scopes = s
			continue
		}
		perms[a] = true
	}
	v.(*fakegithub.Server).SetAccess(perms, scopes)
}
