package tools

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// SpawnerArg is the hidden first argument with which talaria runs as the
// spawner of one command (see SpawnMain).
const SpawnerArg = "__talaria_spawn"

// Limits of the spawner.
const (
	// spawnStartWait bounds how long starting a command waits for the
	// spawner to report the shell's pid.
	spawnStartWait = 10 * time.Second
	// spawnLineCap caps what is read of one line of the control socket.
	spawnLineCap = 256
)

// shellProc is one running shell command: started directly, or through
// the spawner (SpawnMain), a re-executed talaria that never held the
// secrets of talaria's environment. Through the spawner, the shell is the
// spawner's child, so a command that reads /proc/$PPID/environ reads the
// spawner's environment, which is the command's own. The spawner is a
// child subreaper: whatever the command leaves behind, setsid daemons
// included, stays its descendant, so the command's whole tree can be found
// and stopped from its pid.
type shellProc struct {
	cmd *exec.Cmd // what is started: the spawner, or the shell itself
	// spawned is true when cmd is the spawner.
	spawned bool
	// spawnedPid is the shell's pid through the spawner, once it has
	// reported it (see pid).
	spawnedPid atomic.Int64
	// pending is a signal asked for before the spawner reported the
	// shell: it is sent once the shell is known.
	pending atomic.Int32

	done   chan struct{} // closed once the shell's status is known
	reaped chan struct{} // closed once cmd has been waited for

	mu      sync.Mutex
	status  syscall.WaitStatus
	known   bool  // status is set
	waitErr error // from waiting for cmd
	endOnce sync.Once
}

// newShellProc prepares the command that runs the shell script command
// in dir under pol. With spawner (the path of a talaria executable), the
// command runs under the spawner; attr is the shell's process attributes
// without one (the spawner gets its own group and puts the shell in a
// new one). ctx kills it as exec.CommandContext does; the caller may set
// cmd.Cancel before start.
func newShellProc(ctx context.Context, pol CommandPolicy, spawner, command, dir string, out *os.File, attr *syscall.SysProcAttr) (*shellProc, error) {
	cmd, err := pol.shellCommand(ctx, command, dir)
	if err != nil {
		return nil, err
	}
	p := &shellProc{done: make(chan struct{}), reaped: make(chan struct{})}
	if spawner != "" && spawnSupported {
		args := append([]string{SpawnerArg, "--", cmd.Path}, cmd.Args...)
		sp := exec.CommandContext(ctx, spawner, args...)
		sp.Dir, sp.Env = cmd.Dir, cmd.Env
		// Its own process group: signals to the command's group do not
		// reach it, so it relays only what is sent to it alone. No
		// Pdeathsig: when talaria dies the spawner reads EOF on its
		// control socket and stops the command's whole tree, which it
		// could not do if the kernel killed it first.
		sp.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd, p.spawned = sp, true
	} else {
		cmd.SysProcAttr = attr
	}
	cmd.Stdout, cmd.Stderr = out, out
	p.cmd = cmd
	return p, nil
}

// start starts the command and returns once the shell runs (its pid is
// known), or with the reason it could not start.
func (p *shellProc) start() error {
	if !p.spawned {
		if err := p.cmd.Start(); err != nil {
			return err
		}
		go func() {
			err := p.cmd.Wait()
			p.end(p.cmd.ProcessState, err)
			close(p.reaped)
		}()
		return nil
	}
	ours, theirs, err := controlSocket()
	if err != nil {
		return fmt.Errorf("cannot create the spawner's control socket: %v", err)
	}
	p.cmd.ExtraFiles = []*os.File{theirs} // fd 3 of the spawner
	err = p.cmd.Start()
	theirs.Close()
	if err != nil {
		ours.Close()
		return err
	}
	started := make(chan int, 1)
	failed := make(chan string, 1)
	readerDone := make(chan struct{})
	go func() {
		// The socket stays open while the spawner lives: its EOF on the
		// other end tells the spawner that talaria is gone.
		defer close(readerDone)
		defer ours.Close()
		p.readControl(ours, started, failed)
		_, _ = io.Copy(io.Discard, ours) // to the spawner's exit
	}()
	go func() {
		err := p.cmd.Wait()
		select {
		case <-readerDone:
		case <-time.After(time.Second): // nothing else holds the socket: this does not happen
		}
		p.end(p.cmd.ProcessState, err)
		close(p.reaped)
	}()
	t := time.NewTimer(spawnStartWait)
	defer t.Stop()
	select {
	case pid := <-started:
		p.spawnedPid.Store(int64(pid))
		if sig := p.pending.Load(); sig != 0 {
			p.signal(syscall.Signal(sig))
		}
		return nil
	case msg := <-failed:
		<-p.reaped
		return errors.New(msg)
	case <-p.reaped:
		return fmt.Errorf("the command's spawner exited before starting it (%v)", p.cmd.ProcessState)
	case <-t.C:
		_ = p.cmd.Process.Kill()
		<-p.reaped
		return fmt.Errorf("the command's spawner did not start it within %s", spawnStartWait)
	}
}

// readControl reads the spawner's lines: "pid N" once the shell runs,
// "exit W" (its raw wait status) once it has exited, "error TEXT" when it
// could not start it.
func (p *shellProc) readControl(r io.Reader, started chan<- int, failed chan<- string) {
	br := bufio.NewReaderSize(r, spawnLineCap)
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return
		}
		kind, val, _ := strings.Cut(strings.TrimSpace(string(line)), " ")
		switch kind {
		case "pid":
			if n, err := strconv.Atoi(val); err == nil && n > 0 {
				started <- n
			}
		case "exit":
			if n, err := strconv.ParseUint(val, 10, 32); err == nil {
				p.setStatus(syscall.WaitStatus(n))
			}
		case "error":
			failed <- val
		}
	}
}

// setStatus records the shell's wait status and closes done.
func (p *shellProc) setStatus(ws syscall.WaitStatus) {
	p.mu.Lock()
	if !p.known {
		p.status, p.known = ws, true
	}
	p.mu.Unlock()
	p.endOnce.Do(func() { close(p.done) })
}

// end records how cmd ended; its status stands for the shell's when the
// spawner did not report one (it was killed).
func (p *shellProc) end(ps *os.ProcessState, err error) {
	p.mu.Lock()
	p.waitErr = err
	if !p.known && ps != nil {
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok {
			p.status, p.known = ws, true
		}
	}
	p.mu.Unlock()
	p.endOnce.Do(func() { close(p.done) })
}

// result returns the shell's wait status, whether it is known, and the
// error of waiting for cmd (once reaped).
func (p *shellProc) result() (syscall.WaitStatus, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.status, p.known, p.waitErr
}

// pid returns the shell's pid, also its process group id; 0 until it is
// known.
func (p *shellProc) pid() int {
	if p.spawned {
		return int(p.spawnedPid.Load())
	}
	if p.cmd.Process == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

// alive reports whether anything of the command still runs: a member of
// the shell's process group, or (through the spawner) a descendant of the
// spawner. Zombies do not count.
func (p *shellProc) alive() bool {
	pid := p.pid()
	if pid <= 0 {
		return false
	}
	if !p.spawned {
		return groupAlive(pid)
	}
	return len(commandTree(p.cmd.Process.Pid, pid)) > 0
}

// signal sends sig to the shell's process group and, through the
// spawner, to every other descendant of the spawner (those that left the
// group), each process once. The spawner itself is left out: it exits on
// its own once the command's tree is gone.
func (p *shellProc) signal(sig syscall.Signal) {
	if p.spawned {
		p.pending.Store(int32(sig))
	}
	pid := p.pid()
	if pid <= 0 {
		// Not started, or the spawner has not reported the shell yet
		// (it may not even catch signals yet): start sends it then.
		return
	}
	_ = syscall.Kill(-pid, sig)
	if !p.spawned {
		return
	}
	for _, q := range commandTree(p.cmd.Process.Pid, pid) {
		if q.pgrp != pid {
			_ = syscall.Kill(q.pid, sig)
		}
	}
}

// awaitReaped waits up to d for cmd to be reaped; then kills it and
// waits.
func (p *shellProc) awaitReaped(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.reaped:
		return
	case <-t.C:
	}
	_ = p.cmd.Process.Kill()
	<-p.reaped
}

// SetSpawner makes this session's commands, foreground and background,
// start through the spawner: exe is a talaria executable whose main hands
// SpawnerArg to SpawnMain. "" (the default) starts them directly.
func (m *ProcessManager) SetSpawner(exe string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.spawner = exe
}

// Spawner returns the executable set with SetSpawner, or "".
func (m *ProcessManager) Spawner() string {
	if m == nil {
		return ""
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.spawner
}

// spawnerKey carries the spawner's executable in a context, to the
// foreground shell.
type spawnerKey struct{}

// withSpawner returns ctx carrying the spawner exe (ctx itself for "").
func withSpawner(ctx context.Context, exe string) context.Context {
	if exe == "" {
		return ctx
	}
	return context.WithValue(ctx, spawnerKey{}, exe)
}

// spawnerOf returns the spawner ctx carries, or "".
func spawnerOf(ctx context.Context) string {
	exe, _ := ctx.Value(spawnerKey{}).(string)
	return exe
}
