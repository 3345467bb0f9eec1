package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"
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
func emit(c *cli.Context, result any, text func(w io.Writer)) error {
	if c.Bool("json") {
		return emitJSON(c, result)
	}
	text(c.App.Writer)
	return nil
}

// emitJSON prints result as one JSON object.
func emitJSON(c *cli.Context, result any) error {
	enc := json.NewEncoder(c.App.Writer)
	enc.SetEscapeHTML(false)
	return enc.Encode(result)
}

// colour reports whether human output may use ANSI colour: a terminal, and no NO_COLOR.
func colour(w io.Writer) bool {
	if os.Getenv("NO_COLOR") != "" {
		return false
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func bold(w io.Writer, s string) string {
	if colour(w) {
		return "\x1b[1m" + s + "\x1b[0m"
	}
	return s
}

func printf(w io.Writer, format string, args ...any) { fmt.Fprintf(w, format, args...) }
