package app

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/hookrun"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/saga"
	"github.com/exarchos/git-exarchos/teamsync"
	"github.com/exarchos/git-exarchos/verify"
	"github.com/exarchos/git-exarchos/views"
	"github.com/exarchos/git-exarchos/workflow"
)

// TestRepositoryShapes (issue 28): every command family — init, transitions, the hook, list,
// push/pull/sync, verify, fsck, cancel — in every repository shape git reads (gittest.Shapes),
// with `git fsck --strict` clean after each. A shape the installed git cannot make is skipped with
// the reason.
func TestRepositoryShapes(t *testing.T) {
	for _, k := range []string{"CLAUDECODE", "CLAUDE_CODE_SESSION_ID", "CLAUDE_CODE_ENTRYPOINT", "AI_AGENT", "CLAUDE_PROJECT_DIR"} {
		t.Setenv(k, "")
	}
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	origins := map[string]string{}
	top := t
	for _, shape := range gittest.Shapes() {
		t.Run(shape.Name, func(t *testing.T) {
			if shape.Skip != nil {
				if why := shape.Skip(); why != "" {
					t.Skip(why)
				}
			}
			if shape.RefsThroughGit {
				was := gitrepo.RouteRefsThroughGit(true)
				t.Cleanup(func() { gitrepo.RouteRefsThroughGit(was) })
			}
			format := shape.Format
			if format == "" {
				format = "sha1"
			}
			if origins[format] == "" {
				origins[format] = gittest.NewOrigin(top, format) // shared by the shapes
			}
			dir := shape.Make(t, origins[format])
			settle := func() {
				if shape.Settle != nil {
					shape.Settle(t, dir)
				}
			}
			branch := "shape-" + shape.Name
			feature := "s-" + shape.Name
			gittest.Git(t, dir, "", "switch", "-q", "-c", branch)

			// init
			r, err := Open(dir)
			require.NoError(t, err)
			res, err := Init(r, InitOptions{Feature: feature, Type: "feature"})
			require.NoError(t, err)
			assert.Equal(t, "ideate", res.State.Phase)
			settle()

			// the hook: a session on the branch binds, and code is refused in ideate
			assert.Equal(t, map[string]string{feature: "ideate"}, boundPhases(t, dir))
			var out bytes.Buffer
			payload := fmt.Sprintf(`{"session_id":"shape-%s","cwd":%q,"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":%q}}`,
				shape.Name, dir, filepath.Join(dir, "main.go"))
			require.NoError(t, hookrun.ClaudeHook(hookrun.ClaudeHookOptions{Stdin: bytes.NewReader([]byte(payload)), Stdout: &out, Stderr: os.Stderr}))
			assert.Contains(t, out.String(), `"permissionDecision":"deny"`)

			// transitions
			r, err = Open(dir)
			require.NoError(t, err)
			gittest.CommitFile(t, dir, "docs/design-"+shape.Name+".md", "design\n")
			mustRun(t, r, feature, workflow.Set{Assignments: []workflow.Assignment{{Path: "artifacts.design", Value: []byte(fmt.Sprintf("%q", "docs/design-"+shape.Name+".md"))}}})
			assert.Equal(t, "plan", mustRun(t, r, feature, workflow.TransitionTo{Phase: "plan"}).State.Phase)
			settle()

			// list
			r, err = Open(dir)
			require.NoError(t, err)
			rows, err := ListWorkflows(r, ListOptions{All: true})
			require.NoError(t, err)
			var listed []string
			for _, row := range rows.Workflows {
				listed = append(listed, row.Feature)
			}
			assert.Contains(t, listed, feature)

			// push, pull, sync
			push, err := teamsync.Push(r.Repo, teamsync.PushOptions{Remote: "origin"})
			require.NoError(t, err)
			assert.Zero(t, push.Failures(), "%+v", push)
			pull, err := teamsync.Pull(r.Repo, teamsync.PullOptions{Remote: "origin"})
			require.NoError(t, err)
			assert.Zero(t, pull.Failures(), "%+v", pull)
			_, err = teamsync.Sync(r.Repo, teamsync.SyncOptions{Remote: "origin"})
			require.NoError(t, err)
			settle()

			// A second clone of the same shape takes the workflow by a plain fetch, then pull: in a
			// --shared or --reference clone its objects stay in the other repository, in a partial
			// clone its blobs are promised, not fetched.
			second := shape.Make(t, origins[format])
			gittest.Git(t, second, "", "fetch", "-q", "origin", "+refs/exarchos/*:refs/exarchos-remotes/origin/*")
			r2, err := Open(second)
			require.NoError(t, err)
			pull2, err := teamsync.Pull(r2.Repo, teamsync.PullOptions{Remote: "origin"})
			require.NoError(t, err)
			assert.Zero(t, pull2.Failures(), "%+v", pull2)
			st2, _, err := r2.State(feature)
			require.NoError(t, err)
			assert.Equal(t, "plan", st2.Phase)
			fsck2, err := views.Fsck(r2.Hook(), views.FsckOptions{})
			require.NoError(t, err)
			assert.Empty(t, fsck2.Problems)

			// verify, fsck
			r, err = Open(dir)
			require.NoError(t, err)
			ver, err := verify.Verify(&verify.Repo{Repo: r.Repo}, verify.Options{Feature: feature})
			require.NoError(t, err)
			assert.True(t, ver.OK)
			fsck, err := views.Fsck(r.Hook(), views.FsckOptions{})
			require.NoError(t, err)
			assert.Empty(t, fsck.Problems)

			// cancel
			can, err := saga.Cancel(r.Saga(), saga.CancelOptions{Feature: feature, Reason: "shape test", SkipPR: true})
			require.NoError(t, err)
			assert.True(t, can.Cancelled())
			settle()
			r, err = Open(dir)
			require.NoError(t, err)
			fsck, err = views.Fsck(r.Hook(), views.FsckOptions{})
			require.NoError(t, err)
			assert.Empty(t, fsck.Problems)
			gittest.Git(t, dir, "", "fsck", "--strict", "--no-progress")
		})
	}
}

// boundPhases is what a fresh hook process finds bound to dir's branch: each workflow's phase
// (hookrun's own tests have the same; app's tests cannot share theirs).
func boundPhases(t *testing.T, dir string) map[string]string {
	t.Helper()
	r, err := hookrun.Open(dir)
	require.NoError(t, err)
	ws, err := r.BoundWorkflows()
	require.NoError(t, err)
	out := map[string]string{}
	for _, w := range ws {
		out[w.Feature] = w.State.Phase
	}
	return out
}
