package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/exarchos/git-exarchos"

// helpers stands for every internal/* package but internal/gittest (a test helper: it imports
// testing) and this one. Helpers import the standard library only, so any package may use them
// without an arrow pointing up.
const helpers = "internal/*"

// testOnly are the internal packages helpers does not stand for: only tests import them (and no
// package's row names them), or this test.
var testOnly = []string{"internal/gittest", "internal/apptest", "internal/ghactions", "internal/archtest"}

// rule is one row of the package table: a package (its directory under the module; "" is the
// module's root), its job, and what it may import besides the standard library.
type rule struct {
	job string
	// may lists the module's packages it may import (module-relative; helpers for internal/*).
	may []string
	// libraries lists the import-path prefixes of the third-party packages it may import.
	libraries []string
	// pure: no I/O and no clock of its own (no os, net, syscall, crypto/rand…, no time.Now).
	pure bool
	// planned: the package comes with another branch of this session; its row may come first.
	planned bool
}

// below is what DESIGN.md's "everything below" means for cmd/git-exarchos and app: every
// package under them in the table.
var below = []string{"", "guidance", "workflowdef", "guards", "hooks", "ghclient", "gitstore", "gitrepo", "signing", "fsmonitor", "workflow", helpers}

// jobs is what app and the CLI compose: the job packages split out of app (issue 31) over the
// project base, and everything below them.
var jobs = append([]string{"engine", "verify", "views", "ghevidence", "saga", "teamsync", "hookrun", "trust", "project"}, below...)

// except is list without the packages named.
func except(list []string, drop ...string) []string {
	var out []string
	for _, p := range list {
		if !slices.Contains(drop, p) {
			out = append(out, p)
		}
	}
	return out
}

// table mirrors the design's package table (DESIGN.md, the project's design notes; CONTRIBUTING.md's
// package map) with the same jobs and arrows, plus the internal helpers, the bench programs and the
// test doubles. Comments name where today's code departs from
// DESIGN.md, and the issue-31 split that removes the departure.
var table = map[string]rule{
	"cmd/git-exarchos": {
		job: "CLI wiring: the command tree, flags, text or --json, the one error → exit-code table",
		// Not mcpserver: the binary every hook runs must not link the MCP SDK
		// (mcpserver's TestMainBinaryDoesNotLinkTheSDK).
		// The hook's fast path goes straight to hookrun (never through app), with its
		// dependencies (the deadline, the monitor start) passed in hookrun.ClaudeHookOptions,
		// answering before the command tree is built; `hook monitor` calls fsmonitor.Serve (a
		// long-lived server with nothing of app's to compose; the hook starts it). The store's errors and format and the
		// hook settings' names cmd prints come re-exported from app (app/store_errors.go), so
		// gitstore, gitrepo and hooks are refused here. DESIGN.md says "wiring only", yet
		// the commands' results still carry job packages' types (views, saga, teamsync, verify…):
		// the rest of issue 31 item 1 (no store types in results). The job packages' commands are
		// called directly, each over its view of app.Repo (r.Saga(), r.GitHub(), r.Hook(), r.Repo):
		// app keeps no pass-through function for them (issue 41).
		may:       append([]string{"app"}, except(jobs, "gitstore", "gitrepo", "hooks")...),
		libraries: []string{"github.com/urfave/cli/v3"},
	},
	"cmd/git-exarchos-mcp": {
		job: "the MCP server's binary, apart so git-exarchos does not link the MCP SDK",
		may: []string{"mcpserver"},
	},
	"app": {
		job: "what each command does: one options struct and one run function per command",
		// It composes the job packages (jobs) over the project base. DESIGN.md: everything below,
		// but gitrepo: commands reach the repository through project and gitstore (the installers
		// and doctor, which run where no store opens, through project's locate.go), and git only
		// through project's named methods (project/git.go) or a job package: no Location
		// (TestGitOnlyThroughNamedJobs), and the store embeds no gitrepo.Repo to hand one out.
		may: except(jobs, "gitrepo"),
		// Completion schemas are compiled and checked in workflowdef (schema.go), which lint uses too.
		libraries: []string{
			"github.com/go-git/go-git/v5/plumbing", // object ids and types; issue 31 item 2
		},
	},
	"engine": {
		job: "the write engine: decide, gather the guards' facts, sign, take the journal along, compare-and-swap (Execute, CreateWorkflow, Preview)",
		// Above the jobs that record through it (saga's Executor, ghevidence's Engine), which get
		// their repository from it (Engine.Saga, Engine.GitHub); below app, which composes the
		// commands over it. One callback runs back up a write: the decider it hands the store.
		may: []string{"saga", "ghevidence", "hookrun", "trust", "project", "gitstore", "workflow", helpers},
	},
	"project": {
		job: "an opened repository with its rules: the store, the repository's git asked by name, the rules and base branch, the fold under the rules, the shared errors",
		// The base every job stands on; no job gives it anything back (no interface installed
		// from above): the fold with trust's verdicts is trust's, passed to each store call.
		may: []string{"workflowdef", "guards", "ghclient", "gitstore", "gitrepo", "workflow", helpers},
		libraries: []string{
			"github.com/go-git/go-git/v5/plumbing", // object ids of the rule files (defs.go); issue 31 item 2
			"gopkg.in/yaml.v3",                     // .exarchos/config.yaml (defs.go); belongs with workflowdef
		},
	},
	"verify": {
		job: "the replay CI runs: signatures, the facts each transition recorded re-derived, GitHub asked again",
		may: []string{"ghevidence", "trust", "project", "guards", "workflowdef", "ghclient", "gitstore", "workflow", helpers},
	},
	"views": {
		job: "views and diagnostics of the read side: pipeline, tasks, status diagram, audit, log, fsck, rehydrate",
		// What the pipeline and the task board take from the commands (list, transitions) comes
		// in as function values app supplies (views.Workflows), never an import of app.
		may: []string{"hookrun", "project", "hooks", "gitstore", "workflow", helpers},
	},
	"ghevidence": {
		job: "GitHub evidence: a workflow's pull request linked, found, refreshed; cleanup's merge verification",
		// Each observation is recorded through the Engine the caller passes in (engine's Execute);
		// pr create reads the transitions from the store (whether the reviews have passed).
		may: []string{"trust", "project", "ghclient", "gitstore", "workflow", helpers},
	},
	"saga": {
		job: "the cancel saga: task worktrees, their compensation on cancel, rescue refs, prune",
		// Each step is recorded through the Executor the caller passes in (engine's Execute). The
		// rescue records' format is its own (rescue_records.go), and so are the git operations
		// they are made of (rescue_git.go), over gitrepo's Location.
		may: []string{"trust", "project", "ghclient", "gitstore", "gitrepo", "workflow", helpers},
	},
	"teamsync": {
		job: "sync between teammates: pull, push, sync of the workflow refs, remote setup",
		may: []string{"hookrun", "trust", "gitstore", "gitrepo", "workflow", helpers},
	},
	"hookrun": {
		job: "the hook runtime: a hook payload to a decision, with its bindings, caches, journal and controls",
		// The only package the hook's path loads (from cmd's fast path): never app.
		may: []string{"trust", "project", "hooks", "guards", "gitstore", "gitrepo", "fsmonitor", "workflow", helpers},
		// Codex's config.toml, read when its stamp moved (hook_controls_clients.go).
		libraries: []string{"github.com/BurntSushi/toml"},
	},
	"trust": {
		job: "who may make a human decision and whether a recorded one counts: signers, verdicts, signing, the agent refusal",
		may: []string{"project", "gitstore", "signing", "workflow", helpers},
	},
	"mcpserver": {
		job: "MCP tools over the same commands, each run as a git-exarchos process",
		// DESIGN.md: app. Today it imports none of it (tools run the CLI as processes).
		may:       []string{"app", helpers},
		libraries: []string{"github.com/modelcontextprotocol/go-sdk"},
	},
	"workflowdef": {
		job: "workflow definitions written in YAML, read from the base branch, and lint",
		// Departs from DESIGN.md (which lists workflow only): lint names the built-in guards
		// (guards.IDs, guards.Lookup). Both are pure, so the arrow still points down; DESIGN.md's
		// row should name guards.
		may:       []string{"workflow", "guards", "internal/jsonstr"},
		libraries: []string{"gopkg.in/yaml.v3", "github.com/kaptinlin/jsonschema"},
		pure:      true,
	},
	"guards": {
		job:  "guard functions: pure functions of (state, facts) → pass or a structured failure",
		may:  []string{"workflow", "internal/jsonstr"},
		pure: true,
	},
	"hooks": {
		job:       "Claude Code and git hook decisions: the Bash reader, policies, effects, settings installers",
		may:       []string{"workflow", "guards", helpers},
		libraries: []string{"mvdan.cc/sh/v3"},
	},
	"guidance": {
		job: "the plugin's commands, skills and agents rendered in each other agent client's form, and installed",
		// "": the plugin's one copy, embedded by the root package (shipped.go).
		may:       []string{"", helpers},
		libraries: []string{"github.com/BurntSushi/toml"},
	},
	"ghclient": {
		job:       "GitHub through go-github: token and host, pull requests, checks, reviews, merge evidence",
		may:       []string{"workflow", helpers},
		libraries: []string{"github.com/google/go-github/v62"},
	},
	"ghclient/fakegithub": {
		job: "an in-memory GitHub REST API for tests, reached through GITHUB_API_URL",
	},
	"gitstore": {
		job: "the event log in refs: segments, snapshot, compare-and-swap, merge, sync, fsck of the log",
		// The log reaches the repository through one narrow interface, gitstore.Git (git.go),
		// held as a field, never embedded: the store hands no git access up (TestGitOnlyThroughNamedJobs).
		// DESIGN.md names no library here: gitstore spells object ids and modes with go-git's
		// plumbing types, which gitrepo's API hands it; issue 31 item 2 (gitrepo behind one
		// narrow interface of its own types) removes it.
		may:       []string{"gitrepo", "workflow", helpers},
		libraries: []string{"github.com/go-git/go-git/v5/plumbing"},
	},
	"gitrepo": {
		job: "git access: discovery, objects and packs, refs and locks, config, worktrees, the git binary",
		// It knows nothing of workflows: the rescue records and the git operations they are
		// made of are the saga's (saga/rescue_git.go).
		may: []string{helpers},
		// x/sys/unix: fstatat relative to refs/exarchos, which syscall lacks (the hook index's
		// per-ref stamps, readfile_unix.go).
		libraries: []string{"github.com/go-git/go-git/v5", "golang.org/x/sys/unix"},
	},
	"signing": {
		job: "signing and verifying decisions with git's own signing setup (ssh-keygen -Y, gpg)",
		may: []string{helpers},
	},
	"fsmonitor": {
		job: "the inotify monitor that lets PostToolUse skip a full git status",
		// DESIGN.md says standard library: golang.org/x/sys/unix is the inotify system calls the
		// standard library's syscall package froze before.
		may:       []string{helpers},
		libraries: []string{"golang.org/x/sys/unix"},
	},
	"workflow": {
		job: "the pure core: definitions as data, events, Decide, Apply (total), projections",
		// DESIGN.md: standard library only. internal/jsonstr is a pure quoter shared with
		// gitstore's list rows (the hand-written codecs must give encoding/json's bytes).
		may:  []string{"internal/jsonstr"},
		pure: true,
	},

	"internal/atomicfile": {
		job: "files written whole through a rename, leaving no copy after a kill",
		// O_TMPFILE and linkat (unnamed temporary files) are in x/sys/unix, not in syscall; the
		// fault points let the crash tests kill a write between its steps.
		may:       []string{"internal/faults"},
		libraries: []string{"golang.org/x/sys/unix"},
	},
	"internal/faults":  {job: "test-only crash points, no-ops without the exarchos_faults tag"},
	"internal/jsonstr": {job: "strings quoted exactly as encoding/json quotes them", pure: true},
	"internal/sibling": {job: "finds the companion binary (git-exarchos-mcp beside git-exarchos)"},
	"internal/gittest": {
		job: "what tests share to run git on real temporary repositories",
		// It may use the other helpers (the agent's variables it clears come from internal/agentenv).
		may:       []string{helpers},
		libraries: []string{"github.com/stretchr/testify"},
	},
	"internal/apptest": {
		job: "what the tests of app and of the job packages share to set up workflows through the commands",
		// A test helper above app: only tests import it (the job packages' external tests, app's).
		may:       append([]string{"app", helpers, "internal/gittest"}, jobs...),
		libraries: []string{"github.com/stretchr/testify"},
	},
	"internal/ghactions": {
		job: "runs a repository's GitHub Actions workflows for a pull request as GitHub does, against a bare origin",
		// A test helper: only tests import it (helpers does not stand for it); it reads workflow files.
		libraries: []string{"gopkg.in/yaml.v3"},
	},
	"internal/archtest": {job: "this test: the package table and its checks"},
	// Rows for packages that other branches of this session add (issue 27's real-client tests
	// and the scripted model server, issue 29's agent environment, the shipped files at the root).
	"internal/agentenv":    {job: "the one reader of the agent client's variables", planned: true},
	"internal/modelserver": {job: "a scripted Anthropic Messages API on 127.0.0.1 for end-to-end tests", planned: true},
	"e2e":                  {job: "end-to-end tests through the real Claude Code client", may: []string{helpers, "internal/gittest"}, planned: true},
	"":                     {job: "the files this repository ships and the program also writes, embedded", planned: true},

	"bench/benchutil": {job: "what the bench programs share: running a command, summarising timings"},
	"bench/clibench":  benchProgram,
	"bench/hooks":     benchProgram,
	"bench/prbench":   benchProgram,
	"bench/signbench": benchProgram,
	"bench/syncbench": benchProgram,
}

// benchProgram: the programs under bench/ set up repositories through app and time whole
// processes; nothing imports them.
var benchProgram = rule{
	job: "a whole-process benchmark program (figures in BENCHMARKS.md)",
	may: append([]string{"app", "bench/benchutil", "ghclient/fakegithub"}, jobs...),
}

// impure are the standard-library packages a pure package may not import: they reach the file
// system, the network, processes, the system or randomness.
var impure = []string{"os", "os/exec", "os/signal", "os/user", "net", "net/http", "net/rpc", "syscall",
	"io/ioutil", "path/filepath", "crypto/rand", "math/rand", "math/rand/v2", "unsafe", "plugin", "runtime/debug"}

// clock are the time package's functions that read or wait on the clock.
var clock = []string{"Now", "Since", "Until", "Sleep", "After", "AfterFunc", "Tick", "NewTimer", "NewTicker"}

// check says why pkg may not import imp, or "" when its rule allows it.
func check(pkg, imp string) string {
	r, ok := table[pkg]
	if !ok {
		return fmt.Sprintf("%s has no row in internal/archtest's table: add one (its job, what it may import)", name(pkg))
	}
	rel, internal := strings.CutPrefix(imp, module+"/")
	if imp == module {
		rel, internal = "", true
	}
	switch {
	case internal:
		for _, m := range r.may {
			if m == rel || m == helpers && strings.HasPrefix(rel, "internal/") && !slices.Contains(testOnly, rel) {
				return ""
			}
		}
		may := "only " + list(r.may) + " of this module"
		if len(r.may) == 0 {
			may = "no package of this module"
		}
		return fmt.Sprintf("%s (%s) may import %s, not %s: imports point one way, down the package map (CONTRIBUTING.md)",
			name(pkg), r.job, may, name(rel))
	case !strings.Contains(strings.Split(imp, "/")[0], "."): // the standard library
		if r.pure && slices.Contains(impure, imp) {
			return fmt.Sprintf("%s is pure (%s) and may not import %s: it does no I/O and has no clock or randomness of its own", name(pkg), r.job, imp)
		}
		if imp == "testing" && pkg != "internal/gittest" && pkg != "internal/apptest" {
			return fmt.Sprintf("%s imports testing outside a _test.go file: only the test helpers internal/gittest and internal/apptest may", name(pkg))
		}
		return ""
	default:
		for _, l := range r.libraries {
			if imp == l || strings.HasPrefix(imp, l+"/") {
				return ""
			}
		}
		return fmt.Sprintf("%s (%s) may import only the libraries %s, not %s: name the library in its row first",
			name(pkg), r.job, list(r.libraries), imp)
	}
}

func name(pkg string) string {
	if pkg == "" {
		return "the module's root package"
	}
	return pkg
}

func list(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	var names []string
	for _, p := range s {
		names = append(names, name(p))
	}
	return strings.Join(names, ", ")
}

// pkgFiles is a package's non-test Go files, parsed with their comments. Every file is read
// whatever its build constraints, so a linux-only or tagged file follows the rules too.
type pkgFiles map[string][]*ast.File

// parseModule parses every non-test Go file of the module, by package directory.
func parseModule(t *testing.T) (pkgFiles, *token.FileSet) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found at %s: %v", root, err)
	}
	fset := token.NewFileSet()
	pkgs := pkgFiles{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (n == "testdata" || n == "node_modules" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		dir, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		dir = filepath.ToSlash(dir)
		if dir == "." {
			dir = ""
		}
		pkgs[dir] = append(pkgs[dir], f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 20 {
		t.Fatalf("found %d packages under %s: the walk is wrong", len(pkgs), root)
	}
	return pkgs, fset
}

func sorted(pkgs pkgFiles) []string {
	var s []string
	for p := range pkgs {
		s = append(s, p)
	}
	sort.Strings(s)
	return s
}

// TestEveryPackageHasARow: a new package gets a row (its job, what it may import) before it
// lands, and a row outlives no package.
func TestEveryPackageHasARow(t *testing.T) {
	pkgs, _ := parseModule(t)
	for _, p := range sorted(pkgs) {
		if _, ok := table[p]; !ok {
			t.Errorf("%s has no row in internal/archtest's table: add one (its job, what it may import), and a line to CONTRIBUTING.md's package map", name(p))
		}
	}
	for p, r := range table {
		if _, ok := pkgs[p]; !ok && !r.planned {
			t.Errorf("table row %q names no package: remove it (or mark it planned)", p)
		}
		for _, m := range r.may {
			if _, ok := table[m]; !ok && m != helpers {
				t.Errorf("row %q may import %q, which has no row", p, m)
			}
		}
	}
}

// TestImportsFollowTheTable: every import of every non-test file is one its package's row allows.
func TestImportsFollowTheTable(t *testing.T) {
	pkgs, fset := parseModule(t)
	for _, p := range sorted(pkgs) {
		for _, f := range pkgs[p] {
			for _, spec := range f.Imports {
				imp, err := strconv.Unquote(spec.Path.Value)
				if err != nil {
					t.Fatal(err)
				}
				if why := check(p, imp); why != "" {
					t.Errorf("%s: %s", fset.Position(spec.Pos()), why)
				}
			}
		}
	}
}

// TestPureCodeReadsNoClock: the pure packages take time from their callers (events carry it);
// a call of time.Now, time.Sleep or a timer in them is refused.
func TestPureCodeReadsNoClock(t *testing.T) {
	pkgs, fset := parseModule(t)
	for _, p := range sorted(pkgs) {
		if !table[p].pure {
			continue
		}
		for _, f := range pkgs[p] {
			for _, at := range clockCalls(f) {
				t.Errorf("%s: %s is pure and may not read the clock (%s): take the time from the caller", fset.Position(at.pos), p, at.call)
			}
		}
	}
}

type clockCall struct {
	pos  token.Pos
	call string
}

// clockCalls finds uses of the time package's clock functions in f, under whatever name f
// imports time.
func clockCalls(f *ast.File) []clockCall {
	local := ""
	for _, spec := range f.Imports {
		if spec.Path.Value == `"time"` {
			local = "time"
			if spec.Name != nil {
				local = spec.Name.Name
			}
		}
	}
	if local == "" || local == "_" {
		return nil
	}
	var found []clockCall
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == local && slices.Contains(clock, sel.Sel.Name) {
				found = append(found, clockCall{sel.Pos(), local + "." + sel.Sel.Name})
			}
		}
		return true
	})
	return found
}

// TestEveryPackageSaysItsJobAndImports: each package opens with a doc comment ("Package x …" or,
// for a program, "Command x …") that says its job and, in a sentence with "may import", what it
// may import.
func TestEveryPackageSaysItsJobAndImports(t *testing.T) {
	pkgs, _ := parseModule(t)
	for _, p := range sorted(pkgs) {
		var doc string
		for _, f := range pkgs[p] {
			if f.Doc != nil {
				doc += f.Doc.Text()
			}
		}
		pkgName := pkgs[p][0].Name.Name
		switch {
		case doc == "":
			t.Errorf("%s has no package doc comment: open it with one that says its job and what it may import", name(p))
		case !strings.HasPrefix(doc, "Package "+pkgName+" ") && !strings.HasPrefix(doc, "Command "):
			t.Errorf("%s's doc comment starts %q: start it with \"Package %s\" (or \"Command <name>\" for a program)", name(p), strings.SplitN(doc, "\n", 2)[0], pkgName)
		case !strings.Contains(strings.ToLower(doc), "may import"):
			t.Errorf("%s's doc comment does not say what it may import: add a sentence with \"may import\" (its row: %s; libraries %s)", name(p), list(table[p].may), list(table[p].libraries))
		}
	}
}

// TestCheckNamesTheRule: the checker refuses each kind of crossing, with the rule it breaks, and
// lets through what the table allows. Without this, a checker that allowed everything would pass.
func TestCheckNamesTheRule(t *testing.T) {
	for _, c := range []struct{ pkg, imp, want string }{
		{"workflow", module + "/gitstore", "imports point one way"},
		{"workflow", "os", "is pure"},
		{"guards", "os/exec", "is pure"},
		{"workflowdef", "net/http", "is pure"},
		{"gitrepo", module + "/workflow", "may import only internal/*"},
		{"internal/jsonstr", module + "/internal/atomicfile", "may import no package of this module"},
		{"gitrepo", module + "/internal/gittest", "not internal/gittest"},
		{"gitstore", module + "/app", "not app"},
		{"hooks", module + "/gitstore", "not gitstore"},
		{"cmd/git-exarchos", module + "/mcpserver", "not mcpserver"},
		{"internal/jsonstr", module + "/workflow", "not workflow"},
		{"workflow", "gopkg.in/yaml.v3", "may import only the libraries none"},
		{"hooks", "github.com/google/go-github/v62/github", "not github.com/google/go-github"},
		{"signing", "testing", "outside a _test.go file"},
		{"app", module + "/gitrepo", "not gitrepo"},
		{"cmd/git-exarchos", module + "/gitstore", "not gitstore"},
		{"newpkg", "fmt", "has no row"},
	} {
		got := check(c.pkg, c.imp)
		if !strings.Contains(got, c.want) {
			t.Errorf("check(%q, %q) = %q, want it to say %q", c.pkg, c.imp, got, c.want)
		}
	}
	for _, c := range []struct{ pkg, imp string }{
		{"workflow", "encoding/json"},
		{"workflow", module + "/internal/jsonstr"},
		{"gitstore", module + "/gitrepo"},
		{"gitstore", "github.com/go-git/go-git/v5/plumbing/filemode"},
		{"app", module + "/internal/atomicfile"},
		{"app", module},
		{"internal/gittest", "testing"},
		{"hooks", "mvdan.cc/sh/v3/syntax"},
	} {
		if got := check(c.pkg, c.imp); got != "" {
			t.Errorf("check(%q, %q) refused what the table allows: %s", c.pkg, c.imp, got)
		}
	}
	f, err := parser.ParseFile(token.NewFileSet(), "x.go", "package x\nimport clock \"time\"\nfunc f() { _ = clock.Now(); clock.Sleep(1); _ = clock.Duration(1) }\n", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := clockCalls(f); len(got) != 2 || got[0].call != "clock.Now" || got[1].call != "clock.Sleep" {
		t.Errorf("clockCalls under a renamed import = %v, want clock.Now and clock.Sleep", got)
	}
}

// gitReach are the selectors that hand out a way to run git on the repository: gitrepo.Repo's
// Loc and project.Repo's Location (a gitrepo.Location runs any git command). A package whose row
// does not allow gitrepo may not use them: it asks git through project's named methods
// (project/git.go) or a job package, so "may not import gitrepo" also means "does not run git
// behind the table's back" (issue 41: app ran git through the store's embedded repository).
var gitReach = []string{"Loc", "Location"}

// TestGitOnlyThroughNamedJobs: above the store, only the packages allowed gitrepo reach a Location.
func TestGitOnlyThroughNamedJobs(t *testing.T) {
	pkgs, fset := parseModule(t)
	for _, p := range sorted(pkgs) {
		r := table[p]
		if p == "gitrepo" || slices.Contains(r.may, "gitrepo") || strings.HasPrefix(p, "bench/") {
			continue
		}
		for _, f := range pkgs[p] {
			ast.Inspect(f, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok && slices.Contains(gitReach, sel.Sel.Name) {
					t.Errorf("%s: %s may not import gitrepo, so it may not reach git through .%s either: ask through project's named methods (project/git.go) or a job package",
						fset.Position(sel.Pos()), name(p), sel.Sel.Name)
				}
				return true
			})
		}
	}
}

// sizeCap is issue 41's bound on a package's non-test lines: a package that outgrows it does more
// than one job and is split. The pure core is exempt (its definitions are data); gitrepo's
// measured readers (objects, packs, the index, history) may take more.
const sizeCap = 4500

var sizeCaps = map[string]int{"workflow": -1, "gitrepo": 5500}

// TestPackagesStayTheirSize: no package but the pure core over 4,500 non-test lines, gitrepo at
// most 5,500.
func TestPackagesStayTheirSize(t *testing.T) {
	pkgs, fset := parseModule(t)
	for _, pkg := range sorted(pkgs) {
		capped := sizeCap
		if c, ok := sizeCaps[pkg]; ok {
			capped = c
		}
		lines := 0
		for _, f := range pkgs[pkg] {
			lines += fset.File(f.Pos()).LineCount()
		}
		if capped >= 0 && lines > capped {
			t.Errorf("%s: %d non-test lines, over its cap of %d: split out the job that grew (issue 41)", name(pkg), lines, capped)
		}
	}
}
