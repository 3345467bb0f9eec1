package main

import (
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/exarchos/git-exarchos/ghclient"
	"github.com/exarchos/git-exarchos/ghclient/fakegithub"
	"github.com/exarchos/git-exarchos/verify"
)

// scriptToken is the token scripts use; scripts assert it never shows up in output.
const scriptToken = "ghp_scriptSecret0123456789abcdef"

type scriptCmd = func(ts *testscript.TestScript, neg bool, args []string)

// extraScriptCmds are custom testscript commands added by other test files.
var extraScriptCmds = map[string]scriptCmd{"github": cmdGitHub}

func withCmds(m map[string]scriptCmd) map[string]scriptCmd {
	for k, v := range extraScriptCmds {
		m[k] = v
	}
	return m
}

// fakes holds each running script's fake GitHub.
var fakes sync.Map // *testscript.TestScript → *fakegithub.Server

// cmdGitHub drives a fake GitHub API in the test process, reached by the real binary through
// GITHUB_API_URL:
//
//	github start                             fake github.com/acme/app; sets GITHUB_API_URL, GH_TOKEN
//	github pr N head=B base=B sha=REF [state=closed] [headrepo=o/r] [author=LOGIN]
//	github merge N [merge=REF]   github close N   github push N sha=REF (a new head, e.g. force-push)
//	github check REF NAME CONCLUSION|in_progress   github status REF CONTEXT STATE
//	github review N USER STATE [sha=REF] (on the head by default)   github fail STATUS [COUNT] [Header:Value]... [body=TEXT]
//	github requests MAX          assert at most MAX requests since the last check, then reset
//	github closed N comments=K   assert pull request N is closed, with K comments posted
//	github branch B sha=REF      the repository has branch B at REF (pull requests open only from such)
//	github pulls N               assert the repository has exactly N pull requests
//	github show N                print pull request N (state, draft, head, base, title, then the body) to stdout
//	github comment N USER PATH LINE TEXT… [reply=ID]   a review comment on pull request N's diff
//	                             (its id: 1000 + 100·N + how many came before it on N)
//	github resolve N ID [open]   the thread whose first comment is ID resolved (or open again)
//	github actions               the token is GitHub Actions' (it may create check runs, as CI's verify --remember does)
//	github protect BRANCH        a ruleset on BRANCH requires "exarchos verify", refuses direct and force pushes
//	github stop                  the API goes away (network down)
//
// REF is a commit, or @rev resolved with git rev-parse in the script's directory.
func cmdGitHub(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: github start|pr|merge|close|push|check|status|review|fail|requests|stop ...")
	}
	if args[0] == "start" {
		f := fakegithub.New("github.com", "acme", "app", scriptToken)
		fakes.Store(ts, f)
		ts.Defer(f.Close)
		ts.Setenv("GITHUB_API_URL", f.URL)
		ts.Setenv("GH_TOKEN", scriptToken)
		ts.Setenv("EXARCHOS_GITHUB_RETRY_BUDGET", "300ms")
		return
	}
	v, ok := fakes.Load(ts)
	if !ok {
		ts.Fatalf("github start first")
	}
	f := v.(*fakegithub.Server)
	kv := map[string]string{}
	var pos []string
	for _, a := range args[1:] {
		if k, val, ok := strings.Cut(a, "="); ok {
			kv[k] = val
		} else {
			pos = append(pos, a)
		}
	}
	num := func(i int) int {
		if len(pos) <= i {
			ts.Fatalf("github %s: missing number", args[0])
		}
		n, err := strconv.Atoi(pos[i])
		ts.Check(err)
		return n
	}
	ref := func(s string) string {
		if !strings.HasPrefix(s, "@") {
			return s
		}
		cmd := exec.Command("git", "rev-parse", "--verify", s[1:]+"^{commit}")
		cmd.Dir = ts.MkAbs(".")
		out, err := cmd.Output()
		if err != nil {
			ts.Fatalf("git rev-parse %s: %v", s[1:], err)
		}
		return strings.TrimSpace(string(out))
	}
	update := func(n int, fn func(*fakegithub.PR)) {
		if !f.UpdatePR(n, fn) {
			ts.Fatalf("no pull request %d", n)
		}
	}
	switch args[0] {
	case "pr":
		f.SetPR(fakegithub.PR{Number: num(0), Head: kv["head"], Base: kv["base"], HeadSHA: ref(kv["sha"]), State: kv["state"], HeadRepo: kv["headrepo"], Author: kv["author"]})
	case "merge":
		merge := "0000000000000000000000000000000000000001"
		if m := kv["merge"]; m != "" {
			merge = ref(m)
		}
		update(num(0), func(p *fakegithub.PR) { p.State, p.Merged, p.MergeCommitSHA = "closed", true, merge })
	case "actions":
		f.App = "github-actions"
	case "protect":
		f.ProtectBranch(pos[0], verify.RequiredCheck, ghclient.ActionsAppID)
	case "close":
		update(num(0), func(p *fakegithub.PR) { p.State = "closed" })
	case "push":
		update(num(0), func(p *fakegithub.PR) { p.HeadSHA = ref(kv["sha"]) })
	case "check":
		status, conclusion := "completed", pos[2]
		if conclusion == "in_progress" || conclusion == "queued" {
			status, conclusion = conclusion, ""
		}
		f.AddCheckRun(ref(pos[0]), fakegithub.CheckRun{Name: pos[1], Status: status, Conclusion: conclusion})
	case "status":
		f.AddStatus(ref(pos[0]), fakegithub.Status{Context: pos[1], State: pos[2]})
	case "review":
		commit := ""
		if kv["sha"] != "" {
			commit = ref(kv["sha"])
		}
		f.AddReview(num(0), fakegithub.Review{User: pos[1], State: pos[2], Commit: commit})
	case "fail":
		count := 1
		if len(pos) > 1 {
			count = num(1)
		}
		fault := fakegithub.Fault{Status: num(0), Header: map[string]string{}, Body: kv["body"]}
		for _, p := range pos[2:] {
			if k, val, ok := strings.Cut(p, ":"); ok {
				fault.Header[k] = val
			}
		}
		for i := 0; i < count; i++ {
			f.Fail(fault)
		}
	case "requests":
		by, total := f.Requests()
		f.ResetRequests()
		ts.Logf("github requests: %d %v", total, by)
		if max := num(0); total > max {
			ts.Fatalf("%d GitHub requests (%v), want at most %d", total, by, max)
		}
	case "closed":
		p, ok := f.PR(num(0))
		comments := f.Comments(num(0))
		if !ok || p.State != "closed" || fmt.Sprint(len(comments)) != kv["comments"] {
			ts.Fatalf("pull request %d: %+v, comments %q; want closed with %s comment(s)", num(0), p, comments, kv["comments"])
		}
		for _, c := range comments {
			ts.Logf("comment: %s", c)
		}
	case "branch":
		f.SetBranch(pos[0], ref(kv["sha"]))
	case "pulls":
		n := 0
		for i := 1; i <= num(0)+1; i++ {
			if _, ok := f.PR(i); ok {
				n++
			}
		}
		if n != num(0) {
			ts.Fatalf("%d pull requests, want %d", n, num(0))
		}
	case "show":
		p, ok := f.PR(num(0))
		if !ok {
			ts.Fatalf("no pull request %d", num(0))
		}
		fmt.Fprintf(ts.Stdout(), "state=%s draft=%v head=%s base=%s sha=%s\ntitle=%s\n%s\n", p.State, p.Draft, p.Head, p.Base, p.HeadSHA, p.Title, p.Body)
	case "comment":
		line, err := strconv.Atoi(pos[3])
		ts.Check(err)
		var reply int64
		if kv["reply"] != "" {
			reply, err = strconv.ParseInt(kv["reply"], 10, 64)
			ts.Check(err)
		}
		id := f.AddReviewComment(num(0), fakegithub.ReviewComment{User: pos[1], Path: pos[2], Line: line, Body: strings.ReplaceAll(strings.Join(pos[4:], " "), `\n`, "\n"), InReplyTo: reply})
		ts.Logf("review comment %d", id)
	case "resolve":
		id, err := strconv.ParseInt(pos[1], 10, 64)
		ts.Check(err)
		f.ResolveThread(num(0), id, len(pos) < 3 || pos[2] != "open")
	case "stop":
		f.Close()
	default:
		ts.Fatalf("unknown github subcommand %q", args[0])
	}
}
