package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Limits of background processes.
const (
	// procOutputCap is how much output is kept per background process.
	procOutputCap = 200 << 10
	// procMaxRunning is how many background processes may run at once.
	procMaxRunning = 16
	// procMaxKept is how many processes, running or not, are remembered;
	// the oldest finished ones are forgotten first.
	procMaxKept = 64
	// procReadCap caps the output one poll or wait returns.
	procReadCap = 50_000
	// procDrainWait is how long a finished process's output may still
	// trickle in from descendants before it is reported.
	procDrainWait = 200 * time.Millisecond
)

// ProcessManager runs the background processes of one session: each in its
// own process group, with its last 200 KB of combined output kept. It is
// safe for concurrent use. Close kills whatever still runs.
type ProcessManager struct {
	mu     sync.Mutex
	procs  map[string]*bgProcess
	nextID int
	closed bool
}

// NewProcessManager returns an empty ProcessManager.
func NewProcessManager() *ProcessManager {
	return &ProcessManager{procs: map[string]*bgProcess{}}
}

// bgProcess is one background process.
type bgProcess struct {
	id      string
	command string
	dir     string
	pid     int
	started time.Time
	out     *outputRing
	pipe    *os.File      // read end of the output pipe
	done    chan struct{} // closed when the shell has exited
	outDone chan struct{} // closed when the output pipe reached EOF

	mu      sync.Mutex
	ended   time.Time
	code    int
	signal  string
	killed  bool
	pollPos int64
}

// ProcessInfo describes a background process for listings and the UI.
type ProcessInfo struct {
	// ID is what the process tool takes as id.
	ID string
	// Command is the shell command line.
	Command string
	// PID is the process id of the shell, also its process group id.
	PID int
	// Running is true until the shell has exited.
	Running bool
	// ExitCode is the exit status once it has exited (128+N after signal N).
	ExitCode int
	// Killed is true when it was stopped by the process tool or Close.
	Killed bool
	// Started and Ended are when it started and exited (zero while running).
	Started, Ended time.Time
}

// Start runs command with bash -c in dir, in its own process group, with
// stdin from /dev/null, and returns its id at once.
func (m *ProcessManager) Start(command, dir string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return "", errors.New("the session is closing; no new background processes")
	}
	running := 0
	for _, p := range m.procs {
		if !p.finished() {
			running++
		}
	}
	if running >= procMaxRunning {
		return "", fmt.Errorf("%d background processes are already running; kill some with process{action:\"kill\"} first", running)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return "", fmt.Errorf("cannot create an output pipe: %v", err)
	}
	cmd := exec.Command(shellPath(), "-c", command)
	cmd.Dir = dir
	cmd.Stdout = pw
	cmd.Stderr = pw
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return "", fmt.Errorf("cannot start shell: %v", err)
	}
	pw.Close()
	m.nextID++
	p := &bgProcess{
		id:      fmt.Sprintf("proc_%d", m.nextID),
		command: command,
		dir:     dir,
		pid:     cmd.Process.Pid,
		started: time.Now(),
		out:     newOutputRing(procOutputCap),
		pipe:    pr,
		done:    make(chan struct{}),
		outDone: make(chan struct{}),
	}
	go func() {
		_, _ = io.Copy(p.out, pr)
		close(p.outDone)
	}()
	go func() {
		_ = cmd.Wait()
		p.mu.Lock()
		p.ended = time.Now()
		p.code = exitCode(cmd.ProcessState)
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			p.signal = ws.Signal().String()
		}
		p.mu.Unlock()
		close(p.done)
	}()
	m.procs[p.id] = p
	m.prune()
	return p.id, nil
}

// prune forgets the oldest finished processes beyond procMaxKept. The
// caller holds m.mu.
func (m *ProcessManager) prune() {
	if len(m.procs) <= procMaxKept {
		return
	}
	var old []*bgProcess
	for _, p := range m.procs {
		if p.finished() {
			old = append(old, p)
		}
	}
	sort.Slice(old, func(i, j int) bool { return old[i].started.Before(old[j].started) })
	for _, p := range old[:min(len(old), len(m.procs)-procMaxKept)] {
		delete(m.procs, p.id)
	}
}

// get returns the process called id, or an error naming the known ids.
func (m *ProcessManager) get(id string) (*bgProcess, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if p, ok := m.procs[strings.TrimSpace(id)]; ok {
		return p, nil
	}
	if len(m.procs) == 0 {
		return nil, fmt.Errorf("no background process %q: none was started in this session", id)
	}
	ids := make([]string, 0, len(m.procs))
	for k := range m.procs {
		ids = append(ids, k)
	}
	sort.Strings(ids)
	return nil, fmt.Errorf("no background process %q; known ids: %s", id, strings.Join(ids, ", "))
}

// List describes every remembered process, oldest first.
func (m *ProcessManager) List() []ProcessInfo {
	m.mu.Lock()
	ps := make([]*bgProcess, 0, len(m.procs))
	for _, p := range m.procs {
		ps = append(ps, p)
	}
	m.mu.Unlock()
	sort.Slice(ps, func(i, j int) bool { return ps[i].started.Before(ps[j].started) })
	out := make([]ProcessInfo, len(ps))
	for i, p := range ps {
		out[i] = p.info()
	}
	return out
}

// Running returns how many background processes are still running.
func (m *ProcessManager) Running() int {
	n := 0
	for _, p := range m.List() {
		if p.Running {
			n++
		}
	}
	return n
}

// Kill stops the process group of id: SIGTERM, then SIGKILL after a
// second for what is left. It returns once the shell has exited.
func (m *ProcessManager) Kill(id string) error {
	p, err := m.get(id)
	if err != nil {
		return err
	}
	p.kill()
	return nil
}

// Close kills every running process group and releases the output pipes.
// No process can be started afterwards. It is safe to call more than once.
func (m *ProcessManager) Close() error {
	m.mu.Lock()
	m.closed = true
	ps := make([]*bgProcess, 0, len(m.procs))
	for _, p := range m.procs {
		ps = append(ps, p)
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range ps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.kill()
		}()
	}
	wg.Wait()
	return nil
}

// finished reports whether the shell has exited.
func (p *bgProcess) finished() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// info snapshots p.
func (p *bgProcess) info() ProcessInfo {
	running := !p.finished()
	p.mu.Lock()
	defer p.mu.Unlock()
	return ProcessInfo{ID: p.id, Command: p.command, PID: p.pid, Running: running,
		ExitCode: p.code, Killed: p.killed, Started: p.started, Ended: p.ended}
}

// kill sends SIGTERM to the group, SIGKILL termKillGrace later to what is
// left, waits for the shell, and closes the output pipe once descendants
// are gone (or after procDrainWait when something outside the group still
// holds it).
func (p *bgProcess) kill() {
	if groupAlive(p.pid) {
		if !p.finished() {
			p.mu.Lock()
			p.killed = true
			p.mu.Unlock()
		}
		_ = syscall.Kill(-p.pid, syscall.SIGTERM)
		deadline := time.Now().Add(termKillGrace)
		for groupAlive(p.pid) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		_ = syscall.Kill(-p.pid, syscall.SIGKILL)
	}
	select {
	case <-p.done:
	case <-time.After(2 * time.Second):
	}
	select {
	case <-p.outDone:
	case <-time.After(procDrainWait):
		p.pipe.Close()
	}
}

// status renders the state line of p.
func (p *bgProcess) status() string {
	i := p.info()
	age := time.Since(i.Started).Round(time.Second)
	if i.Running {
		return fmt.Sprintf("running (pid %d, for %s)", i.PID, age)
	}
	ran := i.Ended.Sub(i.Started).Round(100 * time.Millisecond)
	p.mu.Lock()
	sig := p.signal
	p.mu.Unlock()
	s := fmt.Sprintf("exited with code %d after %s", i.ExitCode, ran)
	if sig != "" {
		s += " (by signal: " + sig + ")"
	}
	if i.Killed {
		s = "killed; " + s
	}
	return s
}

// readNew returns the output since the last poll and advances the poll
// position; at most procReadCap bytes are shown, the latest ones.
func (p *bgProcess) readNew() string {
	p.mu.Lock()
	from := p.pollPos
	p.mu.Unlock()
	data, start, end := p.out.since(from)
	p.mu.Lock()
	p.pollPos = end
	p.mu.Unlock()
	var b strings.Builder
	if start > from {
		fmt.Fprintf(&b, "[… %d earlier bytes were dropped from the buffer …]\n", start-from)
	}
	if len(data) > procReadCap {
		cut := len(data) - procReadCap
		for cut < len(data) && !isRuneStart(data[cut]) {
			cut++
		}
		fmt.Fprintf(&b, "[… %d bytes skipped; use action \"log\" to page through them …]\n", cut)
		data = data[cut:]
	}
	if data == "" {
		b.WriteString("(no new output)")
	} else {
		b.WriteString(strings.TrimRight(data, "\n"))
	}
	return b.String()
}

// isRuneStart reports whether c can start a UTF-8 sequence.
func isRuneStart(c byte) bool { return c&0xC0 != 0x80 }

// waitExit waits until p exits, timeout passes or ctx is done, then for
// the output to drain briefly. It reports whether p exited.
func (p *bgProcess) waitExit(ctx context.Context, timeout time.Duration) (bool, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		return false, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
	select {
	case <-p.outDone:
	case <-time.After(procDrainWait):
	}
	return true, nil
}

// ProcessTool is the process tool: it lists, reads, waits for and kills the
// background processes that terminal started with background=true.
type ProcessTool struct{}

// Name implements Tool.
func (ProcessTool) Name() string { return "process" }

// Description implements Tool.
func (ProcessTool) Description() string {
	return "Manage background processes started by terminal with background=true (servers, watchers, long builds). Actions:\n" +
		"- list: every process of this session with its id, state, exit code and age.\n" +
		"- poll {id}: the output produced since the last poll or wait, and the state. Cheap: use it to check on a process.\n" +
		"- log {id, offset, limit}: the retained output (the last 200 KB) as numbered lines; offset is the first line (1-based, default: the last `limit` lines), limit the number of lines (default 200, max 2000).\n" +
		"- wait {id, timeout}: block until the process exits or `timeout` seconds pass (default 30, max 600), then return the new output and the state.\n" +
		"- kill {id}: stop the process and its children (SIGTERM, then SIGKILL after 1 s).\n" +
		"Processes are killed when the session ends. Do not use sleep in terminal to wait for a background process; use wait."
}

// Schema implements Tool.
func (ProcessTool) Schema() json.RawMessage {
	return json.RawMessage(`{
  "type": "object",
  "properties": {
    "action": {"type": "string", "enum": ["list", "poll", "log", "wait", "kill"], "description": "What to do."},
    "id": {"type": "string", "description": "Process id returned by terminal (e.g. proc_1); required except for list."},
    "timeout": {"type": "integer", "minimum": 1, "maximum": 600, "default": 30, "description": "wait: seconds to wait for the process to exit."},
    "offset": {"type": "integer", "minimum": 1, "description": "log: first line to show (1-based)."},
    "limit": {"type": "integer", "minimum": 1, "maximum": 2000, "default": 200, "description": "log: number of lines to show."}
  },
  "required": ["action"],
  "additionalProperties": false
}`)
}

type processArgs struct {
	Action  string   `json:"action"`
	ID      string   `json:"id"`
	Timeout *flexInt `json:"timeout"`
	Offset  *flexInt `json:"offset"`
	Limit   *flexInt `json:"limit"`
}

// Run implements Tool.
func (ProcessTool) Run(ctx context.Context, env *Env, raw json.RawMessage) Result {
	var a processArgs
	if err := decodeArgs(raw, &a); err != nil {
		return Errorf("process: %v", err)
	}
	if env == nil || env.Processes == nil {
		return Errorf("process: background processes are not available in this session")
	}
	m := env.Processes
	action := strings.ToLower(strings.TrimSpace(a.Action))
	if action == "list" {
		return Result{Output: renderProcessList(m.List())}
	}
	switch action {
	case "poll", "log", "wait", "kill":
	case "":
		return Errorf("process: argument \"action\" is required: list, poll, log, wait or kill")
	default:
		return Errorf("process: unknown action %q; use list, poll, log, wait or kill", a.Action)
	}
	if strings.TrimSpace(a.ID) == "" {
		return Errorf("process: action %q needs the id of the process (see action \"list\")", action)
	}
	p, err := m.get(a.ID)
	if err != nil {
		return Errorf("process: %v", err)
	}
	switch action {
	case "poll":
		return Result{Output: fmt.Sprintf("%s: %s\n%s", p.id, p.status(), p.readNew())}
	case "log":
		return processLog(p, a.Offset, a.Limit)
	case "wait":
		timeout := 30
		if a.Timeout != nil {
			timeout = int(*a.Timeout)
		}
		if timeout < 1 {
			return Errorf("process: timeout must be >= 1 second, got %d", timeout)
		}
		timeout = min(timeout, termMaxTimeout)
		exited, err := p.waitExit(ctx, time.Duration(timeout)*time.Second)
		out := p.readNew()
		switch {
		case err != nil:
			return Result{Output: fmt.Sprintf("%s: wait cancelled; %s\n%s", p.id, p.status(), out), IsError: true}
		case !exited:
			return Result{Output: fmt.Sprintf("%s: still running after waiting %d s; %s\n%s", p.id, timeout, p.status(), out)}
		}
		return Result{Output: fmt.Sprintf("%s: %s\n%s", p.id, p.status(), out)}
	default: // kill
		if p.finished() && !groupAlive(p.pid) {
			return Result{Output: fmt.Sprintf("%s had already finished: %s", p.id, p.status())}
		}
		p.kill()
		return Result{Output: fmt.Sprintf("%s: %s\n%s", p.id, p.status(), p.readNew())}
	}
}

// renderProcessList renders ps as one line each.
func renderProcessList(ps []ProcessInfo) string {
	if len(ps) == 0 {
		return "No background processes in this session. Start one with terminal{command, background: true}."
	}
	var b strings.Builder
	for _, p := range ps {
		state := "running"
		code := "-"
		if !p.Running {
			state, code = "exited", fmt.Sprint(p.ExitCode)
			if p.Killed {
				state = "killed"
			}
		}
		fmt.Fprintf(&b, "%s  %-7s  exit %-3s  started %s ago  pid %d  %s\n",
			p.ID, state, code, time.Since(p.Started).Round(time.Second), p.PID, clip(strings.ReplaceAll(p.Command, "\n", " "), 120))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// processLog renders the retained output of p as numbered lines.
func processLog(p *bgProcess, offset, limit *flexInt) Result {
	n := 200
	if limit != nil {
		n = int(*limit)
	}
	if n < 1 {
		return Errorf("process: limit must be >= 1, got %d", n)
	}
	n = min(n, 2000)
	data, start, _ := p.out.since(0)
	lines := splitLines(data)
	first := max(len(lines)-n, 0)
	if offset != nil {
		if *offset < 1 {
			return Errorf("process: offset must be >= 1, got %d", *offset)
		}
		first = int(*offset) - 1
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", p.id, p.status())
	if start > 0 {
		fmt.Fprintf(&b, "[the first %d bytes of output were dropped; line 1 is the oldest line kept]\n", start)
	}
	if len(lines) == 0 {
		b.WriteString("(no output yet)")
		return Result{Output: b.String()}
	}
	if first >= len(lines) {
		return Errorf("process: offset %d is past the end of the output (%s)", first+1, plural(len(lines), "line"))
	}
	last := min(first+n, len(lines))
	fmt.Fprintf(&b, "lines %d-%d of %d:\n", first+1, last, len(lines))
	for i := first; i < last; i++ {
		fmt.Fprintf(&b, "%d|%s\n", i+1, clip(lines[i], 2000))
	}
	if last < len(lines) {
		fmt.Fprintf(&b, "[%d more lines; next offset %d]", len(lines)-last, last+1)
	}
	return Result{Output: strings.TrimSuffix(b.String(), "\n")}
}
