package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
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
	// the oldest finished ones are forgotten first, except those whose
	// process group still has live members.
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

	reaper *Reaper // records every group started, foreground ones too
	// spawner, when set, is the talaria executable commands start
	// through (see SetSpawner).
	spawner string
}

// SetReaper makes r record the process groups of this session's commands,
// background and foreground, so they die with talaria even on SIGKILL.
func (m *ProcessManager) SetReaper(r *Reaper) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reaper = r
}

// Reaper returns the reaper set with SetReaper, or nil.
func (m *ProcessManager) Reaper() *Reaper {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.reaper
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
	sh      *shellProc // the shell, or its spawner
	started time.Time
	out     *outputRing
	pipe    *os.File      // read end of the output pipe
	release func()        // forgets the group in the reaper
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
func (m *ProcessManager) Start(pol CommandPolicy, command, dir string) (string, error) {
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
	sh, err := newShellProc(context.Background(), pol, m.spawner, command, dir, pw, &syscall.SysProcAttr{Setpgid: true})
	if err != nil {
		pr.Close()
		pw.Close()
		return "", err
	}
	if err := sh.start(); err != nil {
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
		pid:     sh.pid(),
		sh:      sh,
		started: time.Now(),
		out:     newOutputRing(procOutputCap),
		pipe:    pr,
		done:    make(chan struct{}),
		outDone: make(chan struct{}),
		release: m.reaper.trackShell(sh),
	}
	go func() {
		_, _ = io.Copy(p.out, pr)
		close(p.outDone)
	}()
	go func() {
		<-sh.done
		ws, _, _ := sh.result()
		p.mu.Lock()
		p.ended = time.Now()
		p.code = waitCode(ws, true)
		if ws.Signaled() {
			p.signal = ws.Signal().String()
		}
		p.mu.Unlock()
		close(p.done)
	}()
	m.procs[p.id] = p
	m.prune()
	return p.id, nil
}

// prune forgets the oldest finished processes beyond procMaxKept. A
// process whose shell exited while other members of its group still run
// (something it put in the background) is kept, so that kill and Close
// still stop that group. The caller holds m.mu.
func (m *ProcessManager) prune() {
	excess := len(m.procs) - procMaxKept
	if excess <= 0 {
		return
	}
	var old []*bgProcess
	for _, p := range m.procs {
		if p.finished() {
			old = append(old, p)
		}
	}
	sort.Slice(old, func(i, j int) bool { return old[i].started.Before(old[j].started) })
	for _, p := range old {
		if excess == 0 {
			break
		}
		if p.sh.alive() {
			continue
		}
		delete(m.procs, p.id)
		excess--
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
	if p.sh.alive() {
		if !p.finished() {
			p.mu.Lock()
			p.killed = true
			p.mu.Unlock()
		}
		p.sh.signal(syscall.SIGTERM)
		deadline := time.Now().Add(termKillGrace)
		for p.sh.alive() && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		p.sh.signal(syscall.SIGKILL)
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
	if p.release != nil && !p.sh.alive() {
		p.sh.awaitReaped(termKillGrace)
		p.release()
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
