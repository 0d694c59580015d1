package tools

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// WatchdogEnv names the environment variable that makes a talaria process
// run as the watchdog of its parent: its value is the parent's run file.
const WatchdogEnv = "TALARIA_WATCHDOG_FILE"

// Reaper makes sure no process group talaria started outlives it. Each
// group is recorded, with its leader's start time, in a run file under
// $TALARIA_HOME/run. A watchdog process (talaria itself, started on the
// first group with WatchdogEnv set) waits for its parent to die, however
// it dies, SIGKILL included, and then kills what the run file lists. At
// start, CleanupOrphans does the same for the run files of dead talaria
// processes whose watchdog did not get to it. A nil Reaper records
// nothing. It is safe for concurrent use.
type Reaper struct {
	file     string
	watchdog []string // the watchdog command; nil runs none

	mu      sync.Mutex
	owner   procStamp
	groups  map[int]uint64 // pgid → start time of its leader
	wd      *exec.Cmd
	wdPipe  *os.File // write end of the watchdog's stdin; its EOF is our death
	closed  bool
	lastErr error
}

// procStamp identifies a process across pid reuse: its pid and its start
// time in clock ticks since boot.
type procStamp struct {
	pid   int
	start uint64
}

// NewReaper returns a Reaper whose run file is in dir. watchdog is the
// command that runs RunWatchdog (main passes talaria's own executable);
// nil means no watchdog, so only the next start's CleanupOrphans (and
// Close) end what is left.
func NewReaper(dir string, watchdog []string) *Reaper {
	self := os.Getpid()
	start, _ := procStart(self)
	name := fmt.Sprintf("%d-%d.groups", self, time.Now().UnixNano())
	return &Reaper{file: filepath.Join(dir, name), watchdog: watchdog,
		owner: procStamp{pid: self, start: start}, groups: map[int]uint64{}}
}

// Track records process group pgid, whose leader was just started, and
// returns the function that forgets it once the group is gone.
func (r *Reaper) Track(pgid int) (release func()) {
	if r == nil || pgid <= 0 || !reapSupported {
		return func() {}
	}
	start, err := procStart(pgid)
	if err != nil {
		return func() {} // already gone
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return func() {}
	}
	r.groups[pgid] = start
	r.save()
	r.startWatchdog()
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if s, ok := r.groups[pgid]; ok && s == start {
			delete(r.groups, pgid)
			r.save()
		}
	}
}

// Close kills the groups still recorded, removes the run file and lets
// the watchdog go. It is safe to call more than once.
func (r *Reaper) Close() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return r.lastErr
	}
	r.closed = true
	for pgid, start := range r.groups {
		killGroupTree(pgid, start)
	}
	r.groups = map[int]uint64{}
	if err := os.Remove(r.file); err != nil && !os.IsNotExist(err) {
		r.lastErr = err
	}
	if r.wdPipe != nil {
		r.wdPipe.Close()
		go func(c *exec.Cmd) { _ = c.Wait() }(r.wd)
	}
	return r.lastErr
}

// save writes the run file (under r.mu): the owner line, then one line
// per group. It is replaced whole, so a reader never sees half of it.
func (r *Reaper) save() {
	var b strings.Builder
	fmt.Fprintf(&b, "owner %d %d\n", r.owner.pid, r.owner.start)
	pgids := make([]int, 0, len(r.groups))
	for p := range r.groups {
		pgids = append(pgids, p)
	}
	sort.Ints(pgids)
	for _, p := range pgids {
		fmt.Fprintf(&b, "group %d %d\n", p, r.groups[p])
	}
	if err := os.MkdirAll(filepath.Dir(r.file), 0o700); err != nil {
		r.lastErr = err
		return
	}
	tmp := r.file + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o600); err != nil {
		r.lastErr = err
		return
	}
	if err := os.Rename(tmp, r.file); err != nil {
		r.lastErr = err
	}
}

// startWatchdog starts the watchdog once (under r.mu). Its stdin is a pipe
// only this process holds (close-on-exec keeps it from commands), so the
// watchdog reads EOF exactly when this process is gone.
func (r *Reaper) startWatchdog() {
	if r.wd != nil || len(r.watchdog) == 0 {
		return
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		r.lastErr = err
		return
	}
	cmd := exec.Command(r.watchdog[0], r.watchdog[1:]...)
	// Only what it needs: talaria's environment holds the provider keys,
	// and a command could read the watchdog's /proc/PID/environ.
	cmd.Env = []string{WatchdogEnv + "=" + r.file}
	cmd.Stdin = pr
	cmd.SysProcAttr = watchdogAttr()
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		r.lastErr = err
		return
	}
	pr.Close()
	r.wd, r.wdPipe = cmd, pw
}

// RunWatchdog is the watchdog's main: it waits for EOF on stdin (its
// parent died or closed it) and then kills what the run file lists, and
// removes it. It returns the exit status.
func RunWatchdog(file string, stdin io.Reader) int {
	ignoreTerminalSignals()
	_, _ = io.Copy(io.Discard, stdin)
	if _, err := reapRunFile(file, false); err != nil {
		fmt.Fprintln(os.Stderr, "talaria watchdog:", err)
		return 1
	}
	return 0
}

// CleanupOrphans ends what killed talaria processes left: for each run
// file in dir whose owner is no longer alive, it kills the recorded groups
// (each checked against its leader's start time) and removes the file. It
// returns how many processes it killed.
func CleanupOrphans(dir string) (int, error) {
	if !reapSupported {
		return 0, nil
	}
	names, err := filepath.Glob(filepath.Join(dir, "*.groups"))
	if err != nil {
		return 0, err
	}
	total := 0
	for _, f := range names {
		n, err := reapRunFile(f, true)
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// reapRunFile kills the groups of one run file and removes it; with
// onlyDead it leaves the file of a live owner alone.
func reapRunFile(file string, onlyDead bool) (int, error) {
	owner, groups, err := readRunFile(file)
	if os.IsNotExist(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if onlyDead && procAlive(owner) {
		return 0, nil
	}
	n := 0
	for pgid, start := range groups {
		n += killGroupTree(pgid, start)
	}
	if err := os.Remove(file); err != nil && !os.IsNotExist(err) {
		return n, err
	}
	return n, nil
}

func readRunFile(file string) (procStamp, map[int]uint64, error) {
	f, err := os.Open(file)
	if err != nil {
		return procStamp{}, nil, err
	}
	defer f.Close()
	var owner procStamp
	groups := map[int]uint64{}
	sc := bufio.NewScanner(io.LimitReader(f, 1<<20))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 3 {
			continue
		}
		pid, err1 := strconv.Atoi(fields[1])
		start, err2 := strconv.ParseUint(fields[2], 10, 64)
		if err1 != nil || err2 != nil || pid <= 0 {
			continue
		}
		switch fields[0] {
		case "owner":
			owner = procStamp{pid: pid, start: start}
		case "group":
			groups[pid] = start
		}
	}
	return owner, groups, sc.Err()
}

// reaperKey carries a *Reaper in a context, to the foreground shell.
type reaperKey struct{}

// withReaper returns ctx carrying r (ctx itself when r is nil).
func withReaper(ctx context.Context, r *Reaper) context.Context {
	if r == nil {
		return ctx
	}
	return context.WithValue(ctx, reaperKey{}, r)
}

// trackShell records the process groups of command p with the reaper
// ctx carries, if any, and returns the function that forgets them.
func trackShell(ctx context.Context, p *shellProc) (release func()) {
	r, _ := ctx.Value(reaperKey{}).(*Reaper)
	return r.trackShell(p)
}

// trackShell records the groups of p: the shell's, and through the
// spawner the spawner's, whose descendants are the whole command (the
// spawner is a subreaper), setsid daemons included.
func (r *Reaper) trackShell(p *shellProc) (release func()) {
	shell := r.Track(p.pid())
	if !p.spawned {
		return shell
	}
	spawner := r.Track(p.cmd.Process.Pid)
	return func() { shell(); spawner() }
}

// ProcessStart returns the start time of process pid (clock ticks since
// boot), which tells it apart from a later process given the same pid.
// It fails where /proc is not available.
func ProcessStart(pid int) (uint64, error) { return procStart(pid) }

// ProcessAlive reports whether process pid, started at start, still runs
// (a zombie does not). Without /proc it trusts the pid alone.
func ProcessAlive(pid int, start uint64) bool {
	if !reapSupported {
		return pid > 0 && syscall.Kill(pid, 0) == nil
	}
	return procAlive(procStamp{pid: pid, start: start})
}
