package workflow

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Assignment is one `path=value` of `git exarchos set`: a dot path and a JSON value.
type Assignment struct {
	Path  string          `json:"path"`
	Value json.RawMessage `json:"value"`
}

var pathSegment = lazyRegexp(`^[A-Za-z0-9_][A-Za-z0-9_-]*$`)

// ValidPath reports whether p is a dot path of simple segments (letters, digits, _ and -).
func ValidPath(p string) bool {
	if p == "" || CheckPath(p) != nil {
		return false
	}
	for _, seg := range strings.Split(p, ".") {
		if !pathSegment().MatchString(seg) {
			return false
		}
	}
	return true
}

// ParseAssignment parses one `path=value` argument. The value is JSON when it looks like JSON
// (starts with { [ " or is a number, true, false or null) and must then parse; anything else is
// taken as a plain string, so `track=hotfix` works without quotes.
func ParseAssignment(arg string) (Assignment, error) {
	path, value, ok := strings.Cut(arg, "=")
	if !ok {
		return Assignment{}, fmt.Errorf("%.80q: expected path=value", arg)
	}
	if err := CheckPath(path); err != nil {
		return Assignment{}, err
	}
	if err := CheckJSON("the value of "+path, []byte(value)); err != nil {
		return Assignment{}, err
	}
	if !ValidPath(path) {
		return Assignment{}, fmt.Errorf("%q: malformed path (dot-separated names of letters, digits, _ and -)", path)
	}
	trimmed := strings.TrimSpace(value)
	if looksLikeJSON(trimmed) {
		if !json.Valid([]byte(trimmed)) {
			return Assignment{}, fmt.Errorf("%s: malformed JSON value %s", path, value)
		}
		var c bytes.Buffer
		_ = json.Compact(&c, []byte(trimmed))
		return Assignment{Path: path, Value: c.Bytes()}, nil
	}
	b, _ := json.Marshal(value)
	return Assignment{Path: path, Value: b}, nil
}

func looksLikeJSON(v string) bool {
	if v == "" {
		return false
	}
	switch v[0] {
	case '{', '[', '"':
		return true
	}
	if v == "true" || v == "false" || v == "null" {
		return true
	}
	var n json.Number
	return json.Unmarshal([]byte(v), &n) == nil
}

// Field returns the JSON value at a dot path of the fields written by `set`.
func (s State) Field(path string) (json.RawMessage, bool) {
	cur := s.Fields
	for _, seg := range strings.Split(path, ".") {
		var obj map[string]json.RawMessage
		if len(cur) == 0 || json.Unmarshal(cur, &obj) != nil {
			return nil, false
		}
		v, ok := obj[seg]
		if !ok {
			return nil, false
		}
		cur = v
	}
	return cur, true
}

// FieldString returns the string at a dot path, or "" when absent or not a string.
func (s State) FieldString(path string) string {
	raw, ok := s.Field(path)
	if !ok {
		return ""
	}
	var v string
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	return v
}

// setPath returns obj with value set at path. Intermediate values that are not objects are
// replaced by objects when force is set; otherwise that is an error (Decide refuses it, the fold
// forces it so it stays total).
func setPath(obj json.RawMessage, path []string, value json.RawMessage, force bool) (json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(obj)) > 0 {
		if err := json.Unmarshal(obj, &m); err != nil || m == nil {
			if !force {
				return nil, fmt.Errorf("not an object")
			}
			m = map[string]json.RawMessage{}
		}
	}
	if len(path) == 1 {
		m[path[0]] = value
	} else {
		child, err := setPath(m[path[0]], path[1:], value, force)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path[0], err)
		}
		m[path[0]] = child
	}
	return json.Marshal(m) // sorted keys: deterministic
}
