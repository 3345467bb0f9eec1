// Package jsonstr quotes strings as encoding/json does, for the codecs written by hand on hot
// paths (a state snapshot, a list row) that must give encoding/json's bytes exactly. Their
// measured reasons (BENCHMARKS.md): encoding/json's reflection over list's thousand rows was 13% of
// a list call's samples (third stop), and over State 0.3 ms to decode and 0.1 ms to encode a
// snapshot, once per process (sixth stop). A string that needs an escape goes to encoding/json.
//
// It may import the standard library only, and does no I/O (the pure core uses it).
package jsonstr

import (
	"bytes"
	"encoding/json"
)

// Append appends s quoted. A string of printable ASCII that needs no escape is copied; any other
// goes through encoding/json, for its exact escapes (\u003c when escapeHTML, \ufffd for invalid
// UTF-8, \u2028…). escapeHTML is encoding/json's setting: json.Marshal escapes <, > and &.
func Append(b []byte, s string, escapeHTML bool) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || escapeHTML && (c == '<' || c == '>' || c == '&') {
			var out bytes.Buffer
			enc := json.NewEncoder(&out)
			enc.SetEscapeHTML(escapeHTML)
			_ = enc.Encode(s) // a string always encodes
			return append(b, bytes.TrimSuffix(out.Bytes(), []byte{'\n'})...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
