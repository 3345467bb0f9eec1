package workflowdef

import (
	"reflect"
	"strings"
	"testing"
)

// TestValidateAgainstReportsEachErrorAtItsPath: a payload the schema refuses gets every innermost
// error at its JSON pointer, sorted by path (not the parent's "properties" summary); a payload
// that is not JSON is one error at the document; a valid one none; a schema that cannot compile
// is an error, not a verdict on the payload.
func TestValidateAgainstReportsEachErrorAtItsPath(t *testing.T) {
	schema := []byte(`{"type":"object","required":["summary"],"properties":{
		"summary":{"type":"string"},
		"items":{"type":"array","items":{"type":"integer"}}}}`)
	errs, err := ValidateAgainst(schema, []byte(`{"summary":3,"items":[1,"two"]}`))
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range errs {
		paths = append(paths, e.Path)
		if e.Message == "" || !strings.HasPrefix(e.Keyword, "/") {
			t.Errorf("error without message or schema keyword: %+v", e)
		}
	}
	if want := []string{"/items/1", "/summary"}; !reflect.DeepEqual(paths, want) {
		t.Errorf("paths %v, want %v (%+v)", paths, want, errs)
	}

	errs, err = ValidateAgainst(schema, []byte(`{"summary":`))
	if err != nil || len(errs) != 1 || errs[0].Path != "" || !strings.HasPrefix(errs[0].Message, "not JSON") {
		t.Errorf("truncated payload: %+v %v", errs, err)
	}
	if errs, err = ValidateAgainst(schema, []byte(`{"summary":"done","items":[1,2]}`)); err != nil || errs != nil {
		t.Errorf("valid payload: %+v %v", errs, err)
	}
	if _, err = ValidateAgainst([]byte(`{"type":"nonsense"}`), []byte(`{}`)); err == nil {
		t.Error("a schema that cannot compile judged the payload")
	}
}

// TestSchemaRefsStayInside: a $ref the compiler cannot follow (a URL, a file, a bare name) would
// let every payload through; such a schema does not compile, while a reference into the schema's
// own $defs works and still refuses a bad payload.
func TestSchemaRefsStayInside(t *testing.T) {
	for _, ref := range []string{"https://example.com/s.json", "file:///etc/s.json", "other.json", "other.json#/x"} {
		for _, schema := range []string{
			`{"$ref":"` + ref + `"}`,
			`{"type":"object","properties":{"a":{"$ref":"` + ref + `"}}}`,
			`{"$dynamicRef":"` + ref + `"}`,
		} {
			if _, err := CompileSchema([]byte(schema)); err == nil || !strings.Contains(err.Error(), "self-contained") {
				t.Errorf("%s: compiled (%v)", schema, err)
			}
			if errs, err := ValidateAgainst([]byte(schema), []byte(`{"anything":1}`)); err == nil {
				t.Errorf("%s: judged a payload (%+v)", schema, errs)
			}
		}
	}
	inside := []byte(`{"$defs":{"n":{"type":"integer"}},"type":"object","required":["a"],"properties":{"a":{"$ref":"#/$defs/n"}}}`)
	if errs, err := ValidateAgainst(inside, []byte(`{"a":"x"}`)); err != nil || len(errs) != 1 || errs[0].Path != "/a" {
		t.Errorf("an inside reference: %+v %v", errs, err)
	}
	if errs, err := ValidateAgainst(inside, []byte(`{"a":2}`)); err != nil || errs != nil {
		t.Errorf("an inside reference, valid payload: %+v %v", errs, err)
	}
}
