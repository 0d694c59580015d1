package tools

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// spawnSupported: the spawner needs Linux (subreaper, /proc).
const spawnSupported = true

// Limits of the spawner's teardown when talaria is gone.
const (
	// spawnKillPasses bounds how many times the spawner looks again for
	// processes forked while it was killing the tree.
	spawnKillPasses = 50
	// spawnKillPause is the pause between two passes.
	spawnKillPause = 10 * time.Millisecond
)

// controlSocket returns the two ends of a spawner's control socket:
// talaria's (pollable, so that no thread blocks on it) and the spawner's
// (blocking), both close-on-exec.
func controlSocket() (ours, theirs *os.File, err error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	_ = syscall.SetNonblock(fds[0], true)
	return os.NewFile(uintptr(fds[0]), "spawner control"), os.NewFile(uintptr(fds[1]), "spawner control"), nil
}

// commandTree lists the live processes of a command: the members of
// process group pgid and the descendants of root, root itself left out.
func commandTree(root, pgid int) []procInfo {
	procs := allProcs()
	children := map[int][]procInfo{}
	var out []procInfo
	seen := map[int]bool{root: true}
	for _, p := range procs {
		children[p.ppid] = append(children[p.ppid], p)
		if p.pgrp == pgid && !p.zombie && !seen[p.pid] {
			seen[p.pid] = true
			out = append(out, p)
		}
	}
	queue := []int{root}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, c := range children[pid] {
			if c.zombie {
				continue
			}
			if !seen[c.pid] {
				seen[c.pid] = true
				out = append(out, c)
			}
			queue = append(queue, c.pid)
		}
	}
	return out
}

// SpawnMain is the spawner's main (talaria run with SpawnerArg): args are
// "--", the program's path and its argv. It makes itself a child
// subreaper, starts the program in a new process group as its child
// (killed with SIGKILL if the spawner dies), and reports on fd 3, the
// control socket to talaria, "pid N" and later "exit W" (the raw wait
// status). Signals sent to the spawner alone are relayed to the
// program's group. It reaps whatever the program leaves behind and exits,
// with the program's status, once it has no child left. When the control
// socket reaches EOF (talaria is gone, however it died) it kills the
// program's group and every descendant first.
func SpawnMain(args []string) int {
	// The program's Pdeathsig follows the thread that forks it: this one,
	// kept until the end.
	runtime.LockOSThread()
	if len(args) < 3 || args[0] != "--" {
		fmt.Fprintln(os.Stderr, "talaria spawner: usage: "+SpawnerArg+" -- PATH ARGV...")
		return 2
	}
	path, argv := args[1], args[2:]
	syscall.CloseOnExec(3)
	ctl := os.NewFile(3, "control")
	if ctl == nil {
		fmt.Fprintln(os.Stderr, "talaria spawner: no control socket on fd 3")
		return 2
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fmt.Fprintf(ctl, "error cannot become a child subreaper: %v\n", err)
		return 127
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2)
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: []uintptr{0, 1, 2},
		Sys:   &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		fmt.Fprintf(ctl, "error cannot start %s: %v\n", path, err)
		return 127
	}
	fmt.Fprintf(ctl, "pid %d\n", pid)
	go func() {
		for s := range sigs {
			_ = syscall.Kill(-pid, s.(syscall.Signal))
		}
	}()
	go func() {
		_, _ = io.Copy(io.Discard, ctl) // EOF: talaria is gone
		killTree(pid)
	}()
	var shell syscall.WaitStatus
	for {
		var ws syscall.WaitStatus
		wpid, err := syscall.Wait4(-1, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil { // ECHILD: nothing is left
			break
		}
		if wpid == pid {
			shell = ws
			fmt.Fprintf(ctl, "exit %d\n", uint32(ws))
		}
	}
	signal.Stop(sigs)
	if shell.Signaled() {
		dieBySignal(shell.Signal())
		return 128 + int(shell.Signal())
	}
	return shell.ExitStatus()
}

// killTree SIGKILLs process group pgid and every descendant of this
// process, again until none is left (bounded).
func killTree(pgid int) {
	self := os.Getpid()
	for range spawnKillPasses {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		left := commandTree(self, pgid)
		if len(left) == 0 {
			return
		}
		for _, p := range left {
			_ = syscall.Kill(p.pid, syscall.SIGKILL)
		}
		time.Sleep(spawnKillPause)
	}
}

// dieBySignal ends this process by sig with the default action, so that
// its parent sees the same "killed by signal" as the program's. It
// returns only if sig does not end a process by default.
func dieBySignal(sig syscall.Signal) {
	signal.Reset(sig)
	// The Go runtime's handler would turn some signals into a crash with
	// exit status 2: put back the kernel's default action (a zeroed
	// struct sigaction is SIG_DFL) and unblock the signal.
	var act [4]uint64
	_, _, _ = unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&act)), 0, 8, 0, 0)
	var set unix.Sigset_t
	set.Val[0] = 1 << (uint(sig) - 1)
	_ = unix.PthreadSigmask(unix.SIG_UNBLOCK, &set, nil)
	_ = unix.Tgkill(os.Getpid(), unix.Gettid(), sig)
	time.Sleep(100 * time.Millisecond) // delivery is asynchronous for some signals
}

// ProtectProcess makes this process non-dumpable (PR_SET_DUMPABLE 0): a
// process of the same uid that is not root cannot read its
// /proc/PID/environ, memory or file descriptors, nor ptrace it, and it
// leaves no core dump. Root (CAP_SYS_PTRACE) still can. Programs it
// executes are dumpable again. Call it first in main.
func ProtectProcess() error {
	return unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
}
