package jsonstr

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestAppendIsEncodingJSON: every string, escaped or not, is quoted exactly as encoding/json
// quotes it, with and without HTML escaping.
func TestAppendIsEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", `quo"te`, `back\slash`, "<b>&amp;</b>", "tab\there\nline\r\b\f",
		"\x00\x01\x1f", "\x7f", "é ü 日本", "\u2028\u2029", "bad \xff utf8", "\xed\xa0\x80", "emoji 😀", strings.Repeat("long ", 100)} {
		for _, html := range []bool{true, false} {
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(html)
			if err := enc.Encode(s); err != nil {
				t.Fatal(err)
			}
			if got := string(Append([]byte("x"), s, html)); got != "x"+strings.TrimSuffix(want.String(), "\n") {
				t.Errorf("Append(%q, html %v) = %s, want x%s", s, html, got, want.String())
			}
		}
	}
}
