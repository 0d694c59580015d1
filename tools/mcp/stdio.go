package mcp

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
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"talaria/tools"
)

// Limits of the stdio transport.
const (
	// maxLine is the longest line a stdio server may write to stdout: a
	// longer one ends the connection (it cannot be skipped safely: it is
	// most likely a message too big to take).
	maxLine = 16 << 20
	// strayQuote is how much of a skipped line is logged.
	strayQuote = 200
	// strayFirst is how many stray lines of one connection are logged
	// one by one; after them, stray lines are only counted.
	strayFirst = 20
	// strayEvery is how often, at most, the count of the stray lines not
	// logged is logged; the rest of the count comes when the output ends.
	strayEvery = 10 * time.Second
)

// strayLimiter caps what a server's stray output writes to the log: the
// first strayFirst lines, then one line with the count of those not
// logged every strayEvery at most, and the last count when the output
// ends. A server printing junk forever costs the log a line per
// strayEvery. It is used by the read loop alone.
type strayLimiter struct {
	log        func(string)
	logged     int
	suppressed int64
	since      time.Time // when the count was last logged (or began)
}

// line logs the stray line s or counts it.
func (l *strayLimiter) line(s string) {
	if l.logged < strayFirst {
		l.logged++
		l.log(s)
		if l.logged == strayFirst {
			l.since = time.Now()
			l.log(fmt.Sprintf("[that is %d stray lines: later ones are counted, not logged]", strayFirst))
		}
		return
	}
	l.suppressed++
	if time.Since(l.since) >= strayEvery {
		l.flush()
	}
}

// flush logs the count of the lines not logged since the last count.
func (l *strayLimiter) flush() {
	if l.suppressed == 0 {
		return
	}
	l.log(fmt.Sprintf("[%s more stray lines suppressed]", groupDigits(l.suppressed)))
	l.suppressed, l.since = 0, time.Now()
}

// groupDigits writes n with commas between groups of three digits.
func groupDigits(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// stdioCommand builds the exec.Cmd of a stdio server. It is the one place
// where the command is built: what the process inherits and how it is
// grouped is decided here.
func stdioCommand(c ServerConfig, stderr io.Writer) *exec.Cmd {
	cmd := exec.Command(c.Command, c.Args...)
	cmd.Env = c.Environ
	if cmd.Env == nil {
		cmd.Env = tools.FilterEnviron(os.Environ(), nil, nil)
	}
	cmd.Env = slices.Clip(cmd.Env)
	for k, v := range c.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stderr = stderr
	cmd.WaitDelay = closeGrace
	// Its own process group: Ctrl+C in the terminal does not reach it, and
	// closing it can stop its children too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// stdioTransport runs a command and speaks newline-delimited JSON-RPC over
// its stdin and stdout, like the SDK's CommandTransport, except that a line
// that is not a JSON-RPC message (a banner, a log line printed to stdout by
// mistake) is skipped and logged instead of ending the connection.
type stdioTransport struct {
	cmd *exec.Cmd
	// reaper, when set, records the server's process group so that it
	// dies with talaria, SIGKILL included.
	reaper *tools.Reaper
	// stray receives each skipped line (already trimmed and capped).
	stray func(line string)
	// progress receives the progress notifications, in stream order
	// (before the answer that follows them), instead of the SDK, whose
	// handler may run after the call has returned.
	progress func(*sdk.ProgressNotificationParams)
	// conn is the connection Connect made.
	conn *stdioConn
}

// Connect implements sdk.Transport: it starts the command.
func (t *stdioTransport) Connect(context.Context) (sdk.Connection, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	t.cmd.Stdout = w
	stdin, err := t.cmd.StdinPipe()
	if err != nil {
		r.Close()
		w.Close()
		return nil, err
	}
	if err := t.cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return nil, err
	}
	w.Close() // the child holds its own copy
	c := &stdioConn{
		cmd: t.cmd, stdin: stdin, stdout: r, stray: t.stray, progress: t.progress, untrack: t.reaper.Track(t.cmd.Process.Pid),
		incoming: make(chan jsonrpc.Message), exited: make(chan struct{}), closed: make(chan struct{}), readDone: make(chan struct{}),
		lists: map[jsonrpc.ID]bool{}, taskOnly: map[string]bool{},
	}
	t.conn = c
	go func() {
		// Reap the process as soon as it exits; stdout is an *os.File, so
		// Wait does not wait for our reads.
		_ = t.cmd.Wait()
		close(c.exited)
	}()
	go c.readLoop()
	return c, nil
}

// stdioConn is the connection to one stdio server.
type stdioConn struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *os.File
	stray  func(string)
	// strays caps what stray reaches; made on the first stray line.
	strays *strayLimiter
	// progress, when set, takes the progress notifications.
	progress func(*sdk.ProgressNotificationParams)

	writeMu  sync.Mutex
	incoming chan jsonrpc.Message
	readErr  error // set before incoming is closed
	exited   chan struct{}
	// readDone is closed when the read loop has ended (and logged the
	// last count of stray lines).
	readDone chan struct{}
	// untrack drops the server's process group from the reaper's run file
	// once Close has killed it.
	untrack func()

	closeOnce sync.Once
	closed    chan struct{}

	// The tools/list requests in flight, and the tools their answers
	// mark execution.taskSupport "required" (the SDK's Tool type drops
	// that field, so it is read here, from the raw answer).
	mu       sync.Mutex
	lists    map[jsonrpc.ID]bool
	taskOnly map[string]bool
}

// taskRequired returns the tools the listings so far marked as needing
// task-augmented calls.
func (c *stdioConn) taskRequired() map[string]bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]bool, len(c.taskOnly))
	for k := range c.taskOnly {
		out[k] = true
	}
	return out
}

// noteListing reads execution.taskSupport from the answer to a tools/list
// request.
func (c *stdioConn) noteListing(msg jsonrpc.Message) {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.lists[resp.ID] {
		return
	}
	delete(c.lists, resp.ID)
	var res struct {
		Tools []struct {
			Name      string `json:"name"`
			Execution struct {
				TaskSupport string `json:"taskSupport"`
			} `json:"execution"`
		} `json:"tools"`
	}
	if json.Unmarshal(resp.Result, &res) != nil {
		return
	}
	for _, t := range res.Tools {
		if t.Execution.TaskSupport == "required" {
			c.taskOnly[t.Name] = true
		}
	}
}

// readLoop reads stdout line by line and passes the JSON-RPC messages on.
func (c *stdioConn) readLoop() {
	defer close(c.readDone)
	defer close(c.incoming)
	defer func() {
		if c.strays != nil {
			c.strays.flush()
		}
	}()
	br := bufio.NewReaderSize(c.stdout, 64<<10)
	for {
		line, err := readLine(br)
		if len(bytes.TrimSpace(line)) > 0 {
			for _, msg := range c.decode(line) {
				c.noteListing(msg)
				if c.takeProgress(msg) {
					continue
				}
				select {
				case c.incoming <- msg:
				case <-c.closed:
					return
				}
			}
		}
		if err != nil {
			c.readErr = err
			return
		}
	}
}

// takeProgress hands a progress notification to c.progress and reports
// whether it did.
func (c *stdioConn) takeProgress(msg jsonrpc.Message) bool {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || c.progress == nil || req.ID.IsValid() || req.Method != "notifications/progress" {
		return false
	}
	var p sdk.ProgressNotificationParams
	if json.Unmarshal(req.Params, &p) == nil {
		c.progress(&p)
	}
	return true
}

// readLine reads one line without its newline, failing on a line longer
// than maxLine.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxLine {
			return nil, fmt.Errorf("the server wrote a line of more than %d MiB to stdout", maxLine>>20)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), err
	}
}

// decode turns one line into messages: a JSON-RPC message, or a batch of
// them. Anything else is reported as a stray line and yields nothing.
func (c *stdioConn) decode(line []byte) []jsonrpc.Message {
	trimmed := bytes.TrimSpace(line)
	if trimmed[0] == '[' {
		var raws []json.RawMessage
		if json.Unmarshal(trimmed, &raws) == nil && len(raws) > 0 {
			msgs := make([]jsonrpc.Message, 0, len(raws))
			for _, raw := range raws {
				m, err := jsonrpc.DecodeMessage(raw)
				if err != nil {
					msgs = nil
					break
				}
				msgs = append(msgs, m)
			}
			if msgs != nil {
				return msgs
			}
		}
	} else if trimmed[0] == '{' {
		if m, err := jsonrpc.DecodeMessage(trimmed); err == nil {
			return []jsonrpc.Message{m}
		}
	}
	if c.stray != nil {
		s := strings.ToValidUTF8(string(trimmed), "?")
		if len(s) > strayQuote {
			s = strings.ToValidUTF8(s[:strayQuote], "") + "…"
		}
		if c.strays == nil {
			c.strays = &strayLimiter{log: c.stray}
		}
		c.strays.line(s)
	}
	return nil
}

// Read implements sdk.Connection.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case m, ok := <-c.incoming:
		if !ok {
			if c.readErr != nil && !errors.Is(c.readErr, io.EOF) {
				return nil, c.readErr
			}
			return nil, io.EOF
		}
		return m, nil
	}
}

// Write implements sdk.Connection.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("marshaling message: %w", err)
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "tools/list" && req.ID.IsValid() {
		c.mu.Lock()
		c.lists[req.ID] = true
		c.mu.Unlock()
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err = c.stdin.Write(append(data, '\n'))
	return err
}

// Close implements sdk.Connection: it closes stdin, gives the server
// closeGrace to exit, then SIGTERM and another closeGrace, then kills its
// process group. It returns once the process is reaped.
func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		_ = c.stdin.Close()
		select {
		case <-c.exited:
		case <-time.After(closeGrace):
			_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGTERM)
			select {
			case <-c.exited:
			case <-time.After(closeGrace):
			}
		}
		killGroup(c.cmd)
		<-c.exited
		c.untrack()
		_ = c.stdout.Close()
		select { // the last count of stray lines is logged before Close returns
		case <-c.readDone:
		case <-time.After(closeGrace):
		}
	})
	return nil
}

// SessionID implements sdk.Connection.
func (c *stdioConn) SessionID() string { return "" }
