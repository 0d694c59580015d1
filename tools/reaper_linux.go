package tools

import (
	"errors"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
)

// reapSupported: /proc gives start times and process groups.
const reapSupported = true

// procInfo is what the reaper reads of one process from /proc.
type procInfo struct {
	pid, ppid, pgrp int
	start           uint64
	zombie          bool
}

// readProc reads /proc/PID/stat.
func readProc(pid int) (procInfo, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procInfo{}, err
	}
	return parseStat(pid, string(data))
}

// parseStat parses a /proc/PID/stat line: the fields after the command
// name, which is in parentheses and may hold anything, are state, ppid,
// pgrp, ... and, 20th, the start time.
func parseStat(pid int, s string) (procInfo, error) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return procInfo{}, errors.New("malformed stat")
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return procInfo{}, errors.New("short stat")
	}
	ppid, err1 := strconv.Atoi(f[1])
	pgrp, err2 := strconv.Atoi(f[2])
	start, err3 := strconv.ParseUint(f[19], 10, 64)
	if err := errors.Join(err1, err2, err3); err != nil {
		return procInfo{}, err
	}
	return procInfo{pid: pid, ppid: ppid, pgrp: pgrp, start: start, zombie: f[0] == "Z" || f[0] == "X"}, nil
}

// procStart is the start time of pid, in clock ticks since boot.
func procStart(pid int) (uint64, error) {
	p, err := readProc(pid)
	return p.start, err
}

// procAlive reports whether the process p names still runs: same pid,
// same start time, not a zombie.
func procAlive(p procStamp) bool {
	if p.pid <= 0 {
		return false
	}
	info, err := readProc(p.pid)
	return err == nil && !info.zombie && info.start == p.start
}

// allProcs reads every process of /proc.
func allProcs() []procInfo {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	out := make([]procInfo, 0, len(entries))
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, err := readProc(pid); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// killGroupTree SIGKILLs process group pgid, whose leader started at
// start, and every descendant of its members, also those that left the
// group (setsid, setpgid) while their parent lives. A group whose id now
// belongs to a later process is left alone, and so is any process older
// than the leader. It returns how many processes it signalled.
func killGroupTree(pgid int, start uint64) int {
	procs := allProcs()
	targets := map[int]bool{}
	for _, p := range procs {
		if p.pid == pgid && p.start != start {
			return 0 // the id was reused: not our group
		}
	}
	for _, p := range procs {
		if p.pgrp == pgid && p.start >= start && !p.zombie {
			targets[p.pid] = true
		}
	}
	for grew := true; grew; {
		grew = false
		for _, p := range procs {
			if !targets[p.pid] && targets[p.ppid] && p.start >= start && !p.zombie && p.pid != os.Getpid() {
				targets[p.pid] = true
				grew = true
			}
		}
	}
	delete(targets, os.Getpid())
	if len(targets) > 0 {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
	for pid := range targets {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	return len(targets)
}

// watchdogAttr puts the watchdog in its own process group, out of reach
// of the terminal's Ctrl+C.
func watchdogAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// ignoreTerminalSignals keeps the watchdog alive through a hangup or
// Ctrl+C meant for talaria: it ends on its stdin's EOF.
func ignoreTerminalSignals() {
	signal.Ignore(syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
}
