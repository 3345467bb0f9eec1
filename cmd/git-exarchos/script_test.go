package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/exarchos/git-exarchos/internal/agentenv"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/mcpserver"
)

// TestMain makes the test binary double as git-exarchos, so scripts run `exec git exarchos …`
// through the real git, which finds git-exarchos on PATH, and as git-exarchos-mcp, which doctor
// looks for there. The tests run isolated from the developer's PATH and git config
// (gittest.Isolate), before testscript puts its own git-exarchos on PATH; the binary run as one
// of the commands skips that.
func TestMain(m *testing.M) {
	// The binary a script runs is this test binary: its human decisions look at their ancestry
	// only up to the test process that started the script (ancestryTopEnv), as the tests' own
	// environment is cleared of an agent session the developer may run them in.
	if top, err := strconv.Atoi(os.Getenv(ancestryTopEnv)); err == nil {
		agentenv.SetAncestryTop(top)
	}
	cmds := map[string]func(){
		"git-exarchos":     func() { os.Exit(checkedRun(os.Args)) },
		"git-exarchos-mcp": func() { os.Exit(mcpserver.Main(os.Args, os.Stdin, os.Stdout, os.Stderr, "test")) },
	}
	if os.Getenv(asCLIEnv) == "1" {
		os.Exit(checkedRun(os.Args)) // a copy of the binary under another name (authority_attempts.txtar)
	}
	restore := func() {}
	if _, isCmd := cmds[filepath.Base(os.Args[0])]; !isCmd {
		var err error
		if restore, err = gittest.Isolate(); err != nil {
			fmt.Fprintln(os.Stderr, "isolate the tests' environment:", err)
			os.Exit(1)
		}
	}
	testscript.Main(afterRun{m, restore}, cmds)
}

// afterRun runs the tests, then done (testscript.Main exits without returning).
type afterRun struct {
	m    *testing.M
	done func()
}

func (a afterRun) Run() int {
	defer a.done()
	return a.m.Run()
}

// asCLIEnv makes a copy of the test binary, under any name, run as git-exarchos does whatever its
// name: how a script tries "a copy of the binary named grep".
const asCLIEnv = "EXARCHOS_TEST_BINARY_AS_CLI"

// ancestryTopEnv names the test process, where a script's human decisions stop looking at their
// ancestry (honoured by the test binary only: agentenv.SetAncestryTop).
const ancestryTopEnv = "EXARCHOS_TEST_ANCESTRY_TOP"

// TestScripts runs testdata/script/*.txtar end to end, each in a fresh repository.
func TestScripts(t *testing.T) {
	testscript.Run(t, scriptParams("testdata/script"))
}

func scriptParams(dir string) testscript.Params {
	return testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		Cmds:                withCmds(map[string]func(ts *testscript.TestScript, neg bool, args []string){"exits": cmdExits}),
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, ".home")
			if err := os.MkdirAll(home, 0o755); err != nil {
				return err
			}
			gitconfig := "[user]\n\tname = Script User\n\temail = script@example.com\n[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n[exarchos]\n\tgithubApiHost = 127.0.0.1\n"
			if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(gitconfig), 0o644); err != nil {
				return err
			}
			env.Setenv("HOME", home)
			env.Setenv(ancestryTopEnv, strconv.Itoa(os.Getpid()))
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			env.Setenv("NO_COLOR", "1")
			env.Setenv("GIT_AUTHOR_DATE", "")
			env.Vars = agentenv.Strip(env.Vars) // testscript passes few variables through; none of the agent's
			return nil
		},
	}
}

// cmdExits runs a program and checks its exit code: `exits 3 git exarchos transition f plan`.
// Output goes to stdout/stderr as with exec, so later stdout/stderr lines can check it.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE program [args...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		got = ee.ExitCode()
	} else if err != nil {
		ts.Fatalf("%v", err)
	}
	if got != want {
		ts.Fatalf("exit code %d, want %d", got, want)
	}
}
