package workflowdef

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
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
// payload then fails, and a $ref outside the schema, which every payload then passes. Keywords holding data rather than schemas are not walked.
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
		// The compiler accepts a $ref it cannot resolve (the loaders above refuse it only when
		// asked) and the reference then validates every payload: only a reference inside the
		// schema itself is allowed, so a completion check never passes by default.
		for _, k := range []string{"$ref", "$dynamicRef"} {
			if ref, ok := v[k].(string); ok && !strings.HasPrefix(ref, "#") {
				return fmt.Errorf("%s/%s: %q is outside the schema; completion schemas are self-contained: put the definition under $defs and refer to it as #/$defs/<name>", at, k, ref)
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

// SchemaError is one way a payload breaks a completion schema (ValidateAgainst).
type SchemaError struct {
	Path    string `json:"path"`    // JSON pointer into the payload ("" is the whole document)
	Keyword string `json:"keyword"` // JSON pointer into the schema
	Message string `json:"message"`
}

// ValidateAgainst validates payload against schema and returns every error (the innermost ones,
// each at its JSON pointer in the payload), sorted by path. A payload that is not JSON is one
// error at the document.
func ValidateAgainst(schema, payload []byte) ([]SchemaError, error) {
	sch, err := CompileSchema(schema)
	if err != nil {
		return nil, err
	}
	var doc any
	if err := json.Unmarshal(payload, &doc); err != nil {
		return []SchemaError{{Message: "not JSON: " + err.Error()}}, nil
	}
	res := sch.Validate(doc)
	if res.IsValid() {
		return nil, nil
	}
	var out []SchemaError
	// In the hierarchical list a child's instance location is relative to its parent's; an error
	// explained by an invalid child (properties, items, allOf…) is reported through the child.
	var walk func(l *jsonschema.List, at string)
	walk = func(l *jsonschema.List, at string) {
		at += l.InstanceLocation
		explained := false
		for i := range l.Details {
			if !l.Details[i].Valid {
				explained = true
				walk(&l.Details[i], at)
			}
		}
		if explained {
			return
		}
		for _, kw := range slices.Sorted(maps.Keys(l.Errors)) {
			out = append(out, SchemaError{Path: at, Keyword: l.EvaluationPath + "/" + kw, Message: l.Errors[kw]})
		}
	}
	walk(res.ToList(true), "")
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}
