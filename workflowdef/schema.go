package workflowdef

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kaptinlin/jsonschema"
)

// The validator is github.com/kaptinlin/jsonschema rather than santhosh-tekuri/jsonschema: the
// latter compiles every draft's metaschema in its package init, about 7 ms on every run of the
// binary — including each Claude Code hook call, whose whole budget is 10 ms.

// CompileSchema compiles a completion schema (JSON Schema 2020-12). A completion schema is
// self-contained: $ref to a file or URL is not followed, so a definition never makes the CLI read
// the network or the disk. Lint compiles it too, so a schema that cannot compile never makes a
// phase impossible to leave.
func CompileSchema(schema []byte) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	refuse := func(url string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("completion schemas are self-contained: $ref to %s is not followed", url)
	}
	for _, scheme := range []string{"http", "https", "file"} {
		c.RegisterLoader(scheme, refuse)
	}
	sch, err := c.Compile(schema)
	if err == nil {
		var v any
		if err = json.Unmarshal(schema, &v); err == nil {
			err = checkTypes(v, "")
		}
	}
	if err != nil {
		return nil, fmt.Errorf("the completion schema does not compile: %w", err)
	}
	return sch, nil
}

// jsonTypes are the values of JSON Schema's type keyword.
var jsonTypes = []string{"array", "boolean", "integer", "null", "number", "object", "string"}

// checkTypes refuses a type keyword naming no JSON type, which the compiler accepts and every
// payload then fails. Keywords holding data rather than schemas are not walked.
func checkTypes(v any, at string) error {
	switch v := v.(type) {
	case map[string]any:
		var names []any
		switch t := v["type"].(type) {
		case string:
			names = []any{t}
		case []any:
			names = t
		}
		for _, n := range names {
			if s, ok := n.(string); !ok || !slices.Contains(jsonTypes, s) {
				return fmt.Errorf("%s/type: %v is not a JSON type (%s)", at, n, strings.Join(jsonTypes, ", "))
			}
		}
		for k, c := range v {
			if k == "const" || k == "enum" || k == "default" || k == "examples" {
				continue
			}
			if err := checkTypes(c, at+"/"+k); err != nil {
				return err
			}
		}
	case []any:
		for i, c := range v {
			if err := checkTypes(c, fmt.Sprintf("%s/%d", at, i)); err != nil {
				return err
			}
		}
	}
	return nil
}
