package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v3"
)

// jsonFlag is on every command.
var jsonFlag = &cli.BoolFlag{Name: "json", Usage: "print one JSON object on stdout (errors too)"}

// wantsJSON looks for --json in the raw arguments, so that even a flag-parsing error is reported as
// JSON when JSON was asked for.
func wantsJSON(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--json" || a == "-json" || a == "--json=true" {
			return true
		}
	}
	return false
}

// emit prints a command's result: JSON with --json, else the text rendering.
func emit(c *cli.Command, result any, text func(w io.Writer)) error {
	if c.Bool("json") {
		return emitJSON(c, result)
	}
	text(c.Root().Writer)
	return nil
}

// emitResult is emit for a result that may be a failure: the text, then the failure on stderr; or,
// with --json, one error object carrying the result.
func emitResult(c *cli.Command, result any, text func(w io.Writer), failure error) error {
	if failure == nil {
		return emit(c, result, text)
	}
	if !c.Bool("json") {
		text(c.Root().Writer)
	}
	return withDetails(failure, result)
}

// jsonWriter is a result that writes its JSON itself, for output too large for reflection to be
// cheap.
type jsonWriter interface{ WriteJSON(w io.Writer) error }

// emitJSON prints result as one JSON object.
func emitJSON(c *cli.Command, result any) error {
	if r, ok := result.(jsonWriter); ok {
		return r.WriteJSON(c.Root().Writer)
	}
	enc := json.NewEncoder(c.Root().Writer)
	enc.SetEscapeHTML(false)
	return enc.Encode(result)
}

// colour reports whether human output may use ANSI colour: a terminal, no NO_COLOR, TERM not dumb.
func colour(w io.Writer) bool {
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	return terminal(w)
}

// terminal reports whether f is a terminal (a character device).
func terminal(f any) bool {
	file, ok := f.(*os.File)
	if !ok {
		return false
	}
	fi, err := file.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func bold(w io.Writer, s string) string {
	if colour(w) {
		return "\x1b[1m" + s + "\x1b[0m"
	}
	return s
}

// boldIn is bold for w, for the text forms app writes (app/text.go).
func boldIn(w io.Writer) func(string) string { return func(s string) string { return bold(w, s) } }

func printf(w io.Writer, format string, args ...any) { fmt.Fprintf(w, format, args...) }
