package workflow

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The strings a filled state draws from: each thing encoding/json escapes, and plain ones.
var jsonTestStrings = []string{"", "plain", "docs/design.md", `quo"te`, `back\slash`, "<b>&amp;</b>", "tab\there\nline\r",
	"\x00\x01\x1f", "\x7f", "é ü 日本", "\u2028\u2029", "bad \xff utf8", "\xed\xa0\x80", "emoji 😀", strings.Repeat("long ", 200)}

var plainTestStrings = []string{"", "plain", "docs/design.md", "é ü 日本", "\x7f", "emoji 😀"}

var jsonTestRaw = []json.RawMessage{nil, json.RawMessage(`{}`), json.RawMessage(`{"a": [1, 2.5, -3e2], "b": {"c": null}}`),
	json.RawMessage(`"<tag>&"`), json.RawMessage(`[ ]`), json.RawMessage(`true`), json.RawMessage(`12`), json.RawMessage("\"\u2028\"")}

var rawMessageType = reflect.TypeFor[json.RawMessage]()

// fillRandom sets v, every field nested included, to random values; about one time in four a
// value is left zero (nil maps, slices and pointers too) and one in eight a collection is empty.
// Wild values are the strings and raw values encoding/json escapes or reads its own way.
func fillRandom(rng *rand.Rand, v reflect.Value, depth int, wild bool) {
	if rng.IntN(4) == 0 && depth > 0 {
		return
	}
	switch {
	case v.Type() == rawMessageType && wild:
		v.Set(reflect.ValueOf(jsonTestRaw[rng.IntN(len(jsonTestRaw))]))
		return
	case v.Type() == rawMessageType:
		v.Set(reflect.ValueOf(json.RawMessage(`{"a":[1,2.5,{}],"b":"x"}`)))
		return
	}
	switch v.Kind() {
	case reflect.String:
		if wild {
			v.SetString(jsonTestStrings[rng.IntN(len(jsonTestStrings))])
		} else {
			v.SetString(plainTestStrings[rng.IntN(len(plainTestStrings))])
		}
	case reflect.Bool:
		v.SetBool(rng.IntN(2) == 0)
	case reflect.Int, reflect.Int64:
		v.SetInt([]int64{0, 1, -1, 42, math.MaxInt64, math.MinInt64, rng.Int64()}[rng.IntN(7)])
	case reflect.Uint64:
		v.SetUint([]uint64{0, 1, math.MaxUint64, rng.Uint64()}[rng.IntN(4)])
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fillRandom(rng, p.Elem(), depth+1, wild)
		v.Set(p)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fillRandom(rng, v.Field(i), depth+1, wild)
			}
		}
	case reflect.Slice:
		n := rng.IntN(4)
		if rng.IntN(8) == 0 {
			n = 0
		}
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := 0; i < n; i++ {
			fillRandom(rng, s.Index(i), depth+1, wild)
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for n := rng.IntN(4); n > 0; n-- {
			e := reflect.New(v.Type().Elem()).Elem()
			fillRandom(rng, e, depth+1, wild)
			keys := plainTestStrings
			if wild {
				keys = jsonTestStrings
			}
			m.SetMapIndex(reflect.ValueOf(keys[rng.IntN(len(keys))]), e)
		}
		v.Set(m)
	default:
		panic("fillRandom: no case for " + v.Type().String())
	}
}

// randomStates is the zero state and n random ones: half of them wild (every string and raw value
// encoding/json escapes or reads its own way), half with plain strings.
func randomStates(n int) []State {
	rng := rand.New(rand.NewPCG(1, 2))
	out := []State{{}}
	for i := range n {
		var s State
		fillRandom(rng, reflect.ValueOf(&s).Elem(), 0, i%2 == 0)
		out = append(out, s)
	}
	return out
}

// TestStateJSONGolden: State's JSON is, byte for byte, what the hand-written writer it replaced
// gave (testdata/state_json_golden.jsonl, written by it for these random states: every field
// filled, escapes, nil and empty collections, json.RawMessage that is not compact), through
// json.Marshal too (a State inside another value).
func TestStateJSONGolden(t *testing.T) {
	golden, err := os.ReadFile("testdata/state_json_golden.jsonl")
	require.NoError(t, err)
	lines := bytes.Split(bytes.TrimSuffix(golden, []byte("\n")), []byte("\n"))
	i := 0
	for _, s := range randomStates(60) {
		got, err := s.MarshalJSON()
		if err != nil {
			continue // a Fields value that is not JSON: TestStateJSONNotJSONRaw
		}
		if i == len(lines) {
			break
		}
		require.Equal(t, string(lines[i]), string(got), "state %d", i)
		outer, err := json.Marshal(s)
		require.NoError(t, err)
		require.Equal(t, string(lines[i]), string(outer), "state %d through json.Marshal", i)
		i++
	}
	require.Equal(t, len(lines), i, "states compared")
}

// TestStateJSONNotJSONRaw: a Fields value that is not JSON is an error, no bytes.
func TestStateJSONNotJSONRaw(t *testing.T) {
	s := State{Fields: json.RawMessage(`{"a":`)}
	got, err := s.MarshalJSON()
	if err == nil || got != nil {
		t.Fatalf("got %q, %v", got, err)
	}
}
