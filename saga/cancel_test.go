package saga_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/app"
	"github.com/exarchos/git-exarchos/gitrepo"
	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/internal/apptest"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/saga"
	"github.com/exarchos/git-exarchos/workflow"
)

// work is what a worktree holds, to compare byte for byte after a restore: every file but .git
// and ignored ones (with mode), the index entries, and git status.
type work struct {
	files  map[string]string
	index  string
	status string
}

func capture(t testing.TB, dir string) work {
	t.Helper()
	w := work{files: map[string]string{}}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == ".git" {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || strings.HasSuffix(rel, ".log") {
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		w.files[rel] = fi.Mode().String() + ":" + string(b)
		return nil
	})
	require.NoError(t, err)
	w.index = gittest.Git(t, dir, "", "ls-files", "-s")
	w.status = gittest.Git(t, dir, "", "status", "--porcelain", "--untracked-files=all")
	return w
}

func (w work) equal(o work) string {
	if fmt.Sprint(w.files) != fmt.Sprint(o.files) {
		return fmt.Sprintf("files differ:\n%v\n%v", w.files, o.files)
	}
	if w.index != o.index {
		return fmt.Sprintf("index differs:\n%s\n%s", w.index, o.index)
	}
	if w.status != o.status {
		return fmt.Sprintf("status differs:\n%s\n%s", w.status, o.status)
	}
	return ""
}

// scenario makes the worktrees of the issue: t1 with modified, staged (then modified again),
// staged-only, deleted, staged-deleted, untracked and ignored files on top of an unmerged commit;
// t2 clean with unmerged commits; t3 clean and merged; t4 only untracked files; a linked PR.
// It returns what each worktree held.
func scenario(t testing.TB, r *app.Repo, tasks ...string) map[string]work {
	t.Helper()
	return scenarioWithPR(t, r, 9, tasks...)
}

// scenarioWithPR is scenario with pull request n of acme/app linked.
func scenarioWithPR(t testing.TB, r *app.Repo, n int, tasks ...string) map[string]work {
	t.Helper()
	if len(tasks) == 0 {
		tasks = []string{"t1", "t2", "t3", "t4"}
	}
	wt := map[string]string{}
	for _, task := range tasks {
		wt[task] = apptest.StartWorktree(t, r, task)
	}
	w := wt["t1"]
	gittest.WriteFile(t, w, "src/a.go", "package a // committed on the task branch\n")
	gittest.Git(t, w, "", "commit", "-qam", "t1 work")
	gittest.WriteFile(t, w, "src/a.go", "package a // staged\n")
	gittest.Git(t, w, "", "add", "src/a.go")
	gittest.WriteFile(t, w, "src/a.go", "package a // staged, then changed again\n")
	gittest.WriteFile(t, w, "src/new.go", "package a // staged only\n")
	gittest.Git(t, w, "", "add", "src/new.go")
	require.NoError(t, os.Remove(filepath.Join(w, "src/b.go")))
	gittest.Git(t, w, "", "rm", "-q", "README")
	gittest.WriteFile(t, w, "notes/todo.txt", "untracked\n")
	gittest.WriteFile(t, w, "build.log", "ignored\n")

	if w := wt["t2"]; w != "" {
		gittest.WriteFile(t, w, "t2.txt", "one\n")
		gittest.Git(t, w, "", "add", ".")
		gittest.Git(t, w, "", "commit", "-qm", "t2 one")
		gittest.WriteFile(t, w, "t2.txt", "two\n")
		gittest.Git(t, w, "", "commit", "-qam", "t2 two")
	}
	if w := wt["t4"]; w != "" {
		gittest.WriteFile(t, w, "scratch/idea.md", "# untracked only\n")
	}

	_, err := r.Execute("login", workflow.LinkPR{URL: fmt.Sprintf("https://github.com/acme/app/pull/%d", n)})

	require.NoError(t, err)
	out := map[string]work{}
	for task, p := range wt {
		out[task] = capture(t, p)
	}
	return out
}

// checkRecovered restores every rescued task into a fresh worktree and compares it with what the
// worktree held; tasks with nothing worth keeping (t3) must have no rescue ref.
func checkRecovered(t testing.TB, dir string, r *app.Repo, want map[string]work, without ...string) {
	t.Helper()
	list, err := saga.RescueList(r.Saga(), saga.RescueListOptions{Feature: "login"})
	require.NoError(t, err)
	have := map[string]bool{}
	for _, x := range list.Rescues {
		have[x.Task] = true
	}
	for task, w := range want {
		skip := false
		for _, s := range without {
			skip = skip || s == task
		}
		if skip {
			if have[task] {
				t.Errorf("%s has a rescue ref but nothing needed keeping", task)
			}
			continue
		}
		if !have[task] {
			t.Errorf("%s: no rescue ref (rescues: %+v)", task, list.Rescues)
			continue
		}
		path := filepath.Join(t.TempDir(), "restored-"+task)
		_, err := saga.RescueRestore(r.Saga(), saga.RescueRestoreOptions{Feature: "login", Task: task, Path: path})
		require.NoError(t, err, "restore %s", task)
		if diff := capture(t, path).equal(w); diff != "" {
			t.Errorf("%s not recovered byte for byte: %s", task, diff)
		}
		gittest.Git(t, dir, "", "worktree", "remove", "--force", path)
	}
}

// checkCleaned asserts the end state of a finished cancel: cancelled, only the main worktree,
// only main as branch, every step recorded exactly once as done or skipped.
func checkCleaned(t testing.TB, dir string, r *app.Repo) {
	t.Helper()
	st, _, err := r.State("login")
	require.NoError(t, err)
	if st.Phase != "cancelled" {
		t.Fatalf("phase %s", st.Phase)
	}
	if got := gittest.Git(t, dir, "", "worktree", "list", "--porcelain"); strings.Count(got, "worktree ") != 1 {
		t.Fatalf("worktrees left:\n%s", got)
	}
	if got := gittest.Git(t, dir, "", "for-each-ref", "--format=%(refname)", "refs/heads/"); got != "refs/heads/main" {
		t.Fatalf("branches left:\n%s", got)
	}
	events, _, err := r.Store.Events("login", gitstore.EventFilter{Types: []string{workflow.EventCompensationStep}})
	require.NoError(t, err)
	finished := map[string]int{}
	for _, e := range events {
		var d workflow.CompensationData
		require.NoError(t, e.DecodeData(&d))
		if d.Outcome != workflow.OutcomeFailed {
			finished[d.Resource+" "+d.Action]++
		}
	}
	for _, res := range st.Resources {
		for _, a := range workflow.CompensationActions(res.Kind) {
			if n := finished[res.ID+" "+a]; n != 1 {
				t.Errorf("%s %s recorded %d times", a, res.ID, n)
			}
		}
	}
}

func TestCancelPreservesEverythingAndCleansUp(t *testing.T) {
	gh := fakeGitHub(t, 9)
	dir, r := apptest.NewSagaRepo(t)
	want := scenario(t, r)
	if out := gittest.Git(t, dir, "", "status", "--porcelain"); out != "" {
		t.Fatalf("task worktrees show in the main worktree's status: %q", out)
	}
	if gittest.Git(t, dir, "", "diff", "HEAD", "--stat") != "" || fileContains(t, filepath.Join(dir, ".gitignore"), ".worktrees") {
		t.Fatal(".gitignore was edited")
	}
	// Cancel from inside a task worktree: git still runs on the repository.
	inside, err := app.Open(filepath.Join(dir, ".worktrees", "login", "t2"))
	require.NoError(t, err)
	res, err := saga.Cancel(inside.Saga(), saga.CancelOptions{Feature: "login", Reason: "superseded"})
	require.NoError(t, err)
	if !res.Cancelled() || len(res.Steps) != 17 {
		t.Fatalf("%+v", res)
	}
	// Reverse creation order: the PR first, t4 before t1, a worktree before its branch.
	if res.Steps[0].Resource != "pr:https://github.com/acme/app/pull/9" || res.Steps[0].Outcome != workflow.OutcomeDone || res.Steps[0].Detail != "closed https://github.com/acme/app/pull/9" {
		t.Fatalf("first step %+v", res.Steps[0])
	}
	if p, _ := gh.PR(9); p.State != "closed" {
		t.Fatalf("pull request %+v", p)
	}
	if c := gh.Comments(9); len(c) != 1 || !strings.Contains(c[0], "workflow login was cancelled") || !strings.Contains(c[0], "Reason: superseded") {
		t.Fatalf("comments %q", c)
	}
	if res.Steps[1].Resource != "worktree:t4" || res.Steps[16].Resource != "branch:main--t1" || res.Steps[16].Action != "delete" {
		t.Fatalf("order %+v", res.Steps)
	}
	checkCleaned(t, dir, r)
	checkRecovered(t, dir, r, want, "t3")

	// Rerunning a finished cancel is a no-op that succeeds.
	head := gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/login")
	again, err := saga.Cancel(r.Saga(), saga.CancelOptions{Feature: "login"})
	if err != nil || !again.Cancelled() || len(again.Steps) != 0 || gittest.Git(t, dir, "", "rev-parse", "refs/exarchos/login") != head {
		t.Fatalf("cancel after the end: %+v %v", again, err)
	}
}

func fileContains(t testing.TB, path, s string) bool {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return strings.Contains(string(b), s)
}

func refsAndWorktrees(t testing.TB, dir string) string {
	return gittest.Git(t, dir, "", "for-each-ref") + "\n" + gittest.Git(t, dir, "", "worktree", "list", "--porcelain")
}

func TestCancelDryRunChangesNothing(t *testing.T) {
	gh := fakeGitHub(t, 9)
	dir, r := apptest.NewSagaRepo(t)
	want := scenario(t, r)
	before := refsAndWorktrees(t, dir)
	res, err := saga.Cancel(r.Saga(), saga.CancelOptions{Feature: "login", DryRun: true})
	require.NoError(t, err)
	if len(res.Steps) != 17 || res.Phase != "ideate" {
		t.Fatalf("%+v", res)
	}
	var plan []string
	for _, s := range res.Steps {
		plan = append(plan, s.Outcome+" "+s.Action+" "+s.Resource)
	}
	joined := strings.Join(plan, "\n")
	if _, total := gh.Requests(); total != 0 {
		t.Fatalf("a dry run asked GitHub %d times", total)
	}
	for _, line := range []string{"would be done close pr:https://github.com/acme/app/pull/9", "would be done preserve worktree:t1", "would be skipped preserve worktree:t3", "would be done preserve branch:main--t2", "would be skipped preserve branch:main--t3", "would be done delete branch:main--t1"} {
		if !strings.Contains(joined, line) {
			t.Errorf("plan lacks %q:\n%s", line, joined)
		}
	}
	if after := refsAndWorktrees(t, dir); after != before {
		t.Fatalf("dry run changed refs or worktrees:\n%s\n%s", before, after)
	}
	for task, w := range want {
		if diff := capture(t, filepath.Join(dir, ".worktrees", "login", task)).equal(w); diff != "" {
			t.Fatalf("dry run changed %s: %s", task, diff)
		}
	}
}

func TestCancelLockedWorktreeWaitsAndResumes(t *testing.T) {
	fakeGitHub(t, 9)
	dir, r := apptest.NewSagaRepo(t)
	want := scenario(t, r)
	t1 := filepath.Join(dir, ".worktrees", "login", "t1")
	gittest.Git(t, dir, "", "worktree", "lock", "--reason", "agent still running", t1)
	res, err := saga.Cancel(r.Saga(), saga.CancelOptions{Feature: "login"})
	var inc *saga.CancelIncompleteError
	if !errors.As(err, &inc) || len(inc.Failed) != 1 {
		t.Fatalf("want one failed step, got %v", err)
	}
	f := inc.Failed[0]
	if f.Resource != "worktree:t1" || f.Action != "remove" || !strings.Contains(f.Detail, "agent still running") || !strings.Contains(f.Fix, "git worktree unlock "+t1) {
		t.Fatalf("failure %+v", f)
	}
	if res.Phase != "cancelling" || len(res.Pending) != 3 { // t1: remove; its branch: preserve, delete
		t.Fatalf("%+v", res)
	}
	st, _, _ := r.State("login")
	if w, _ := st.TaskWorktree("t1"); w.Failure == nil || w.Failure.Fix == "" {
		t.Fatalf("failure not in state: %+v", w)
	}
	if diff := capture(t, t1).equal(want["t1"]); diff != "" {
		t.Fatalf("the locked worktree was touched: %s", diff)
	}
	// Running it again without fixing anything retries and fails the same way.
	if _, err := saga.Cancel(r.Saga(), saga.CancelOptions{Feature: "login"}); !errors.As(err, &inc) {
		t.Fatalf("second run: %v", err)
	}
	gittest.Git(t, dir, "", "worktree", "unlock", t1)
	if res, err = saga.Cancel(r.Saga(), saga.CancelOptions{Feature: "login"}); err != nil || !res.Cancelled() {
		t.Fatalf("after unlock: %+v %v", res, err)
	}
	checkCleaned(t, dir, r)
	checkRecovered(t, dir, r, want, "t3")
}

func TestCancelWorktreeDeletedByHand(t *testing.T) {
	dir, r := apptest.NewSagaRepo(t)
	w := apptest.StartWorktree(t, r, "t1")
	gittest.WriteFile(t, w, "x.txt", "committed\n")
	gittest.Git(t, w, "", "add", ".")
	gittest.Git(t, w, "", "commit", "-qm", "unmerged work")
	want := capture(t, w)
	require.NoError(t, os.RemoveAll(w))
	res, err := saga.Cancel(r.Saga(), saga.CancelOptions{Feature: "login"})
	require.NoError(t, err)
	if res.Steps[0].Outcome != workflow.OutcomeSkipped || !strings.Contains(res.Steps[0].Detail, "deleted outside git exarchos") ||
		!strings.Contains(res.Steps[1].Detail, "already gone") || res.Steps[2].Outcome != workflow.OutcomeDone {
		t.Fatalf("%+v", res.Steps)
	}
	checkCleaned(t, dir, r)
	checkRecovered(t, dir, r, map[string]work{"t1": want})
}

func TestCancelBranchCheckedOutElsewhere(t *testing.T) {
	dir, r := apptest.NewSagaRepo(t)
	w := apptest.StartWorktree(t, r, "t1")
	gittest.WriteFile(t, w, "x.txt", "work\n")
	gittest.Git(t, w, "", "add", ".")
	gittest.Git(t, w, "", "commit", "-qm", "unmerged work")
	want := capture(t, w)
	// The task worktree moves to a branch of its own, and the main worktree takes the task branch.
	gittest.Git(t, w, "", "switch", "-q", "-c", "elsewhere")
	gittest.Git(t, dir, "", "switch", "-q", "main--t1")
	_, err := saga.Cancel(r.Saga(), saga.CancelOptions{Feature: "login"})
	var inc *saga.CancelIncompleteError
	if !errors.As(err, &inc) || inc.Failed[0].Resource != "branch:main--t1" || inc.Failed[0].Action != "delete" || !strings.Contains(inc.Failed[0].Fix, "switch") {
		t.Fatalf("%v", err)
	}
	gittest.Git(t, dir, "", "switch", "-q", "main")
	gittest.Git(t, dir, "", "branch", "-D", "elsewhere")
	res, err := saga.Cancel(r.Saga(), saga.CancelOptions{Feature: "login"})
	if err != nil || !res.Cancelled() {
		t.Fatalf("%+v %v", res, err)
	}
	checkCleaned(t, dir, r)
	checkRecovered(t, dir, r, map[string]work{"t1": want})
}

func TestCancelWithoutResourcesEndsAtOnce(t *testing.T) {
	_, r := apptest.NewSagaRepo(t)
	res, err := saga.Cancel(r.Saga(), saga.CancelOptions{Feature: "login", Reason: "dup"})
	if err != nil || !res.Cancelled() || len(res.Steps) != 0 {
		t.Fatalf("%+v %v", res, err)
	}
}

func TestTaskStartWorktreeIsIdempotentAndTaskDoneRecordsHead(t *testing.T) {
	dir, r := apptest.NewSagaRepo(t)
	p := apptest.StartWorktree(t, r, "t1")
	if want := filepath.Join(dir, ".worktrees", "login", "t1"); !gitrepo.SamePath(p, want) {
		t.Fatalf("path %s, want %s", p, want)
	}
	again, err := saga.StartTask(r.Saga(), saga.TaskStartOptions{Feature: "login", Task: "t1", Worktree: true})
	if err != nil || again.Worktree.Created || !gitrepo.SamePath(again.Worktree.Path, p) || len(again.Appended) != 0 {
		t.Fatalf("rerun: %+v %v", again, err)
	}
	if n := strings.Count(readFile(t, filepath.Join(dir, ".git", "info", "exclude")), "/.worktrees/"); n != 1 {
		t.Fatalf("exclude has the pattern %d times", n)
	}
	// The same workflow is found from inside the worktree.
	inside, err := app.Open(p)
	require.NoError(t, err)
	if f, err := inside.ResolveFeature(""); err != nil || f != "login" {
		t.Fatalf("from the worktree: %q %v", f, err)
	}
	gittest.WriteFile(t, p, "y.txt", "y\n")
	gittest.Git(t, p, "", "add", ".")
	gittest.Git(t, p, "", "commit", "-qm", "y")
	head := gittest.Git(t, p, "", "rev-parse", "HEAD")
	_, err = app.CompleteTask(inside, app.TaskDoneOptions{Task: "t1"})
	require.NoError(t, err)
	st, _, _ := r.State("login")
	task, _ := st.Task("t1")
	w, _ := st.TaskWorktree("t1")
	if task.HeadSHA != head || w.Head != head || task.Status != workflow.TaskCompleted {
		t.Fatalf("head not recorded: %+v %+v", task, w)
	}
	// --base: a task branch from another commit; unknown tasks create nothing.
	_, err = r.Execute("login", workflow.AddTask{ID: "t2"})
	require.NoError(t, err)
	res, err := saga.StartTask(r.Saga(), saga.TaskStartOptions{Feature: "login", Task: "t2", Worktree: true, Base: "main~0"})
	if err != nil || res.Worktree.Base != gittest.Git(t, dir, "", "rev-parse", "main") {
		t.Fatalf("%+v %v", res, err)
	}
	before := refsAndWorktrees(t, dir)
	if _, err := saga.StartTask(r.Saga(), saga.TaskStartOptions{Feature: "login", Task: "nope", Worktree: true}); !project.IsRejection(err) {
		t.Fatalf("unknown task: %v", err)
	}
	if _, err := saga.StartTask(r.Saga(), saga.TaskStartOptions{Feature: "login", Task: "t2b", Worktree: true, Base: "no-such-rev"}); err == nil {
		t.Fatal("bad base accepted")
	}
	if after := refsAndWorktrees(t, dir); after != before {
		t.Fatalf("refused starts changed the repository:\n%s\n%s", before, after)
	}
}

func readFile(t testing.TB, p string) string {
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(b)
}

// A worktree deleted by hand whose HEAD held commits on no branch: removing a later worktree must
// not prune its record before its own preserve step keeps that HEAD.
func TestCancelDeletedDetachedWorktreeKeepsItsHead(t *testing.T) {
	dir, r := apptest.NewSagaRepo(t)
	a := apptest.StartWorktree(t, r, "a")
	gittest.Git(t, a, "", "switch", "-q", "--detach")
	gittest.WriteFile(t, a, "only-here.txt", "on no branch\n")
	gittest.Git(t, a, "", "add", ".")
	gittest.Git(t, a, "", "commit", "-qm", "detached work")
	want := capture(t, a)
	require.NoError(t, os.RemoveAll(a))
	apptest.StartWorktree(t, r, "b")
	_, err := saga.Cancel(r.Saga(), saga.CancelOptions{Feature: "login"})
	require.NoError(t, err)
	checkCleaned(t, dir, r)
	checkRecovered(t, dir, r, map[string]work{"a": want})
}
