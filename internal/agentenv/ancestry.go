package agentenv

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// Ancestor is an agent variable found in the environment of one of this process's ancestors, or
// (Orphan) an ancestor left running after what started it had exited.
type Ancestor struct {
	Var     Var
	Pid     int
	Command string // its name (/proc/<pid>/comm)
	// Orphan: the process was left behind by the command that started it (nohup, `&` from a tool's
	// shell that then returned): its parent is now pid 1 although it leads no session, which a
	// terminal's shell and a daemon do. Its environment may have been emptied before it was.
	Orphan bool
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
// It also finds a decision left running in the background by a tool call that has returned (a
// delayed `nohup … &`): that process, or one of its ancestors, was reparented to pid 1 without
// leading a session of its own (Ancestor.Orphan). A process that made itself a session leader
// first (setsid) and emptied its environment is not found: see docs/trust.md.
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
		ppid, sid := statOf(dir)
		// sid 0: the session lies outside this pid namespace (a container's or sandbox's entry
		// process), which says nothing of how the process was left.
		if ppid == 1 && sid != pid && sid != 0 {
			return Ancestor{Pid: pid, Command: commOf(dir), Orphan: true}, true
		}
		if pid = ppid; pid <= 0 {
			return Ancestor{}, false
		}
	}
	return Ancestor{}, false
}

func commOf(dir string) string {
	comm, _ := os.ReadFile(dir + "/comm")
	return strings.TrimSpace(string(comm))
}

// statOf is the parent pid and session id in dir/stat ("pid (comm) state ppid pgrp session …";
// comm may hold spaces and parentheses, so the fields are read after the last ')').
func statOf(dir string) (ppid, sid int) {
	b, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return 0, 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 4 {
		return 0, 0
	}
	ppid, _ = strconv.Atoi(f[1])
	sid, _ = strconv.Atoi(f[3])
	return ppid, sid
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
