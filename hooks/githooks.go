package hooks

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/exarchos/git-exarchos/internal/atomicfile"
)

// GitHookNames are the git hooks exarchos installs.
var GitHookNames = []string{"pre-push", "post-checkout", "post-merge"}

const (
	// gitHookMarker identifies exarchos's scripts; the version lets a newer install replace them.
	gitHookMarker = "# git-exarchos-hook v1"
	// ChainedSuffix names the place the hook that was there before waits, beside exarchos's script.
	ChainedSuffix = ".exarchos-chained"
)

// runChained runs the hook that was installed before, with the same arguments, so that it cannot
// tell the difference: a shell script is sourced by a shell whose $0 is the hook's own path, since
// husky-style stubs find their work from their name ($0); anything else is executed.
const runChained = `run_chained() {
	case "$(head -n 1 "$chained" 2>/dev/null)" in
	'#!/bin/sh'* | '#!/usr/bin/sh'* | '#!/usr/bin/env sh'* | '#!/bin/dash'* | '#!/usr/bin/env dash'*)
		EXARCHOS_CHAINED="$chained" sh -c '. "$EXARCHOS_CHAINED"' "$0" "$@" ;;
	'#!/bin/bash'* | '#!/usr/bin/bash'* | '#!/usr/bin/env bash'* | '#!/usr/local/bin/bash'*)
		EXARCHOS_CHAINED="$chained" bash -c '. "$EXARCHOS_CHAINED"' "$0" "$@" ;;
	*)
		"$chained" "$@" ;;
	esac
}
`

// GitHookScript is exarchos's script for one git hook. It runs the hook that was there before
// first (its failure still stops a push), then `git exarchos hook git <name>`, whose problems never
// fail the git command; without git-exarchos on PATH it only runs the chained hook.
func GitHookScript(name string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/sh\n%s: %s\n", gitHookMarker, name)
	fmt.Fprintf(&b, "# Installed by `git exarchos hooks install --git`. `git exarchos hooks uninstall --git` removes it and\n")
	fmt.Fprintf(&b, "# puts back the hook that was here before, kept meanwhile beside it as %s%s.\n", name, ChainedSuffix)
	fmt.Fprintf(&b, "chained=\"$0%s\"\n%s", ChainedSuffix, runChained)
	if name == "pre-push" {
		// pre-push reads the refs being pushed on stdin: both hooks get the same lines.
		b.WriteString(`input=$(mktemp "${TMPDIR:-/tmp}/exarchos-pre-push.XXXXXX") || exit 1
trap 'rm -f "$input"' EXIT
cat >"$input"
if [ -x "$chained" ]; then
	run_chained "$@" <"$input" || exit $?
fi
if command -v git-exarchos >/dev/null 2>&1; then
	git exarchos hook git pre-push "$@" <"$input" || true
fi
exit 0
`)
		return b.String()
	}
	fmt.Fprintf(&b, `status=0
if [ -x "$chained" ]; then
	run_chained "$@" || status=$?
fi
if command -v git-exarchos >/dev/null 2>&1; then
	git exarchos hook git %s "$@" || true
fi
exit $status
`, name)
	return b.String()
}

// IsGitHookScript reports whether the file at path is one of exarchos's scripts.
func IsGitHookScript(path string) bool {
	b, err := os.ReadFile(path)
	return err == nil && strings.Contains(string(b), gitHookMarker+":")
}

// GitHookState is what one hook looks like in the hooks directory.
type GitHookState struct {
	Name      string `json:"name"`
	Path      string `json:"path"`
	Installed bool   `json:"installed"`         // exarchos's script is in place
	Chained   bool   `json:"chained"`           // a previous hook waits beside it and runs first
	Foreign   bool   `json:"foreign,omitempty"` // another hook is there and exarchos's is not
	Action    string `json:"action,omitempty"`  // what install or uninstall did
}

// GitHooksStatus describes the hooks exarchos manages in dir.
func GitHooksStatus(dir string) []GitHookState {
	out := make([]GitHookState, 0, len(GitHookNames))
	for _, name := range GitHookNames {
		out = append(out, gitHookState(dir, name))
	}
	return out
}

func gitHookState(dir, name string) GitHookState {
	path := filepath.Join(dir, name)
	st := GitHookState{Name: name, Path: path}
	st.Installed = IsGitHookScript(path)
	_, err := os.Lstat(path + ChainedSuffix)
	st.Chained = err == nil
	if _, err := os.Lstat(path); err == nil && !st.Installed {
		st.Foreign = true
	}
	return st
}

// InstallGitHooks puts exarchos's scripts in dir (the hooks directory git uses, core.hooksPath
// included). A hook already there is moved aside, byte for byte and with its mode (a symbolic link
// stays a link), and chained. Installing again refreshes exarchos's scripts and changes nothing else.
func InstallGitHooks(dir string) ([]GitHookState, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create the hooks directory %s: %w", dir, err)
	}
	var out []GitHookState
	for _, name := range GitHookNames {
		st := gitHookState(dir, name)
		script := []byte(GitHookScript(name))
		switch {
		case st.Installed:
			if b, _ := os.ReadFile(st.Path); string(b) == string(script) {
				st.Action = "already installed"
				out = append(out, st)
				continue
			}
			st.Action = "updated"
		case st.Foreign && st.Chained:
			return out, fmt.Errorf("%s is another hook and %s%s already exists: move one of them away by hand, then run the command again", st.Path, st.Path, ChainedSuffix)
		case st.Foreign:
			if err := os.Rename(st.Path, st.Path+ChainedSuffix); err != nil {
				return out, fmt.Errorf("keep the existing %s hook: %w", name, err)
			}
			st.Chained, st.Foreign, st.Action = true, false, "installed, chaining the existing hook"
		default:
			st.Action = "installed"
		}
		if err := atomicfile.Write(st.Path, script, 0o755); err != nil {
			return out, err
		}
		st.Installed = true
		out = append(out, st)
	}
	return out, nil
}

// UninstallGitHooks removes exarchos's scripts from dir and puts back what each one chained, so the
// directory is as it was before the install. Hooks that are not exarchos's are left alone.
func UninstallGitHooks(dir string) ([]GitHookState, error) {
	var out []GitHookState
	for _, name := range GitHookNames {
		st := gitHookState(dir, name)
		switch {
		case st.Installed:
			if err := os.Remove(st.Path); err != nil {
				return out, fmt.Errorf("remove %s: %w", st.Path, err)
			}
			st.Installed, st.Action = false, "removed"
			if st.Chained {
				if err := os.Rename(st.Path+ChainedSuffix, st.Path); err != nil {
					return out, fmt.Errorf("restore the previous %s hook from %s%s: %w", name, st.Path, ChainedSuffix, err)
				}
				st.Chained, st.Foreign, st.Action = false, true, "removed, previous hook restored"
			}
		case st.Chained:
			st.Action = fmt.Sprintf("not installed; %s%s is left for you to look at", st.Path, ChainedSuffix)
		default:
			st.Action = "not installed"
		}
		out = append(out, st)
	}
	return out, nil
}
