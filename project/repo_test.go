package project

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/gitstore"
	"github.com/exarchos/git-exarchos/internal/gittest"
	"github.com/exarchos/git-exarchos/workflow"
)

// TestNoProjectorWithoutTrust (issue 41): project offers the store no projector of its own, and
// holds no interface a job installs from above, so nothing can read or write a workflow with
// human decisions folded unjudged because trust was forgotten: the store's only projector is
// trust.Repo.Projector, which judges them first and is handed to each store call. (Before, a
// Repo's projector called up into trust through an installed project.Verdicts.)
func TestNoProjectorWithoutTrust(t *testing.T) {
	projector := reflect.TypeFor[gitstore.Projector]()
	repo := reflect.TypeFor[*Repo]()
	assert.False(t, repo.Implements(projector), "*project.Repo is a projector")
	for i := range repo.NumMethod() {
		m := repo.Method(i)
		for o := range m.Type.NumOut() {
			assert.False(t, m.Type.Out(o).Implements(projector), "project.Repo.%s returns a projector", m.Name)
		}
	}
	s := repo.Elem()
	for i := range s.NumField() {
		f := s.Field(i)
		if f.Name == "Notices" {
			continue // where the user's notices go (an io.Writer), not a step of a fold or a write
		}
		assert.False(t, f.Type.Kind() == reflect.Interface || f.Type.Kind() == reflect.Func,
			"project.Repo.%s (%s) is installed from above: pass it to the call that needs it", f.Name, f.Type)
	}
}

// TestFoldUnderTheRules: the fold folds a built-in type without the rules, and names the fix for
// a type the rules lack.
func TestFoldUnderTheRules(t *testing.T) {
	r, err := Open(gittest.NewRepoOnBranch(t, "main"))
	require.NoError(t, err)
	started := workflow.Event{Type: workflow.EventStarted, Seq: 1, Data: json.RawMessage(`{"feature":"f","type":"feature","branch":"main","phase":"ideate"}`)}
	snap, err := r.Fold(nil, []workflow.Event{started})
	require.NoError(t, err)
	st, err := workflow.DecodeState(snap)
	require.NoError(t, err)
	assert.Equal(t, "ideate", st.Phase)

	custom := workflow.Event{Type: workflow.EventStarted, Seq: 1, Data: json.RawMessage(`{"feature":"g","type":"release","branch":"main","phase":"draft"}`)}
	_, err = r.Fold(nil, []workflow.Event{custom})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "release")
}
