package gitrepo

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestConfigFileParsesAsGit feeds the parser what git's own config.c accepts and refuses, and
// compares every variable with `git config --list --file`: the syntax's corners (quotes,
// escapes, continuations, comments, CRLF, a BOM, the dotted header, implicit values) and the
// errors git reports.
func TestConfigFileParsesAsGit(t *testing.T) {
	cases := map[string]string{
		"comments":      "# top\n; top\n[core] # after a header\n\tbare = true ; after a value\n\tworktree = \"/a b\" # c\n",
		"subsection":    "[Section \"Sub \\\"q\\\" \\\\ x\"]\n\tKey = v\n[branch \"Feature-X\"]\n\tremote = up\n",
		"dotted header": "[a.B]\n\tk = v\n",
		"quotes":        "[x]\n\tk =   \"  lead\" and  \"trail  \"   \n",
		"continuation":  "[x]\n\tk = one \\\n  two\n\tq = \"a\\\nb\"\n",
		"escapes":       "[x]\n\tk = a\\tb\\nc\\\"d\\\\e\\bf\n",
		"implicit":      "[x]\n\tflag\n\tempty =\n\tafter = 1\n",
		"crlf":          "[x]\r\n\tk = v\r\n\tj = w\r\n",
		"bom":           "\xef\xbb\xbf[x]\n\tk = v\n",
		"multi":         "[remote \"o\"]\n\tfetch = 1\n\tfetch = 2\n[remote \"o\"]\n\tfetch = 3\n",
		"inner blanks":  "[x]\n\tk = a\t\tb  c\n",
		"dashes":        "[x]\n\tmy-key = 1\n",
		"same line":     "[x]k=v\n[y] j = w",
		"empty":         "",
		"no newline":    "[x]\n\tk = v",
		"outside":       "k = v\n",
		"open quote":    "[x]\n\tk = \"unterminated\n",
		"digit key":     "[x]\n\t1k = v\n",
		"open sub":      "[x \"sub]\n",
		"bad escape":    "[x]\n\tk = \\q\n",
		"key comment":   "[x]\n\tk ; c\n",
		"bad header":    "[x y]\n",
		"empty header":  "[]\n",
		"trailing \\":   "[x]\n\tk = v\\",
	}
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config")
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			out, gitErr := exec.Command("git", "config", "--file", path, "-z", "--list").Output()
			entries, err := parseConfigFile([]byte(content))
			if gitErr != nil {
				assert.Error(t, err, "git refuses it: %v", gitErr)
				return
			}
			if !assert.NoError(t, err) {
				return
			}
			var want []string
			for _, rec := range strings.Split(string(out), "\x00") {
				if rec == "" {
					continue
				}
				k, v, _ := strings.Cut(rec, "\n")
				want = append(want, configKey(k)+"="+v)
			}
			var got []string
			for _, e := range entries {
				got = append(got, configKey(e.fullKey())+"="+e.Value)
			}
			assert.Equal(t, want, got)
		})
	}
}
