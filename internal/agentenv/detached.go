package agentenv

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"time"
)

// Detached is the process through which this one was left running on its own: the first of its
// chain (itself, its parent, …) whose parent is pid 1 or the user's service manager (systemd
// --user, the subreaper a desktop session's orphans go to), none of them with a controlling
// terminal.
type Detached struct {
	Pid     int
	Command string    // its name (/proc/<pid>/comm)
	Started time.Time // when it started (/proc/<pid>/stat, against the boot time)
}

// DetachedTop finds the process through which this one runs detached: a decision left to land
// after the tool call that started it returned (`nohup`, `setsid`, a double fork, `at`), once its
// shell exited, has a chain that reaches pid 1 (or a subreaper) with no terminal anywhere, however
// its environment was cleared (issue 38 item 8). So do a service's processes, a CI runner's and
// a command an IDE runs: the caller tells them apart by when that process started (a long-lived
// runner or service started before the agent's session did). Only noted, never refused. On a system
// without /proc, or where the walk meets the tests' ancestry top, it finds nothing.
func DetachedTop() (Detached, bool) {
	return detachedTop("/proc", os.Getpid())
}

func detachedTop(proc string, pid int) (Detached, bool) {
	for depth := 0; pid > 1 && pid != ancestryTop && depth < 64; depth++ {
		dir := proc + "/" + strconv.Itoa(pid)
		st, ok := statOf(dir)
		if !ok || st.tty != 0 {
			return Detached{}, false // attended: a terminal is in the chain
		}
		if st.ppid == 1 || st.ppid > 1 && commOf(proc+"/"+strconv.Itoa(st.ppid)) == "systemd" {
			return Detached{Pid: pid, Command: commOf(dir), Started: bootTime(proc).Add(time.Duration(st.start) * time.Second / userHZ)}, true
		}
		if st.ppid <= 0 {
			return Detached{}, false
		}
		pid = st.ppid
	}
	return Detached{}, false
}

// userHZ is the unit of /proc's start times (USER_HZ, 100 on every Linux).
const userHZ = 100

type procStat struct {
	ppid, tty int
	start     int64
}

// statOf reads dir/stat: "pid (comm) state ppid pgrp session tty_nr … starttime(22nd) …", the
// fields read after the last ')' (comm may hold spaces and parentheses).
func statOf(dir string) (procStat, bool) {
	b, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return procStat{}, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return procStat{}, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	tty, err2 := strconv.Atoi(f[4])
	start, err3 := strconv.ParseInt(f[19], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return procStat{}, false
	}
	return procStat{ppid: ppid, tty: tty, start: start}, true
}

// bootTime is the system's boot time (the btime line of /proc/stat).
func bootTime(proc string) time.Time {
	b, _ := os.ReadFile(proc + "/stat")
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			if s, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
				return time.Unix(s, 0)
			}
		}
	}
	return time.Time{}
}
