package workflow

import (
	"fmt"
	"unicode/utf8"
)

// Bounds on what a caller hands in (`--data`, `set` values and paths), so that every command
// works in bounded memory and time and writes state that any JSON reader can parse (Python's
// parser, for one, stops near 1,000 levels of nesting).
const (
	MaxJSONBytes    = 256 << 10
	MaxJSONDepth    = 64
	MaxPathSegments = 32
)

// CheckJSON checks a JSON value given as input (what names it in the message): at most
// MaxJSONBytes, valid UTF-8, nested at most MaxJSONDepth deep. It reads the bytes once and does
// not check the JSON syntax itself (json.Valid does, after this bounded pass).
func CheckJSON(what string, b []byte) error {
	if len(b) > MaxJSONBytes {
		return fmt.Errorf("%s is %d bytes, over the limit of %d KiB", what, len(b), MaxJSONBytes>>10)
	}
	if !utf8.Valid(b) {
		return fmt.Errorf("%s is not valid UTF-8: give text in UTF-8 (binary data must be encoded, e.g. base64)", what)
	}
	depth, inString, escaped := 0, false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if depth++; depth > MaxJSONDepth {
				return fmt.Errorf("%s is nested more than %d levels deep, the limit", what, MaxJSONDepth)
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return nil
}

// CheckPath bounds a dot path before it is parsed: at most MaxPathSegments segments.
func CheckPath(p string) error {
	n := 1
	for i := 0; i < len(p); i++ {
		if p[i] == '.' {
			if n++; n > MaxPathSegments {
				return fmt.Errorf("path %.40q… has more than %d segments, the limit", p, MaxPathSegments)
			}
		}
	}
	return nil
}
