package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

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
	action := a.action()
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
		stop := watchOutput(p, Output(ctx))
		exited, err := p.waitExit(ctx, time.Duration(timeout)*time.Second)
		stop()
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

// watchOutput copies to w what p prints from its poll position on, every
// OutputInterval, until the returned stop is called (stop copies what is
// left and returns once the copying has ended). It does not move the poll
// position: the result of the call still reports that output.
func watchOutput(p *bgProcess, w io.Writer) (stop func()) {
	if w == io.Discard {
		return func() {}
	}
	p.mu.Lock()
	off := p.pollPos
	p.mu.Unlock()
	quit, done := make(chan struct{}), make(chan struct{})
	copyNew := func() {
		data, start, end := p.out.since(off)
		if start > off {
			fmt.Fprintf(w, "[… %d bytes not shown live …]\n", start-off)
		}
		if data != "" {
			_, _ = io.WriteString(w, data)
		}
		off = end
	}
	go func() {
		defer close(done)
		tick := time.NewTicker(OutputInterval)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				copyNew()
				return
			case <-tick.C:
				copyNew()
			}
		}
	}()
	return func() {
		close(quit)
		<-done
	}
}
