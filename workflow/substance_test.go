package workflow_test

import (
	"testing"

	"github.com/exarchos/git-exarchos/workflow"
)

// Issue 38 item 3: a change of only whitespace or comments is no work; any change of code, of a
// string, or (where indentation is syntax) of indentation is.
func TestCosmeticChange(t *testing.T) {
	for _, c := range []struct {
		name, path, old, cur string
		cosmetic             bool
	}{
		{"go line comment", "a.go", "package a\n\nfunc F() int { return 1 }\n", "package a\n\n// F is one.\nfunc F() int { return 1 } // one\n", true},
		{"go block comment", "a.go", "package a\nvar x = 1\n", "package a\n/* a\n   block */\nvar x = 1\n", true},
		{"go reformatted", "a.go", "package a\nfunc F( a,b int ) int {return a+b}\n", "package a\n\nfunc F(a, b int) int {\n\treturn a + b\n}\n", true},
		{"go code", "a.go", "package a\nvar x = 1\n", "package a\nvar x = 2\n", false},
		{"go code after a comment", "a.go", "package a\nvar x = 1\n", "package a\nvar x = 1 // old\nvar y = 2\n", false},
		{"go string with //", "a.go", "package a\nvar u = \"http://a\"\n", "package a\nvar u = \"http://b\"\n", false},
		{"go string whitespace", "a.go", "package a\nvar u = \"a b\"\n", "package a\nvar u = \"a  b\"\n", false},
		{"go raw string", "a.go", "package a\nvar u = `// x`\n", "package a\nvar u = `// y`\n", false},
		{"go escaped quote", "a.go", "package a\nvar u = \"\\\" // x\"\n", "package a\nvar u = \"\\\" // y\"\n", false},
		{"words joined", "a.go", "package a\nvar x int\n", "package a\nvarx int\n", false},
		{"new go file of comments", "b.go", "", "// nothing yet\n", true},
		{"new go file of code", "b.go", "", "package b\n", false},
		{"deleted code", "b.go", "package b\n", "", false},
		{"python comment", "a.py", "def f():\n    return 1\n", "# f\ndef f():\n    return 1  # one\n", true},
		{"python indentation", "a.py", "if x:\n    a()\nb()\n", "if x:\n    a()\n    b()\n", false},
		{"python hash in string", "a.py", "c = '#fff'\n", "c = '#000'\n", false},
		{"python trailing blank", "a.py", "a = 1\n", "a = 1   \n\n\n", true},
		{"shell comment", "run.sh", "echo hi\n", "# say hi\necho hi\n", true},
		{"shell code", "run.sh", "echo hi\n", "echo bye\n", false},
		{"yaml indentation", "c.yaml", "a:\n  b: 1\n", "a:\nb: 1\n", false},
		{"sql comment", "q.sql", "select 1;\n", "-- one\nselect 1;\n", true},
		{"html comment", "i.html", "<p>a</p>\n", "<!-- note --><p>a</p>\n", true},
		{"rust lifetime kept", "a.rs", "fn f<'a>(x: &'a str) {}\n", "fn f<'a>(x: &'a str) {} // c\n", true},
		{"rust code", "a.rs", "fn f() {}\n", "fn g() {}\n", false},
		{"unknown language: whitespace only", "notes.txt", "a b\n", "a  b\n\n", true},
		{"unknown language: # is text", "notes.txt", "a\n", "a\n# b\n", false},
		{"makefile recipe tab", "Makefile", "all:\n\techo a\n", "all:\n    echo a\n", false},
		{"binary", "x.bin", "a\x00b", "a\x00c", false},
	} {
		if got := workflow.CosmeticChange(c.path, []byte(c.old), []byte(c.cur)); got != c.cosmetic {
			t.Errorf("%s: CosmeticChange(%s) = %v, want %v", c.name, c.path, got, c.cosmetic)
		}
	}
}
