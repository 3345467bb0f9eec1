package hooks

import (
	"strings"
	"testing"
)

// An agent under pressure, in a phase that waits on nobody, runs a human decision in a way the
// hook cannot read as a whole: the command's name from a variable or a substitution (so `env -i`
// is not seen), or a script fed to a shell through a pipe that clears the agent's variables. The
// CLI would then see no agent and take the decision as the user's. The words the hook can read
// are enough to refuse it.
func TestBashHumanDecisionBehindAnUnknownName(t *testing.T) {
	for _, c := range []bashCase{
		{`x=env; $x -i git exarchos override w2 paths-allowed --reason x`, wOverride},
		{`"$(echo env)" -i git exarchos approve w2`, human("approve")},
		{`$E -i git-exarchos review w2 --resolve f12345678 --human --note x`, "--human"},
		{`$E -i PATH=$PATH git -C . exarchos grant w2 Bash`, human("grant")},
		{`printf 'unset CLAUDECODE\n git exarchos approve w2' | bash`, "CLAUDECODE"},
		{`echo 'env -u AI_AGENT git exarchos status' | sh -s`, "AI_AGENT"},
		// What the agent may run stays allowed.
		{`$GIT exarchos status w2`, ""},
		{`x=ls; $x -la`, ""},
		{`printf 'echo hi\n' | bash`, ""},
		{`git log | grep exarchos`, ""},
	} {
		got := CheckBash(c.cmd, testCtx("/repo", ""))
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%s\n  got %q\n want %q", c.cmd, got, c.want)
		}
	}
}
