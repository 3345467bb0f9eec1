package app

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/exarchos/git-exarchos/project"
	"github.com/exarchos/git-exarchos/trust"
	"github.com/exarchos/git-exarchos/workflow"
)

// fill sets every field v holds, recursively, to a value that is not the zero value: two entries
// per map and slice, strings that JSON escapes (HTML characters, U+2028, non-ASCII).
func fill(v reflect.Value, name string) {
	if v.Type() == reflect.TypeOf(json.RawMessage(nil)) {
		v.Set(reflect.ValueOf(json.RawMessage(`{"z":[1,"<a&b>"],"a":{"é":"\u2028"}}`)))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(name + " <&> \u2028 é")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(int64(len(name)) + 7)
	case reflect.Uint64, reflect.Uint32, reflect.Uint:
		v.SetUint(uint64(len(name)) + 9)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), name)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), v.Type().Field(i).Name)
			}
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		fill(v.Index(0), name+"0")
		fill(v.Index(1), name+"1")
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		for _, k := range []string{"b-" + name, "a-" + name} {
			e := reflect.New(v.Type().Elem()).Elem()
			fill(e, k)
			v.SetMapIndex(reflect.ValueOf(k), e)
		}
	default:
		panic("fill: add a case for " + v.Kind().String() + " (" + name + ")")
	}
}

// TestStatusJSONFromTheSnapshotAsIs checks what StatusJSON stands on: a snapshot's JSON, extended
// with head and trust, is byte for byte the JSON of the Status decoded from it, for a state in
// which every field, down to the nested ones, has a value. A field whose JSON does not survive a
// decode and an encode unchanged fails here.
func TestStatusJSONFromTheSnapshotAsIs(t *testing.T) {
	var st workflow.State
	fill(reflect.ValueOf(&st).Elem(), "State")
	snapshot, err := json.Marshal(st)
	require.NoError(t, err)
	decoded, err := workflow.DecodeState(snapshot)
	require.NoError(t, err)
	trust := trust.Trust{Mode: "signed", Signers: 2}
	want, err := json.Marshal(Status{State: decoded, Head: "abc", Trust: trust, Warnings: []string{"w"}})
	require.NoError(t, err)

	fields, err := statusFields(snapshot, "abc", trust, []string{"w"})
	require.NoError(t, err)
	got, err := json.Marshal(fields)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))
	assert.Contains(t, string(got), `"head":"abc"`)
}

// TestStatusJSONIsShowStatusMarshalled compares the two roads on a real workflow: what
// `status --json` prints (StatusJSON) and the JSON of ShowStatus's result, whole and with
// --fields, and their refusal of an unknown field.
func TestStatusJSONIsShowStatusMarshalled(t *testing.T) {
	_, r := newRepo(t, "main")
	_, err := Init(r, InitOptions{Feature: "s", Type: "feature"})
	require.NoError(t, err)
	_, err = Set(r, SetOptions{Feature: "s", Assignments: []string{"artifacts.design=docs/<a&b>.md", "notes.why=\u2028 é <b>"}})
	require.NoError(t, err)
	_, err = AppendEvent(r, EventOptions{Feature: "s", Type: "team.note", Data: `{"x":1}`})
	require.NoError(t, err)

	for _, fields := range [][]string{nil, {"phase", "head", "trust", "artifacts"}, {"circuit", " fields"}} {
		res, err := ShowStatus(r, StatusOptions{Feature: "s", Fields: fields})
		require.NoError(t, err)
		want, err := json.Marshal(res)
		require.NoError(t, err)
		got, err := StatusJSON(r, StatusOptions{Fields: fields}) // the feature left out, as in the hook
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), "fields %q", fields)
	}
	_, err = StatusJSON(r, StatusOptions{Feature: "s", Fields: []string{"nope"}})
	var usage *project.UsageError
	require.ErrorAs(t, err, &usage)
	assert.Contains(t, err.Error(), `unknown status field "nope"`)
	_, err = StatusJSON(r, StatusOptions{Feature: "missing"})
	require.Error(t, err)
}
