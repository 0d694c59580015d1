package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Defaults and limits of execute_code.
const (
	// DefaultExecTimeout is how long a script may run
	// (tools.execute_code.timeout).
	DefaultExecTimeout = 300 * time.Second
	// DefaultMaxInnerCalls is how many tool calls one script may make
	// (tools.execute_code.max_inner_calls).
	DefaultMaxInnerCalls = 200
	// execReceiptCalls caps the inner calls a receipt names one by one.
	execReceiptCalls = 40
)

// ExecuteCodeTool runs a Python 3 script that calls the session's tools
// through the generated talaria_tools module, over a private channel (a
// socketpair inherited as the script's fd 0, never a path or a port). Each
// inner call goes through Env.CallTool, which runs it exactly as a direct
// call (decoding, approvals, sandbox, guardrails, events); calls run one at
// a time in the script's order.
type ExecuteCodeTool struct {
	// Python is the python3 executable; "" makes the tool refuse to run
	// (AvailableExecuteCode offers it only when python3 is found).
	Python string
	// Registry is what the module is generated from, at each run, so that
	// MCP tools connected later are there too.
	Registry *Registry
	// Timeout bounds one script (DefaultExecTimeout when 0).
	Timeout time.Duration
	// MaxInnerCalls bounds the tool calls of one script
	// (DefaultMaxInnerCalls when 0).
	MaxInnerCalls int
}

// execSupported: a script gets its channel where commands get the
// spawner's control socket.
const execSupported = spawnSupported

// FindPython returns the python3 on PATH, or "" when there is none (or
// this platform cannot give a script its private channel).
func FindPython() string {
	if !execSupported {
		return ""
	}
	p, err := exec.LookPath("python3")
	if err != nil {
		return ""
	}
	return p
}

// Name implements Tool.
func (ExecuteCodeTool) Name() string { return "execute_code" }

// Description implements Tool.
func (ExecuteCodeTool) Description() string {
	return "Run a Python 3 script that calls tools programmatically: `from talaria_tools import *` gives one function per tool " +
		"(read_file, search_files, terminal, write_file, patch, ... and MCP tools by name; not delegate_task, clarify or execute_code). " +
		"Keyword arguments are the tool's JSON arguments, the return value is the tool's result text, and a failed call raises ToolError(text). " +
		"Each call is approved and checked like a direct call and runs one at a time. The script's stdout (and stderr, marked) is the result; print only what you need. " +
		"Use it for many similar calls (read or grep dozens of files, loop over test failures) and to filter or aggregate large outputs before you read them; " +
		"do not use it for a single call: call the tool directly. Runs in the working directory, under the sandbox when one is on, " +
		"with a time limit and a limit on tool calls per script."
}

// Schema implements Tool.
func (ExecuteCodeTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"code":{"type":"string","description":"The Python 3 script. Start with: from talaria_tools import *"}},"required":["code"],"additionalProperties":false}`)
}

// execSummary is the approval summary of a script: its size and its
// first line of code (the dialog shows the whole script from the
// request's Args).
func execSummary(code string) string {
	first := ""
	for _, l := range strings.Split(code, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "from talaria_tools import") && !strings.HasPrefix(l, "import ") {
			first = l
			break
		}
	}
	return fmt.Sprintf("Run a Python script (%s): %s", plural(countLines(code), "line"), clip(first, 200))
}

// executeCodeArgs are execute_code's arguments.
type executeCodeArgs struct {
	Code string `json:"code"`
}

// innerCall is one call a script made, for the receipt.
type innerCall struct {
	name string
	ok   bool
}

// execRun is the state of one running script.
type execRun struct {
	mu       sync.Mutex
	calls    []innerCall
	limitHit bool
}

func (r *execRun) record(name string, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, innerCall{name: name, ok: ok})
}

// receipt names the inner calls that ran.
func (r *execRun) receipt() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.calls) == 0 {
		return "No tool calls ran."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Tool calls that ran (%d):", len(r.calls))
	for i, c := range r.calls {
		if i == execReceiptCalls {
			fmt.Fprintf(&b, " … and %d more", len(r.calls)-i)
			break
		}
		state := "ok"
		if !c.ok {
			state = "failed"
		}
		fmt.Fprintf(&b, " %d. %s (%s);", i+1, c.name, state)
	}
	return strings.TrimSuffix(b.String(), ";")
}

// Run implements Tool.
func (t ExecuteCodeTool) Run(ctx context.Context, env *Env, raw json.RawMessage) Result {
	var a executeCodeArgs
	if err := decodeArgs(raw, &a); err != nil {
		return Errorf("execute_code: %v", err)
	}
	if strings.TrimSpace(a.Code) == "" {
		return Errorf("execute_code: argument \"code\" is required: a Python 3 script")
	}
	if len(a.Code) > execCodeCap {
		return Errorf("execute_code: the script is %d bytes, over the %d-byte limit", len(a.Code), execCodeCap)
	}
	if t.Python == "" || !execSupported {
		return Errorf("execute_code: python3 is not available on this system")
	}
	if ctx.Err() != nil {
		return Errorf("execute_code: cancelled before the script started")
	}
	timeout := t.Timeout
	if timeout <= 0 {
		timeout = DefaultExecTimeout
	}
	maxCalls := t.MaxInnerCalls
	if maxCalls <= 0 {
		maxCalls = DefaultMaxInnerCalls
	}
	var offered []Tool
	if t.Registry != nil {
		offered = t.Registry.All()
	}
	boot, err := json.Marshal(map[string]string{"module": execModule(offered), "code": a.Code})
	if err != nil {
		return Errorf("execute_code: cannot encode the script: %v", err)
	}
	ctx = withSpawner(withReaper(ctx, env.Processes.Reaper()), env.Processes.Spawner())
	return t.run(ctx, env, append(boot, '\n'), timeout, maxCalls)
}

// run starts the script, serves its calls and collects its output, like
// runShell does for a command: own process group, SIGTERM then SIGKILL on
// cancel or timeout, nothing of it left running when it returns.
func (t ExecuteCodeTool) run(ctx context.Context, env *Env, boot []byte, timeout time.Duration, maxCalls int) Result {
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out := newHeadTail(termOutputCap)
	live := Output(ctx)
	var outMu sync.Mutex
	stdout := lockedWriter{mu: &outMu, w: io.MultiWriter(out, live)}
	stderr := &markedWriter{w: lockedWriter{mu: &outMu, w: io.MultiWriter(out, live)}, atStart: true}
	opr, opw, err := os.Pipe()
	if err != nil {
		return Errorf("execute_code: cannot create an output pipe: %v", err)
	}
	defer opr.Close()
	epr, epw, err := os.Pipe()
	if err != nil {
		opw.Close()
		return Errorf("execute_code: cannot create an output pipe: %v", err)
	}
	defer epr.Close()
	ours, theirs, err := controlSocket()
	if err != nil {
		opw.Close()
		epw.Close()
		return Errorf("execute_code: cannot create the tool channel: %v", err)
	}
	command := "exec " + shellQuote(t.Python) + " -u -c " + shellQuote(bootProgram())
	p, err := newShellProc(runCtx, commandPolicy(env), spawnerOf(ctx), command, envCwd(env), opw, foregroundShellAttr())
	if err != nil {
		opw.Close()
		epw.Close()
		ours.Close()
		theirs.Close()
		return Errorf("execute_code: %v", err)
	}
	p.cmd.Stdin, p.cmd.Stderr = theirs, epw
	var termAt atomic.Int64
	var killTimer atomic.Pointer[time.Timer]
	var stopOnce sync.Once
	stop := func() {
		stopOnce.Do(func() {
			termAt.Store(time.Now().UnixNano())
			killTimer.Store(time.AfterFunc(termKillGrace, func() { p.signal(syscall.SIGKILL) }))
			p.signal(syscall.SIGTERM)
		})
	}
	p.cmd.Cancel = func() error { stop(); return nil }
	if !p.spawned {
		p.cmd.WaitDelay = termPipeGrace
	}
	runtime.LockOSThread() // Pdeathsig of a direct child follows this thread
	defer runtime.UnlockOSThread()
	start := time.Now()
	err = p.start()
	opw.Close()
	epw.Close()
	theirs.Close()
	if err != nil {
		ours.Close()
		if ctx.Err() != nil {
			return Errorf("execute_code: cancelled before the script started")
		}
		return Errorf("execute_code: cannot start python3: %v", err)
	}
	outDone := make(chan struct{})
	var copies sync.WaitGroup
	copies.Go(func() { _, _ = io.Copy(stdout, opr) })
	copies.Go(func() { _, _ = io.Copy(stderr, epr) })
	go func() { copies.Wait(); close(outDone) }()
	defer trackShell(ctx, p)()

	st := &execRun{}
	served := make(chan struct{})
	go func() {
		defer close(served)
		t.serve(runCtx, env, ours, boot, maxCalls, st, stop)
	}()
	<-p.done
	killed := termAt.Load() != 0
	var signalled time.Time
	if killed {
		signalled = time.Unix(0, termAt.Load())
	}
	sett := settleGroup(p, signalled, outDone)
	if tm := killTimer.Load(); tm != nil {
		tm.Stop()
	}
	if sett.dropped {
		opr.Close()
		epr.Close()
		<-outDone
	}
	ours.Close() // ends serve once the call in flight, if any, returns
	cancel()     // and that call is cancelled: the script is gone
	<-served
	p.awaitReaped(termPipeGrace)
	ws, known, waitErr := p.result()
	elapsed := time.Since(start).Round(time.Millisecond)
	b := sett.report(out.String(), killed, "script", "")
	code := waitCode(ws, known)
	st.mu.Lock()
	limitHit := st.limitHit
	st.mu.Unlock()
	switch {
	case limitHit:
		fmt.Fprintf(b, "[stopped: the script made more than %d tool calls (tools.execute_code.max_inner_calls); do fewer calls per script or filter with one search_files call]\n%s", maxCalls, st.receipt())
		return Result{Output: b.String(), IsError: true}
	case killed && ctx.Err() != nil:
		fmt.Fprintf(b, "[cancelled after %s: the script and its processes were terminated]\n%s", elapsed, st.receipt())
		return Result{Output: b.String(), IsError: true}
	case killed:
		fmt.Fprintf(b, "[timed out after %s and was killed (tools.execute_code.timeout)]\n%s", timeout, st.receipt())
		return Result{Output: b.String(), IsError: true}
	case !known:
		fmt.Fprintf(b, "exit code: unknown (%v)\n%s", waitErr, st.receipt())
		return Result{Output: b.String(), IsError: true}
	}
	writeExit(b, code, ws)
	if code != 0 {
		b.WriteString("\n" + st.receipt())
	}
	return Result{Output: b.String(), IsError: code != 0}
}

// serve writes the boot line, then answers the script's requests one at a
// time, in order, until the channel closes. Past maxCalls it refuses the
// call and stops the script.
func (t ExecuteCodeTool) serve(ctx context.Context, env *Env, ch *os.File, boot []byte, maxCalls int, st *execRun, stop func()) {
	if _, err := ch.Write(boot); err != nil {
		return
	}
	br := bufio.NewReaderSize(ch, 64<<10)
	for {
		line, err := readExecLine(br, execRequestCap)
		if err != nil {
			if errors.Is(err, errLineTooLong) {
				_, _ = ch.Write(encodeExecReply(Errorf("the request is over the %d-byte limit", execRequestCap)))
				continue
			}
			return
		}
		req, err := parseExecRequest(line)
		var res Result
		switch {
		case err != nil:
			res = Errorf("talaria_tools: %v", err)
		case !ExecutableFromScript(req.Tool):
			res = Errorf("%s cannot be called from execute_code (delegate_task, clarify and execute_code need the model or the user); call it directly", req.Tool)
		default:
			st.mu.Lock()
			over := len(st.calls) >= maxCalls
			if over {
				st.limitHit = true
			}
			st.mu.Unlock()
			if over {
				_, _ = ch.Write(encodeExecReply(Errorf("the script made more than %d tool calls (tools.execute_code.max_inner_calls)", maxCalls)))
				stop()
				return
			}
			res = t.inner(ctx, env, req)
			st.record(req.Tool, !res.IsError)
		}
		if _, err := ch.Write(encodeExecReply(res)); err != nil {
			return
		}
	}
}

// inner runs one call of the script through Env.CallTool.
func (ExecuteCodeTool) inner(ctx context.Context, env *Env, req execRequest) Result {
	if env == nil || env.CallTool == nil {
		return Errorf("%s: tools cannot be called from this script (no tool runner is set up)", req.Tool)
	}
	if ctx.Err() != nil {
		return Errorf("%s was not run: the script was stopped", req.Tool)
	}
	return env.CallTool(ctx, req.Tool, string(req.Args))
}

// errLineTooLong is readExecLine's error for a line over its cap (the line is
// skipped).
var errLineTooLong = errors.New("line too long")

// readExecLine reads one line (without its newline) of at most limit bytes; a
// longer line is read to its end and dropped with errLineTooLong.
func readExecLine(br *bufio.Reader, limit int) ([]byte, error) {
	var buf []byte
	tooLong := false
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > limit+1 {
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		switch {
		case err == nil:
			if tooLong {
				return nil, errLineTooLong
			}
			return buf[:len(buf)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return nil, err
		}
	}
}

// shellQuote quotes s for sh as one word.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// lockedWriter serialises writes to w.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// markedWriter starts every line it writes to w with "[stderr] ".
type markedWriter struct {
	w       io.Writer
	atStart bool
}

func (m *markedWriter) Write(p []byte) (int, error) {
	n := len(p)
	var b strings.Builder
	for len(p) > 0 {
		if m.atStart {
			b.WriteString("[stderr] ")
			m.atStart = false
		}
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			b.Write(p)
			break
		}
		b.Write(p[:i+1])
		p = p[i+1:]
		m.atStart = true
	}
	_, err := io.WriteString(m.w, b.String())
	return n, err
}
