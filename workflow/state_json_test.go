package workflow

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// plainState is State without its methods: what encoding/json makes of the struct tags, the
// oracle the hand-written codec is held to.
type plainState State

// encodingJSON is State's JSON as encoding/json writes it, with the empty collections State has
// always written as [] and {}.
func encodingJSON(s State) ([]byte, error) {
	p := plainState(s)
	if p.Artifacts == nil {
		p.Artifacts = map[string]Artifact{}
	}
	if p.Tasks == nil {
		p.Tasks = []Task{}
	}
	if p.Reviews == nil {
		p.Reviews = map[string]Review{}
	}
	if p.Validations == nil {
		p.Validations = []Validation{}
	}
	if p.Approvals == nil {
		p.Approvals = []Approval{}
	}
	if p.Overrides == nil {
		p.Overrides = []Override{}
	}
	if len(p.Fields) == 0 {
		p.Fields = json.RawMessage(`{}`)
	}
	if p.FixCycles == nil {
		p.FixCycles = map[string]int{}
	}
	if p.Conflicts == nil {
		p.Conflicts = []Conflict{}
	}
	if p.Resources == nil {
		p.Resources = []Resource{}
	}
	return json.Marshal(p)
}

// decodingJSON is what encoding/json decodes b into.
func decodingJSON(b []byte) (State, error) {
	var p plainState
	err := json.Unmarshal(b, &p)
	return State(p), err
}

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
// encoding/json escapes or reads its own way), half with plain strings, which the fast reader
// reads itself (a nil Submission payload aside, written as null).
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

// TestStateJSONIsEncodingJSON: the hand-written writer gives, byte for byte, what encoding/json
// gives for every field of State filled at random, escapes, nil and empty collections, and
// json.RawMessage that is not compact (or not JSON: the same error) included.
func TestStateJSONIsEncodingJSON(t *testing.T) {
	for i, s := range randomStates(3000) {
		got, gotErr := s.MarshalJSON()
		want, wantErr := encodingJSON(s)
		if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
			t.Fatalf("state %d: error %v, encoding/json's %v", i, gotErr, wantErr)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("state %d:\n got %s\nwant %s", i, got, want)
		}
		// Through json.Marshal (a State inside another value) too.
		if outer, err := json.Marshal(s); err == nil && !bytes.Equal(outer, want) {
			t.Fatalf("state %d through json.Marshal:\n got %s\nwant %s", i, outer, want)
		}
	}
}

// TestStateJSONNotJSONRaw: a Fields value that is not JSON is encoding/json's error, no bytes.
func TestStateJSONNotJSONRaw(t *testing.T) {
	s := State{Fields: json.RawMessage(`{"a":`)}
	got, err := s.MarshalJSON()
	_, want := encodingJSON(s)
	if err == nil || want == nil || err.Error() != want.Error() || got != nil {
		t.Fatalf("got %q, %v; encoding/json: %v", got, err, want)
	}
}

// TestDecodeStateIsEncodingJSON: DecodeState gives what encoding/json gives for the canonical
// bytes of random states (read by the fast reader), and for those bytes changed in ways that leave
// the canonical form (read by encoding/json after the fast reader gives up), with the same errors.
func TestDecodeStateIsEncodingJSON(t *testing.T) {
	fast := 0
	for i, s := range randomStates(2000) {
		b, err := encodingJSON(s)
		if err != nil {
			continue // a Fields value that is not JSON: nothing to read
		}
		if _, ok := decodeStateFast(b); ok {
			fast++
		} else if !bytes.Contains(b, []byte(`\`)) && !bytes.Contains(b, []byte(`:null`)) {
			t.Fatalf("state %d: the fast reader gave up on canonical bytes: %s", i, b)
		}
		checkDecodeState(t, b, "state %d", i)
	}
	if fast < 500 {
		t.Fatalf("the fast reader read only %d of the canonical states", fast)
	}
	s := randomStates(1)[1]
	canon, _ := encodingJSON(s)
	variants := map[string]string{
		"white space":            strings.ReplaceAll(string(canon), `":`, `" : `),
		"key in other case":      strings.Replace(string(canon), `"feature"`, `"Feature"`, 1),
		"unknown key":            strings.Replace(string(canon), `{"feature"`, `{"extra":[1,{"a":null}],"feature"`, 1),
		"repeated key":           strings.Replace(string(canon), `{"feature"`, `{"phase":"x","feature"`, 1),
		"repeated object key":    strings.Replace(string(canon), `{"feature"`, `{"loop":{"workerDone":true},"feature"`, 1),
		"escape":                 strings.Replace(string(canon), `"feature":"`, `"feature":"\u0041\n`, 1),
		"null collection":        strings.Replace(string(canon), `"tasks":[`, `"tasks":null,"x":[`, 1),
		"null fields":            strings.Replace(string(canon), `"fields":`, `"fields":null,"y":`, 1),
		"fraction":               strings.Replace(string(canon), `"revisions":`, `"revisions":1.5,"z":`, 1),
		"exponent":               strings.Replace(string(canon), `"events":`, `"events":1e3,"z":`, 1),
		"leading zero":           strings.Replace(string(canon), `"events":`, `"events":01,"z":`, 1),
		"negative clock":         strings.Replace(string(canon), `"lastClock":`, `"lastClock":-`, 1),
		"overflow":               strings.Replace(string(canon), `"lastSeq":`, `"lastSeq":99999999999999999999,"z":`, 1),
		"string for number":      strings.Replace(string(canon), `"lastSeq":`, `"lastSeq":"1","z":`, 1),
		"trailing data":          string(canon) + ` {}`,
		"trailing space":         string(canon) + " \n",
		"truncated":              string(canon[:len(canon)/2]),
		"invalid utf8":           strings.Replace(string(canon), `"feature":"`, "\"feature\":\"\xff", 1),
		"control character":      strings.Replace(string(canon), `"feature":"`, "\"feature\":\"\x01", 1),
		"not an object":          `[1,2]`,
		"deep fields":            `{"fields":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`,
		"unterminated fields":    `{"fields":{"a":"b}`,
		"bare word in fields":    `{"fields":tru}`,
		"number ends the object": `{"events":12}`,
		"empty object":           `{}`,
		"map repeated key":       `{"fixCycles":{"a":1,"a":2}}`,
		// Each alone, so that nothing else sends the document to encoding/json.
		"only a leading zero":    `{"events":01}`,
		"only minus zero":        `{"events":-0}`,
		"only a negative clock":  `{"lastClock":-1}`,
		"only a big clock":       `{"lastClock":18446744073709551616}`,
		"only a fraction":        `{"events":1.5}`,
		"only an exponent":       `{"events":1e3}`,
		"only an overflow":       `{"lastSeq":9223372036854775808}`,
		"only a string number":   `{"lastSeq":"1"}`,
		"only a null slice":      `{"tasks":null}`,
		"only a null raw":        `{"fields":null}`,
		"only a null pointer":    `{"circuit":null}`,
		"only a repeated scalar": `{"phase":"x","phase":"y"}`,
		"only a repeated struct": `{"loop":{"workerDone":true},"loop":{"signals":2}}`,
		"only a repeated map":    `{"fixCycles":{"a":1},"fixCycles":{"b":2}}`,
		"only a repeated slice":  `{"tasks":[{"id":"a"}],"tasks":[]}`,
		"only an escape":         `{"phase":"a\u00e9"}`,
		"only a raw escape":      `{"fields":{"a":"\""}}`,
		"only a raw bad escape":  `{"fields":{"a":"\x"}}`,
		"only true misspelt":     `{"synthesisRequested":tru}`,
		"only a bool as string":  `{"synthesisRequested":"true"}`,
		"only an array for map":  `{"reviews":[]}`,
		"only an unclosed array": `{"tasks":[{"id":"a"}`,
		"only a missing colon":   `{"phase" "x"}`,
		"only a trailing comma":  `{"phase":"x",}`,
		"only a leading zero u":  `{"lastClock":01}`,
		"only trailing data":     `{"phase":"x"} {}`,
		"only a trailing word":   `{"phase":"x"}x`,
		"only very deep fields":  `{"fields":` + strings.Repeat("[", 20_000_000) + `}`,
	}
	for name, v := range variants {
		checkDecodeState(t, []byte(v), "%s", name)
	}
	// The canonical form the fast reader takes: white space between tokens, escapes inside a raw
	// value, integers at their limits.
	for _, v := range []string{`{}`, ` { "phase" : "x" , "events" : -0 } `, `{"fields":{"a":"\"\u00e9","b":[1,-2.5e3,true,null]}}`,
		`{"lastClock":18446744073709551615,"lastSeq":-9223372036854775808}`, `{"fixCycles":{"a":1,"a":2}}`} {
		if _, ok := decodeStateFast([]byte(v)); !ok {
			t.Errorf("the fast reader gave up on %s", v)
		}
		checkDecodeState(t, []byte(v), "%s", v)
	}
}

func checkDecodeState(t *testing.T, b []byte, format string, args ...any) {
	t.Helper()
	got, gotErr := DecodeState(b)
	want, wantErr := decodingJSON(b)
	if wantErr != nil {
		if gotErr == nil || !strings.Contains(gotErr.Error(), strings.ReplaceAll(wantErr.Error(), "plainState", "State")) {
			t.Fatalf(format+": error %v, encoding/json's %v", append(args, gotErr, wantErr)...)
		}
		return
	}
	if gotErr != nil {
		t.Fatalf(format+": error %v, encoding/json none", append(args, gotErr)...)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf(format+":\n got %#v\nwant %#v", append(args, got, want)...)
	}
}

// FuzzDecodeState: for any input, DecodeState succeeds exactly when encoding/json does, with the
// same state. Its seeds are canonical states (run by go test; go test -fuzz explores from them).
func FuzzDecodeState(f *testing.F) {
	for _, s := range randomStates(20) {
		if b, err := encodingJSON(s); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		b = bytes.TrimSpace(b)
		if len(b) == 0 || string(b) == "null" {
			return // the initial state, before either decoder
		}
		checkDecodeState(t, b, "input %q", b)
	})
}
