package agentenv

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// Ancestor is an agent variable found in the environment of one of this process's ancestors.
type Ancestor struct {
	Var     Var
	Pid     int
	Command string // its name (/proc/<pid>/comm)
}

// InAncestry walks this process's ancestors (its parent, that one's parent, … up to pid 1) and
// returns the first whose environment has an agent variable set. An environment read there is the
// one the process started with (/proc/<pid>/environ, readable for a process of the same user), so
// a command started by an agent's client is found however its own environment was filtered on
// the way (python or perl keeping all but CLA*, make's unexport, env -i, a shim put first on PATH):
// every process between it and the client started with the client's variables (issue 38 item 8).
// Only the human decision commands call it: never the hook, which reads nothing under /proc. On a
// system without /proc it finds nothing; an ancestor it cannot read (another user's) ends the walk.
//
// A decision left to land after the tool call returned (`nohup sh -c "sleep 9; …" &`) is found the
// same way: its shell, reparented to pid 1, still holds the environment it started with. One whose
// every ancestor started with an emptied environment (`nohup env -i sh -c …`) is not: a process
// left behind by a shell that exited looks the same whether an agent's tool or a person's terminal
// (or a CI runner) left it, and refusing it refused humans (docs/trust.md).
func InAncestry() (Ancestor, bool) {
	return inAncestry("/proc", os.Getpid())
}

// ancestryTop, when set, is where the walk stops, that process not read: a test binary sets it to
// itself (SetAncestryTop), so tests run the same inside an agent's session as in CI. Only test
// code sets it; the installed binary never does.
var ancestryTop int

// SetAncestryTop makes the walk stop at process pid (tests only: see ancestryTop).
func SetAncestryTop(pid int) { ancestryTop = pid }

func inAncestry(proc string, pid int) (Ancestor, bool) {
	self := pid
	for depth := 0; pid > 1 && pid != ancestryTop && depth < 64; depth++ {
		dir := proc + "/" + strconv.Itoa(pid)
		if pid != self { // this process's own environment is the caller's to judge
			env, err := os.ReadFile(dir + "/environ")
			if err != nil {
				return Ancestor{}, false
			}
			if v, ok := Env(strings.Split(string(bytes.TrimRight(env, "\x00")), "\x00")).Detect(); ok {
				return Ancestor{Var: v, Pid: pid, Command: commOf(dir)}, true
			}
		}
		if pid = parentOf(dir); pid <= 0 {
			return Ancestor{}, false
		}
	}
	return Ancestor{}, false
}

func commOf(dir string) string {
	comm, _ := os.ReadFile(dir + "/comm")
	return strings.TrimSpace(string(comm))
}

// parentOf is the parent pid in dir/stat ("pid (comm) state ppid …"; comm may hold spaces and
// parentheses, so the fields are read after the last ')').
func parentOf(dir string) int {
	b, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

// IsProcess reports whether e is this process's own environment (as Process gives it), the only
// one whose ancestry is this process's.
func (e Env) IsProcess() bool {
	own := os.Environ()
	if len(e) != len(own) {
		return false
	}
	for i := range own {
		if e[i] != own[i] {
			return false
		}
	}
	return true
}
