package hooks

import (
	"os"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A shim put first: GIT_EXEC_PATH or a directory put before the rest of PATH that holds a `git` or
// a `git-exarchos` makes a harmless-looking `git exarchos status` run the agent's own program,
// which may then decide with its environment cleaned (issue 38 item 8). The human decisions look
// at their ancestry too (internal/agentenv), but the command that puts the shim first is refused
// here, before it runs.

func reasonShim(what string) string {
	return "git exarchos: this command " + what + ", which makes git run a program of the agent's in place of git or git exarchos; " +
		"that is refused. Run git and git exarchos as installed." + humanTerminal
}

// shimEnv says why assigning value to name puts a shim first ("" when it does not): any
// GIT_EXEC_PATH, or a PATH whose entries before $PATH (all of them, when it has no $PATH) include
// a directory that does not exist yet or that holds git or git-exarchos. Only commands that assign
// PATH pay the few stat calls.
func shimEnv(name, raw, cwd string) string {
	switch name {
	case "GIT_EXEC_PATH":
		return reasonShim("sets GIT_EXEC_PATH")
	case "PATH":
	default:
		return ""
	}
	raw = strings.Trim(raw, `"'`)
	for _, dir := range strings.Split(raw, ":") {
		if dir == "$PATH" || dir == "${PATH}" {
			break // what follows is appended: found after git and git exarchos
		}
		if dir == "" || strings.ContainsAny(dir, "$`") {
			if strings.Contains(dir, "$HOME") || strings.HasPrefix(dir, "~") {
				dir = strings.Replace(strings.Replace(dir, "${HOME}", homeDir(), 1), "$HOME", homeDir(), 1)
				dir = strings.Replace(dir, "~", homeDir(), 1)
			} else {
				continue // another variable's value: not known before it runs
			}
		}
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(cwd, dir)
		}
		if _, err := os.Stat(dir); err != nil {
			return reasonShim("puts " + dir + ", which does not exist yet, first on PATH")
		}
		for _, prog := range []string{"git", "git-exarchos"} {
			if fi, err := os.Stat(filepath.Join(dir, prog)); err == nil && !fi.IsDir() && !sameAsOnPath(prog, filepath.Join(dir, prog)) {
				return reasonShim("puts " + dir + ", which holds its own " + prog + ", first on PATH")
			}
		}
	}
	return ""
}

func homeDir() string {
	h, _ := os.UserHomeDir()
	return h
}

// sameAsOnPath reports whether path is the program PATH finds now (the installed one, put first
// again: harmless).
func sameAsOnPath(prog, path string) bool {
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir == "" {
			continue
		}
		if fi, err := os.Stat(filepath.Join(dir, prog)); err == nil && !fi.IsDir() {
			other, err := os.Stat(path)
			return err == nil && os.SameFile(fi, other)
		}
	}
	return false
}

// valueRaw is an assignment's value as written ("" for none).
func valueRaw(w *syntax.Word, src string) string {
	if w == nil {
		return ""
	}
	return wordOf(w, src).raw
}

// homeGitConfig reports whether parts, from the home directory as a command spells it (~, $HOME,
// ${HOME}), name the user's git configuration (~/.gitconfig, ~/.config/git/config): the Bash
// reader refuses writes there as it refuses them to .git/ (issue 38 item 7). The absolute paths
// are protected by hookrun's Shell.
func homeGitConfig(parts []string) bool {
	if len(parts) < 2 || parts[0] != "~" && parts[0] != "$HOME" && parts[0] != "${HOME}" {
		return false
	}
	rest := strings.Join(parts[1:], "/")
	return rest == ".gitconfig" || rest == ".config/git/config"
}
