package agentenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAgentEnvDetect: each variable alone marks an agent's process, an empty one does not, a
// longer name is another variable; Strip removes them all; Mark adds AI_AGENT only where none is.
func TestDetect(t *testing.T) {
	for _, v := range Vars {
		got, ok := Env{"HOME=/h", v.Name + "=x"}.Detect()
		assert.True(t, ok, v.Name)
		assert.Equal(t, v.Name, got.Name)
		_, ok = Env{"HOME=/h", v.Name + "="}.Detect()
		assert.False(t, ok, "%s empty", v.Name)
		assert.Empty(t, Strip([]string{v.Name + "=1"}), v.Name)
	}
	_, ok := Env{"CLAUDECODE_X=1", "XAI_AGENT=1"}.Detect()
	assert.False(t, ok, "a longer name is not the variable")
	assert.Equal(t, []string{"A=1", "AI_AGENT=mcp"}, Mark([]string{"A=1"}, "mcp"))
	assert.Equal(t, []string{"CLAUDECODE=1"}, Mark([]string{"CLAUDECODE=1"}, "mcp"))
}

// TestInAncestry: the walk reads each ancestor's environment and stat as /proc lays them out
// (a command name holding spaces and parentheses included), stops at pid 1 and at an ancestor it
// cannot read, and names the first that carries an agent variable.
func TestInAncestry(t *testing.T) {
	proc := t.TempDir()
	mk := func(pid, ppid int, comm, env string) {
		dir := filepath.Join(proc, strconv.Itoa(pid))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		files := map[string]string{"environ": env, "comm": comm + "\n", "stat": fmt.Sprintf("%d (%s) S %d %d %d 0", pid, comm, ppid, pid, pid)}
		for name, content := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	mk(40, 30, "git", "PATH=/usr/bin\x00HOME=/h\x00")
	mk(30, 20, "we (ird) name", "PATH=/usr/bin\x00")
	mk(20, 10, "python3", "PATH=/usr/bin\x00CLAUDECODE=1\x00AI_AGENT=claude-code\x00")
	mk(10, 1, "bash", "CLAUDECODE=1\x00")
	a, ok := inAncestry(proc, 40)
	if !ok || a.Pid != 20 || a.Command != "python3" || a.Var.Name != "CLAUDECODE" {
		t.Fatalf("inAncestry = %+v, %v; want pid 20 (python3) with CLAUDECODE", a, ok)
	}
	if a, ok := inAncestry(proc, 30); !ok || a.Pid != 20 {
		t.Fatalf("from 30: %+v, %v", a, ok)
	}
	mk(21, 1, "sh", "PATH=/usr/bin\x00CLAUDECODE=\x00")
	mk(23, 21, "git-exarchos", "")
	if a, ok := inAncestry(proc, 23); ok {
		t.Fatalf("an empty variable is not set, and pid 1 under a session leader ends the walk: %+v", a)
	}
	// Left behind by a shell that exited (reparented to pid 1, leading no session): only what it
	// started with counts. With the agent's variables it is found; emptied, it is not (a person's
	// backgrounded shell, or a CI runner's, looks the same).
	orphan := filepath.Join(proc, "24")
	mk(24, 1, "sh", "PATH=/usr/bin\x00CLAUDECODE=1\x00")
	if err := os.WriteFile(filepath.Join(orphan, "stat"), []byte("24 (sh) S 1 24 9 0"), 0o644); err != nil {
		t.Fatal(err)
	}
	mk(25, 24, "git-exarchos", "")
	if a, ok := inAncestry(proc, 25); !ok || a.Pid != 24 || a.Var.Name != "CLAUDECODE" {
		t.Fatalf("left behind with the agent's variables: %+v, %v", a, ok)
	}
	mk(24, 1, "sh", "PATH=/usr/bin\x00HOME=/root\x00")
	if err := os.WriteFile(filepath.Join(orphan, "stat"), []byte("24 (sh) S 1 24 9 0"), 0o644); err != nil {
		t.Fatal(err)
	}
	if a, ok := inAncestry(proc, 25); ok {
		t.Fatalf("left behind with an ordinary environment is a person's: %+v", a)
	}
	mk(22, 99, "sh", "PATH=/usr/bin\x00")
	if a, ok := inAncestry(proc, 22); ok {
		t.Fatalf("an unreadable ancestor ends the walk: %+v", a)
	}
}
