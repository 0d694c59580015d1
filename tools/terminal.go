package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// Limits of terminal.
const (
	termDefaultTimeout = 180
	termMaxTimeout     = 600
	termOutputCap      = 50_000
	// termKillGrace is how long a process group gets between SIGTERM and
	// SIGKILL.
	termKillGrace = time.Second
	// termPipeGrace is how long output is still collected after the shell
	// exits, or after SIGTERM, before the pipe is closed on processes that
	// still hold it. It is a little longer than termKillGrace so that the
	// SIGKILL lands first.
	termPipeGrace = termKillGrace + 150*time.Millisecond
)

// TerminalTool is the terminal tool: it runs one shell command in the
// foreground and returns its combined output and exit code.
type TerminalTool struct{}

// Name implements Tool.
func (TerminalTool) Name() string { return "terminal" }

// Description implements Tool.
func (TerminalTool) Description() string {
	return "Run a shell command with bash -c in the working directory (or `workdir`) and return its combined stdout and stderr and its exit code. " +
		"Each call is a fresh shell: cd and environment changes do not persist, so use `workdir` or `cd dir && cmd`. " +
		"stdin is empty: never run interactive commands (editors, pagers, prompts); pass flags such as -y or --no-pager instead. " +
		"`timeout` is in seconds (default 180, max 600); on timeout the whole process group is killed. " +
		"Output over 50,000 characters keeps its head and tail. Prefer read_file, search_files, write_file and patch over cat, grep, find, sed and echo redirection. " +
		"For servers, watchers and other long-running commands set background=true: the call returns a process id at once (timeout does not apply) and you use the process tool to poll its output, wait for it or kill it; " +
		"never append `&` to background a command yourself: whatever a foreground command leaves running is stopped when it exits."
}

// Schema implements Tool.
func (TerminalTool) Schema() json.RawMessage {
	return json.RawMessage(`{
  "type": "object",
  "properties": {
    "command": {"type": "string", "description": "The shell command to run (bash syntax)."},
    "timeout": {"type": "integer", "minimum": 1, "maximum": 600, "default": 180, "description": "Seconds before the command is killed."},
    "workdir": {"type": "string", "description": "Directory to run in (absolute, or relative to the working directory). Defaults to the working directory."},
    "background": {"type": "boolean", "default": false, "description": "Start the command in the background and return a process id at once; manage it with the process tool."}
  },
  "required": ["command"],
  "additionalProperties": false
}`)
}

type terminalArgs struct {
	Command    string   `json:"command"`
	Timeout    *flexInt `json:"timeout"`
	Workdir    string   `json:"workdir"`
	Background flexBool `json:"background"`
}

// Run implements Tool.
func (TerminalTool) Run(ctx context.Context, env *Env, raw json.RawMessage) Result {
	var a terminalArgs
	if err := decodeArgs(raw, &a); err != nil {
		return Errorf("terminal: %v", err)
	}
	if strings.TrimSpace(a.Command) == "" {
		return Errorf("terminal: argument \"command\" is required")
	}
	timeout := termDefaultTimeout
	if a.Timeout != nil {
		timeout = int(*a.Timeout)
	}
	if timeout < 1 {
		return Errorf("terminal: timeout must be >= 1 second, got %d", timeout)
	}
	note := ""
	if timeout > termMaxTimeout {
		note = fmt.Sprintf("[timeout capped at %d s]\n", termMaxTimeout)
		timeout = termMaxTimeout
	}
	dir := envCwd(env)
	if strings.TrimSpace(a.Workdir) != "" {
		d, err := resolveArgPath(env, a.Workdir)
		if err != nil {
			return Errorf("terminal: workdir: %v", err)
		}
		if info, err := os.Stat(d); err != nil || !info.IsDir() {
			return Errorf("terminal: workdir %s is not an existing directory", a.Workdir)
		}
		dir = d
	}
	if ctx.Err() != nil {
		return Errorf("terminal: cancelled before the command started")
	}
	if a.Background {
		return startBackground(env, a.Command, dir)
	}
	ctx = withSpawner(withReaper(ctx, env.Processes.Reaper()), env.Processes.Spawner())
	res := runShell(ctx, commandPolicy(env), a.Command, dir, time.Duration(timeout)*time.Second)
	res = sandboxFollowUp(ctx, env, a.Command, dir, time.Duration(timeout)*time.Second, res)
	res.Output = note + res.Output
	return res
}

// startBackground starts command as a background process of the session.
func startBackground(env *Env, command, dir string) Result {
	if env == nil || env.Processes == nil {
		return Errorf("terminal: background processes are not available in this session; run the command in the foreground with a timeout instead")
	}
	id, err := env.Processes.Start(env.Commands, command, dir)
	if err != nil {
		return Errorf("terminal: %v", err)
	}
	return Result{Output: fmt.Sprintf("Started background process %s: %s\n"+
		"Use process{action:\"poll\", id:%q} to read its new output, process{action:\"wait\", id:%q, timeout:N} to wait for it to exit, process{action:\"kill\", id:%q} to stop it.",
		id, clip(command, 200), id, id, id)}
}

// shellPath returns bash, or sh when bash is not installed.
func shellPath() string {
	if p, err := exec.LookPath("bash"); err == nil {
		return p
	}
	return "/bin/sh"
}

// runShell runs command in its own process group with stdin from
// /dev/null and stdout and stderr combined, through the spawner when one
// is set (see shellProc). When ctx is done or timeout passes, the
// command gets SIGTERM and, termKillGrace later, SIGKILL. When the shell
// exits with processes of the command still running (commands it put in
// the background with &, setsid daemons the spawner adopted), they get
// the same treatment at once, so that nothing a foreground call started
// outlives it; long-running processes belong in terminal's background
// mode. Either way runShell returns about termPipeGrace after the shell's
// exit or the SIGTERM at the latest, even when something outside the
// command keeps the output pipe open.
func runShell(ctx context.Context, pol CommandPolicy, command, dir string, timeout time.Duration) Result {
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out := newHeadTail(termOutputCap)
	// An output pipe of our own, rather than one exec makes, lets Wait
	// return as soon as the shell exits, whoever still holds the pipe.
	pr, pw, err := os.Pipe()
	if err != nil {
		return Errorf("terminal: cannot create an output pipe: %v", err)
	}
	defer pr.Close()
	p, err := newShellProc(runCtx, pol, spawnerOf(ctx), command, dir, pw, foregroundShellAttr())
	if err != nil {
		pw.Close()
		return Errorf("terminal: %v", err)
	}
	var termAt atomic.Int64 // unix nanos of the SIGTERM, 0 if none
	var killTimer atomic.Pointer[time.Timer]
	p.cmd.Cancel = func() error {
		termAt.Store(time.Now().UnixNano())
		killTimer.Store(time.AfterFunc(termKillGrace, func() { p.signal(syscall.SIGKILL) }))
		p.signal(syscall.SIGTERM)
		return nil
	}
	if !p.spawned {
		p.cmd.WaitDelay = termPipeGrace
	}
	// Pdeathsig (Linux) of a shell started directly fires when the
	// thread that forked it exits, not the process; keeping this
	// goroutine on its thread until the shell is done keeps another
	// goroutine from ending that thread.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := time.Now()
	if err := p.start(); err != nil {
		pw.Close()
		if ctx.Err() != nil {
			return Errorf("terminal: cancelled before the command started")
		}
		return Errorf("terminal: cannot start shell: %v", err)
	}
	pw.Close()
	outDone := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.MultiWriter(out, Output(ctx)), pr) // live output too
		close(outDone)
	}()
	defer trackShell(ctx, p)()
	<-p.done
	killed := termAt.Load() != 0
	var signalled time.Time
	if killed {
		signalled = time.Unix(0, termAt.Load())
	}
	st := settleGroup(p, signalled, outDone)
	if tm := killTimer.Load(); tm != nil {
		tm.Stop()
	}
	if st.dropped {
		pr.Close() // ends the copy
		<-outDone
	}
	p.awaitReaped(termPipeGrace)
	ws, known, waitErr := p.result()
	elapsed := time.Since(start).Round(time.Millisecond)
	b := st.report(out.String(), killed, "command", " For servers and watchers use terminal with background=true")
	if st.dropped && !killed {
		b.WriteString("[note: a process outside the command kept the output open after the command exited; later output was dropped]\n")
	}
	code := waitCode(ws, known)
	switch {
	case killed && ctx.Err() != nil:
		fmt.Fprintf(b, "exit code: %d\n[cancelled after %s: the process group was terminated]", code, elapsed)
		return Result{Output: b.String(), IsError: true}
	case killed:
		fmt.Fprintf(b, "exit code: %d\n[timed out after %s and was killed; rerun with a larger timeout (max %d) or a narrower command]", code, timeout, termMaxTimeout)
		return Result{Output: b.String(), IsError: true}
	case !known:
		fmt.Fprintf(b, "exit code: unknown (%v)", waitErr)
		return Result{Output: b.String(), IsError: true}
	}
	writeExit(b, code, ws)
	return Result{Output: b.String(), IsError: code != 0}
}

// settled is what settleGroup found.
type settled struct {
	// leftover: the shell exited by itself with processes of the command
	// still running.
	leftover bool
	// dropped: the output pipe was still open when settleGroup gave up.
	dropped bool
	// survivors: processes of the command were still alive then.
	survivors bool
}

// report starts the result of a run that settled: its output (or "(no
// output)"), a blank line, and, when it ended by itself, the note on the
// processes it left (leftoverNote).
func (st settled) report(output string, killed bool, what, advice string) *strings.Builder {
	var b strings.Builder
	if output == "" {
		output = "(no output)"
	}
	b.WriteString(strings.TrimRight(output, "\n"))
	b.WriteString("\n\n")
	if !killed {
		b.WriteString(st.leftoverNote(what, advice))
	}
	return &b
}

// writeExit appends "exit code: N" and the signal that ended the process.
func writeExit(b *strings.Builder, code int, ws syscall.WaitStatus) {
	fmt.Fprintf(b, "exit code: %d", code)
	if ws.Signaled() {
		fmt.Fprintf(b, " (killed by signal %v)", ws.Signal())
	}
}

// leftoverNote is the result's note on processes what (the command, the
// script) left running when it exited by itself: that they were stopped,
// or, when some survived, that stopping them failed; "" when none were
// left. advice follows the first sentence.
func (st settled) leftoverNote(what, advice string) string {
	switch {
	case !st.leftover:
		return ""
	case st.survivors:
		return "[note: the " + what + " left background processes running; stopping them when it exited failed, some may still run." + advice + "]\n"
	}
	return "[note: the " + what + " left background processes running; they were stopped when it exited." + advice + "]\n"
}

// settleGroup ends what is left of command p once its shell has exited.
// signalled is when the command got SIGTERM (zero when the shell exited
// by itself: then what is left gets SIGTERM now, and leftover is true,
// except when all that is left is a sandbox's PID namespace ending by
// itself (see leftBehind): that is waited for like the rest, unsignalled
// and not a leftover).
// Processes alive termKillGrace after the SIGTERM get SIGKILL. It returns
// once the command is gone and the output pipe reached EOF (outDone), or
// termPipeGrace after the SIGTERM (or the exit) at the latest, with
// dropped true when the pipe is still open then and survivors true when
// processes of the command still live.
func settleGroup(p *shellProc, signalled time.Time, outDone <-chan struct{}) settled {
	var st settled
	now := time.Now()
	if signalled.IsZero() && p.alive() {
		signalled = now
		if p.leftBehind() {
			st.leftover = true
			p.signal(syscall.SIGTERM)
		}
	}
	from := signalled
	if from.IsZero() {
		from = now
	}
	killAt, giveUp := from.Add(termKillGrace), from.Add(termPipeGrace)
	sentKill := false
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		pipeClosed := false
		select {
		case <-outDone:
			pipeClosed = true
		default:
		}
		alive := !signalled.IsZero() && p.alive()
		if pipeClosed && !alive {
			return st
		}
		now := time.Now()
		if alive && !sentKill && !now.Before(killAt) {
			p.signal(syscall.SIGKILL)
			sentKill = true
		}
		if !now.Before(giveUp) {
			if alive {
				p.signal(syscall.SIGKILL)
				st.survivors = !p.goneWithin(termPipeGrace - termKillGrace)
			}
			st.dropped = !pipeClosed
			return st
		}
		select {
		case <-outDone:
		case <-tick.C:
		}
	}
}

// goneWithin waits up to d for the command's processes to be gone and
// reports whether they are.
func (p *shellProc) goneWithin(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for p.alive() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

// waitCode returns the shell convention exit code of ws: 128+N for a
// process killed by signal N, -1 when unknown.
func waitCode(ws syscall.WaitStatus, known bool) int {
	switch {
	case !known:
		return -1
	case ws.Signaled():
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

// exitCode returns the shell convention exit code: 128+N for a process
// killed by signal N.
func exitCode(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// groupAlive reports whether process group pgid still has a member that is
// not a zombie. Zombies (exited but not yet reaped by their parent) count
// as gone.
func groupAlive(pgid int) bool {
	if err := syscall.Kill(-pgid, 0); err != nil {
		return false
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return true // no /proc: trust kill(2)
	}
	for _, e := range entries {
		pid := e.Name()
		if pid[0] < '0' || pid[0] > '9' {
			continue
		}
		data, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil {
			continue
		}
		// Fields after the parenthesised command: state ppid pgrp ...
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) >= 3 && f[2] == fmt.Sprint(pgid) && f[0] != "Z" {
			return true
		}
	}
	return false
}
