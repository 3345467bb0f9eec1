package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// readmeBlocks returns the fenced blocks of the README section that starts with heading.
func readmeBlocks(t *testing.T, heading string) []string {
	t.Helper()
	return docBlocks(t, "README.md", heading)
}

// docBlocks returns the fenced blocks of the section that starts with heading in file, a path from
// the repository's root (README.md, docs/<topic>.md): the tests follow a block to the page it is on.
func docBlocks(t *testing.T, file, heading string) []string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("../..", file))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(src), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("%s has no %q", file, heading)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var blocks []string
	for {
		_, rest, ok := strings.Cut(section, "```")
		if !ok {
			return blocks
		}
		_, rest, _ = strings.Cut(rest, "\n") // the fence's language
		block, after, _ := strings.Cut(rest, "```")
		blocks, section = append(blocks, block), after
	}
}

// TestReadmeWalkthrough runs the README's walk through a feature as written, in a fresh repository,
// and checks the refusal it shows is the real one.
func TestReadmeWalkthrough(t *testing.T) {
	blocks := readmeBlocks(t, "## A walk through a feature")
	if len(blocks) != 2 {
		t.Fatalf("want the commands and the refusal, got %d blocks", len(blocks))
	}
	var walk strings.Builder
	walk.WriteString("set -e\n")
	for _, line := range strings.Split(strings.TrimSpace(blocks[0]), "\n") {
		if strings.Contains(line, "# refused (exit 3)") {
			cmd, _, _ := strings.Cut(line, "#")
			walk.WriteString("set +e; " + cmd + " 2>../refusal.txt; test $? = 3 || exit 1; set -e\n")
			continue
		}
		walk.WriteString(line + "\n")
	}
	hash := regexp.MustCompile(`[0-9a-f]{12}`)
	script := "exec git init -q -b main repo\ncd repo\nexec git commit -q --allow-empty -m initial\n" +
		"exec bash ../walk.sh\nstdout 'login \\(feature\\) on branch login: synthesize'\n" +
		"exec sed -E 's/[0-9a-f]{12}/HASH/g' ../refusal.txt\ncmp stdout ../refusal.want\n" +
		"-- walk.sh --\n" + walk.String() + "-- refusal.want --\n" + hash.ReplaceAllString(strings.TrimLeft(blocks[1], "\n"), "HASH")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "walkthrough.txtar"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, scriptParams(dir))
}

// TestReadmeQuickStart: the Go version is go.mod's, and command 1 installs, starts a workflow and
// leaves the shell where it was (so command 2 runs from the repository root after it).
func TestReadmeQuickStart(t *testing.T) {
	src, _ := os.ReadFile("../../README.md")
	gomod, _ := os.ReadFile("../../go.mod")
	goVersion := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(gomod)
	if goVersion == nil || !strings.Contains(string(src), "Go "+string(goVersion[1])+" or later") {
		t.Errorf("the quick start must name go.mod's Go version (%s)", goVersion[1])
	}
	blocks := readmeBlocks(t, "## Quick start")
	// It installs from the checkout the reader has (issue 32: a clone URL nothing shows to be the
	// project's home is not the way in), and shows the output command 1 prints.
	if len(blocks) < 2 || strings.Contains(blocks[0], "git clone") || !strings.Contains(blocks[0], "go install ./cmd/...") {
		t.Fatalf("the quick start must install from the checkout (go install ./cmd/...), with no clone URL")
	}
	var install string
	for _, line := range strings.Split(blocks[0], "\n") {
		if strings.HasPrefix(line, "CGO_ENABLED=0 go install") {
			install = line
		}
	}
	if install == "" {
		t.Fatal("no install command in the quick start")
	}
	if testing.Short() {
		t.Skip("builds and installs the binary")
	}
	// Installed into scratch directories only, never the developer's GOPATH or GOBIN; with GOBIN
	// unset the binaries go to GOPATH/bin, with it set (issue 41) there, and the README's PATH line
	// must find them in both. A git-exarchos already on the caller's PATH is taken off it, so only
	// the one just installed can answer.
	var caches []string
	for _, v := range []string{"GOMODCACHE", "GOCACHE"} { // HOME moved: keep the caches (no rebuild from scratch)
		if dir, err := exec.Command("go", "env", v).Output(); err == nil {
			caches = append(caches, v+"="+strings.TrimSpace(string(dir)))
		}
	}
	for _, withGOBIN := range []bool{false, true} {
		t.Run(map[bool]string{false: "GOPATH", true: "GOBIN"}[withGOBIN], func(t *testing.T) {
			gopath := t.TempDir()
			bin := filepath.Join(gopath, "bin")
			gobin := ""
			if withGOBIN {
				bin = filepath.Join(t.TempDir(), "tools", "bin")
				gobin = bin
			}
			cmd := exec.Command("bash", "-c", install+` && echo "PWD=$PWD" && man -w git-exarchos`)
			cmd.Dir = "../.."
			cmd.Env = append(os.Environ(), "GOPATH="+gopath, "GOBIN="+gobin, "PATH="+pathWithout(os.Getenv("PATH"), "git-exarchos"),
				"HOME="+t.TempDir(), "GIT_CONFIG_NOSYSTEM=1", "MANPATH=", "GOFLAGS=-modcacherw")
			cmd.Env = append(cmd.Env, caches...)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("command 1: %v\n%s", err, out)
			}
			root, _ := filepath.Abs("../..")
			for _, want := range []string{"PWD=" + root + "\n", filepath.Join(filepath.Dir(bin), "share/man/man1/git-exarchos.1")} {
				if !strings.Contains(string(out), want) {
					t.Errorf("command 1 output lacks %q:\n%s", want, out)
				}
			}
			// The sample output is what the workflow's commands print, line for line.
			_, shown, _ := strings.Cut(string(out), "started demo")
			shown, _, _ = strings.Cut("started demo"+shown, "PWD=")
			if strings.TrimSpace(shown) != strings.TrimSpace(blocks[1]) {
				t.Errorf("the quick start's sample output is not what command 1 prints:\nREADME:\n%s\nprinted:\n%s", blocks[1], shown)
			}
			// The MCP server is installed beside git-exarchos, where `git exarchos mcp` looks first.
			for _, b := range []string{"git-exarchos", "git-exarchos-mcp"} {
				if _, err := os.Stat(filepath.Join(bin, b)); err != nil {
					t.Errorf("command 1 does not install %s: %v", b, err)
				}
			}
		})
	}
}

// pathWithout is the PATH list with every directory holding an executable named name left out.
func pathWithout(path, name string) string {
	var keep []string
	for _, dir := range filepath.SplitList(path) {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			keep = append(keep, dir)
		}
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}

// TestCIRunsTheReadmeTestCommand: .ci/run runs exactly the quick start's second command, so the
// command a newcomer types and the one CI holds a submission to cannot drift apart.
func TestCIRunsTheReadmeTestCommand(t *testing.T) {
	var readme string
	for _, b := range readmeBlocks(t, "## Quick start") {
		lines := strings.Split(b, "\n")
		for i, l := range lines {
			if strings.HasPrefix(l, "# 2. ") {
				for _, cmd := range lines[i+1:] {
					if cmd != "" && !strings.HasPrefix(cmd, "#") {
						readme = cmd
						break
					}
				}
			}
		}
	}
	if readme == "" {
		t.Fatal("the quick start has no command 2")
	}
	ci, err := os.ReadFile("../../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(strings.Split(string(ci), "\n"), readme) {
		t.Errorf(".ci/run does not run the README's test command %q", readme)
	}
}

// TestReadmeFirstScreen (issue 31): the README's first screen says what git exarchos is, how to
// install it (the binaries and the Claude Code plugin) and starts the first workflow; every page
// under docs/ is reachable from the README, so nothing moved there is lost to a reader.
func TestReadmeFirstScreen(t *testing.T) {
	src, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	const screen = 30
	first := strings.Join(lines[:min(screen, len(lines))], "\n")
	for _, want := range []string{"# git exarchos\n", "/plugin install exarchos@exarchos", "## Quick start\n", "go install ./cmd/..."} {
		if !strings.Contains(first, want) {
			t.Errorf("the README's first %d lines lack %q", screen, want)
		}
	}
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil || len(pages) == 0 {
		t.Fatalf("no docs/*.md: %v", err)
	}
	for _, page := range pages {
		if link := "](docs/" + filepath.Base(page) + ")"; !strings.Contains(string(src), link) {
			t.Errorf("README.md does not link docs/%s", filepath.Base(page))
		}
	}
}
