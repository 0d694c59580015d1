package tools

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// leftBehind reports whether processes of command p, whose shell has
// exited by itself, still run: the live members of its process group
// and (through the spawner) the spawner's live descendants, leaving out
// the init process of a PID namespace the command runs in (the sandbox's
// bubblewrap: the first process talaria started exits once the command
// has, and the namespace's init ends a moment later, taking everything
// in the namespace with it) and processes gone by the time they are
// looked at. The init's own live children do count: they are what the
// command left.
func (p *shellProc) leftBehind() bool {
	pid := p.pid()
	if pid <= 0 {
		return false
	}
	procs := allProcs()
	var members []procInfo
	if p.spawned {
		members = commandTree(p.cmd.Process.Pid, pid)
	} else {
		for _, q := range procs {
			if q.pgrp == pid && !q.zombie {
				members = append(members, q)
			}
		}
	}
	for _, q := range members {
		init, there := namespaceInit(q.pid)
		switch {
		case !there:
			continue
		case !init:
			return true
		}
		for _, c := range procs {
			if c.ppid == q.pid && !c.zombie {
				if _, there := namespaceInit(c.pid); there {
					return true
				}
			}
		}
	}
	return false
}

// namespaceInit reports whether pid is the first process (pid 1) of a
// PID namespace below ours (the last field of its NSpid line is 1 and it
// has more than one), and whether pid is still there (its status can be
// read and it is not a zombie).
func namespaceInit(pid int) (init, there bool) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return false, false
	}
	defer f.Close()
	there = true
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if st, ok := strings.CutPrefix(line, "State:"); ok {
			if s := strings.TrimSpace(st); strings.HasPrefix(s, "Z") || strings.HasPrefix(s, "X") {
				return false, false
			}
		}
		if rest, ok := strings.CutPrefix(line, "NSpid:"); ok {
			ids := strings.Fields(rest)
			return len(ids) > 1 && ids[len(ids)-1] == "1", there
		}
	}
	if sc.Err() != nil {
		return false, false // it went while being read
	}
	return false, there
}
