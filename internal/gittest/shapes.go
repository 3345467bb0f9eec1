package gittest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A Shape is one way a repository is found in use (issue 28's repository-shapes suite): Make
// clones the bare origin (file://) into a new directory and returns the worktree to run in;
// Settle, when set, runs after each round of writes (repacks, ref packing) so the next reads meet
// the shape's storage. Skip, when not empty, says why the installed git cannot make the shape.
type Shape struct {
	Name   string
	Format string // object format of the origin it needs: "sha1" (default) or "sha256"
	Make   func(t testing.TB, origin string) string
	Settle func(t testing.TB, dir string)
	Skip   func() string
	// RefsThroughGit runs the shape with gitrepo's switch that sends every ref read and write to
	// git, the path a reftable repository takes, on a repository the installed git can make.
	RefsThroughGit bool
}

// NewOrigin makes a bare repository in the given object format with three commits on main (so a
// shallow clone has history to cut), which allows partial clones.
func NewOrigin(t testing.TB, format string) string {
	t.Helper()
	seed := NewRepo(t, format)
	for _, f := range []string{"a.txt", "b.txt"} {
		require.NoError(t, os.WriteFile(filepath.Join(seed, f), []byte(f+"\n"), 0o644))
		Git(t, seed, "", "add", f)
		Git(t, seed, "", "commit", "-q", "-m", "add "+f)
	}
	origin := filepath.Join(t.TempDir(), "origin.git")
	Git(t, seed, "", "clone", "-q", "--bare", seed, origin)
	Git(t, origin, "", "config", "uploadpack.allowFilter", "true")
	Git(t, origin, "", "config", "uploadpack.allowAnySHA1InWant", "true")
	return origin
}

func clone(t testing.TB, args ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "clone")
	Git(t, "", "", append(append([]string{"clone", "-q"}, args...), dir)...)
	identity(t, dir)
	return dir
}

func identity(t testing.TB, dir string) {
	Git(t, dir, "", "config", "user.name", "Shape Test")
	Git(t, dir, "", "config", "user.email", "shape@example.com")
}

// Shapes are the repository shapes every command family is run in.
func Shapes() []Shape {
	plain := func(t testing.TB, origin string) string { return clone(t, "file://"+origin) }
	return []Shape{
		{Name: "plain", Make: plain},
		{Name: "shared", Make: func(t testing.TB, origin string) string { return clone(t, "--shared", origin) }},
		{Name: "reference", Make: func(t testing.TB, origin string) string {
			ref := clone(t, "--bare", origin)
			return clone(t, "--reference", ref, "file://"+origin)
		}},
		{Name: "shallow", Make: func(t testing.TB, origin string) string { return clone(t, "--depth", "1", "file://"+origin) }},
		{Name: "partial", Make: func(t testing.TB, origin string) string { return clone(t, "--filter=blob:none", "file://"+origin) }},
		{Name: "midx-bitmaps-commit-graph", Make: plain, Settle: func(t testing.TB, dir string) {
			Git(t, dir, "", "repack", "-adbq", "--write-midx")
			Git(t, dir, "", "commit-graph", "write", "--reachable")
		}},
		{Name: "keep-packs", Make: plain, Settle: func(t testing.TB, dir string) {
			Git(t, dir, "", "repack", "-dq")
			packs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.pack"))
			for _, p := range packs {
				require.NoError(t, os.WriteFile(p[:len(p)-len(".pack")]+".keep", nil, 0o644))
			}
		}},
		{Name: "deep-deltas", Make: plain, Settle: func(t testing.TB, dir string) {
			Git(t, dir, "", "repack", "-adfq", "--depth=4095", "--window=250")
		}},
		{Name: "sha256", Format: "sha256", Make: plain},
		{Name: "reftable", Make: func(t testing.TB, origin string) string {
			return clone(t, "--ref-format=reftable", "file://"+origin)
		}, Skip: func() string {
			dir, err := os.MkdirTemp("", "reftable-probe-")
			if err != nil {
				return err.Error()
			}
			defer os.RemoveAll(dir)
			if out, err := exec.Command("git", "init", "-q", "--ref-format=reftable", dir).CombinedOutput(); err != nil {
				return "the installed git cannot make a reftable repository (git 2.45 or later can): " + string(out)
			}
			return ""
		}},
		{Name: "worktree-config", Make: func(t testing.TB, origin string) string {
			dir := plain(t, origin)
			Git(t, dir, "", "config", "extensions.worktreeConfig", "true")
			Git(t, dir, "", "config", "--worktree", "user.name", "Worktree Config")
			return dir
		}},
		{Name: "include-config", Make: func(t testing.TB, origin string) string {
			dir := plain(t, origin)
			inc := filepath.Join(filepath.Dir(dir), "identity.cfg")
			require.NoError(t, os.WriteFile(inc, []byte("[user]\n\tname = Included\n\temail = included@example.com\n"), 0o644))
			Git(t, dir, "", "config", "--unset", "user.name")
			Git(t, dir, "", "config", "--unset", "user.email")
			Git(t, dir, "", "config", "include.path", inc)
			Git(t, dir, "", "config", "includeIf.gitdir:"+filepath.Join(dir, ".git")+".path", inc)
			return dir
		}},
		{Name: "packed-refs-only", Make: plain, Settle: func(t testing.TB, dir string) {
			Git(t, dir, "", "pack-refs", "--all", "--prune")
		}},
		{Name: "refs-through-git", Make: plain, RefsThroughGit: true},
		{Name: "packed-refs-through-git", Make: plain, RefsThroughGit: true, Settle: func(t testing.TB, dir string) {
			Git(t, dir, "", "pack-refs", "--all", "--prune")
		}},
		{Name: "linked-worktree", Make: func(t testing.TB, origin string) string {
			dir := plain(t, origin)
			wt := filepath.Join(filepath.Dir(dir), "linked")
			Git(t, dir, "", "worktree", "add", "-q", "-b", "linked", wt)
			return wt
		}},
	}
}
