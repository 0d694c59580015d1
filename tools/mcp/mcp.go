// Package mcp connects talaria to Model Context Protocol servers (stdio
// commands and streamable HTTP endpoints) and offers their tools to the
// model as tools.Tool values named SERVER__TOOL, plus list_mcp_resources
// and read_mcp_resource for their resources.
package mcp

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"talaria/tools"
)

// Defaults of a Manager.
const (
	// DefaultStartupTimeout bounds starting one server: connecting,
	// initializing and listing its tools (mcp_servers.NAME.startup_timeout).
	DefaultStartupTimeout = 30 * time.Second
	// DefaultToolTimeout bounds one tool call (mcp_servers.NAME.tool_timeout).
	// An interrupt still ends a call at once.
	DefaultToolTimeout = 10 * time.Minute
	// closeGrace is how long a stdio server gets to exit after its stdin
	// is closed, and again after SIGTERM.
	closeGrace = 2 * time.Second
	// retryMin and retryMax bound the wait between reconnection attempts
	// to a server that keeps failing.
	retryMin = 5 * time.Second
	retryMax = 5 * time.Minute
	// probeTimeout bounds the ping that checks a server after a failed
	// call.
	probeTimeout = 3 * time.Second
	// stderrKeep is how much of a stdio server's stderr is kept for error
	// messages.
	stderrKeep = 2 << 10
	// instructionsCap bounds the instructions taken from one server.
	instructionsCap = 8 << 10
)

// ServerConfig is one entry of mcp_servers in config.yaml: either a stdio
// server (Command, Args, Env) or a streamable HTTP one (URL).
type ServerConfig struct {
	// Name is the key in mcp_servers; tools are offered as Name__TOOL.
	Name string
	// Command is the executable of a stdio server.
	Command string
	// Args are its arguments.
	Args []string
	// Env holds variables added to the inherited environment.
	Env map[string]string
	// URL is the endpoint of a streamable HTTP server.
	URL string
	// StartupTimeout bounds connecting and listing the tools; 0 means
	// DefaultStartupTimeout.
	StartupTimeout time.Duration
	// ToolTimeout bounds one tool call; 0 means DefaultToolTimeout.
	ToolTimeout time.Duration
}

// validate checks that c names exactly one transport.
func (c ServerConfig) validate() error {
	switch {
	case strings.TrimSpace(c.Name) == "":
		return errors.New("an MCP server has no name")
	case strings.Contains(c.Name, "__"):
		return fmt.Errorf("MCP server %q: the name must not contain \"__\" (it separates server and tool names)", c.Name)
	case c.Command == "" && c.URL == "":
		return fmt.Errorf("MCP server %q: set either command (stdio) or url (streamable HTTP)", c.Name)
	case c.Command != "" && c.URL != "":
		return fmt.Errorf("MCP server %q: set command or url, not both", c.Name)
	case c.StartupTimeout < 0 || c.ToolTimeout < 0:
		return fmt.Errorf("MCP server %q: timeouts must be positive", c.Name)
	}
	return nil
}

func (c ServerConfig) startupTimeout() time.Duration {
	if c.StartupTimeout > 0 {
		return c.StartupTimeout
	}
	return DefaultStartupTimeout
}

func (c ServerConfig) toolTimeout() time.Duration {
	if c.ToolTimeout > 0 {
		return c.ToolTimeout
	}
	return DefaultToolTimeout
}

// Options configure a Manager.
type Options struct {
	// Log receives diagnostic lines: stray lines on a stdio server's
	// stdout, tools not offered. Nil drops them.
	Log func(line string)
}

// Manager holds the connections to the configured MCP servers. Servers
// start in the background; it is safe for concurrent use.
type Manager struct {
	servers []*server // fixed at Start
	log     func(string)
	// ctx ends at Close, stopping start-ups in flight.
	ctx    context.Context
	cancel context.CancelFunc

	progressSeq atomic.Int64
	mu          sync.Mutex
	progress    map[string]*progressWatch // by progressToken
	notices     []string                  // not yet taken by Notices
}

// ServerStatus describes one server for the UI.
type ServerStatus struct {
	// Name is the server's name.
	Name string
	// Starting is true while a start-up attempt runs.
	Starting bool
	// Connected is true while its session is up.
	Connected bool
	// Tools is how many tools it offers.
	Tools int
	// Err is why it is not connected, if it is not.
	Err error
}

// Start validates cfgs and starts connecting to every valid server in the
// background; it returns at once. The errors are configuration errors,
// each naming its server. The Manager is never nil.
func Start(cfgs []ServerConfig, opts Options) (*Manager, []error) {
	ctx, cancel := context.WithCancel(context.Background())
	m := &Manager{log: opts.Log, ctx: ctx, cancel: cancel, progress: map[string]*progressWatch{}}
	if m.log == nil {
		m.log = func(string) {}
	}
	var errs []error
	seen := map[string]bool{}
	for _, c := range cfgs {
		if err := c.validate(); err != nil {
			errs = append(errs, err)
			continue
		}
		if seen[c.Name] {
			errs = append(errs, fmt.Errorf("MCP server %q is configured twice", c.Name))
			continue
		}
		seen[c.Name] = true
		m.servers = append(m.servers, &server{m: m, cfg: c})
	}
	for _, s := range m.servers {
		s.begin()
	}
	return m, errs
}

// Connect starts every server of cfgs and waits until each is connected
// or has failed (each within its start-up timeout, or until ctx ends). A
// server that fails does not stop the others: its error, naming it, is
// returned and Reconnect tries it again later.
func Connect(ctx context.Context, cfgs []ServerConfig) (*Manager, []error) {
	m, errs := Start(cfgs, Options{})
	return m, append(errs, m.Wait(ctx)...)
}

// Wait waits until no server is starting any more, or ctx ends, and
// returns why each server that is not connected is not.
func (m *Manager) Wait(ctx context.Context) []error {
	for _, s := range m.servers {
		if ch := s.startingCh(); ch != nil {
			select {
			case <-ch:
			case <-ctx.Done():
			}
		}
	}
	var out []error
	for _, s := range m.servers {
		s.mu.Lock()
		if s.session == nil && s.err != nil {
			out = append(out, s.err)
		}
		s.mu.Unlock()
	}
	return out
}

// Retry starts again, in the background, the servers that are not
// connected (never were, or died) and not starting, at most once per
// backoff period each.
func (m *Manager) Retry() {
	for _, s := range m.servers {
		if s.dueForRetry() {
			s.begin()
		}
	}
}

// Reconnect is Retry, then waits for the attempts it started (bounded by
// their start-up timeouts and ctx) and returns their errors. Call it
// between turns, then register Tools() again: a server's tool list may
// have changed.
func (m *Manager) Reconnect(ctx context.Context) []error {
	var started []*server
	for _, s := range m.servers {
		if s.dueForRetry() && s.begin() {
			started = append(started, s)
		}
	}
	var out []error
	for _, s := range started {
		if ch := s.startingCh(); ch != nil {
			select {
			case <-ch:
			case <-ctx.Done():
			}
		}
		s.mu.Lock()
		if s.session == nil && s.err != nil {
			out = append(out, s.err)
		}
		s.mu.Unlock()
	}
	return out
}

// Starting returns the names of the servers still starting, in config
// order.
func (m *Manager) Starting() []string {
	var out []string
	for _, s := range m.servers {
		if s.startingCh() != nil {
			out = append(out, s.cfg.Name)
		}
	}
	return out
}

// Tools returns the tools of every server, server by server in config
// order and by name within a server, named SERVER__TOOL. The tools of a
// server that died stay listed: calling them returns an error result until
// it is reconnected. Tools that need task-augmented calls are left out
// (see Notices).
func (m *Manager) Tools() []tools.Tool {
	var out []tools.Tool
	used := map[string]bool{}
	for _, s := range m.servers {
		for _, t := range s.toolList() {
			name := toolName(s.cfg.Name, t.Name, used)
			out = append(out, newTool(s, name, t))
		}
	}
	return out
}

// Instructions returns the instructions each connected server gave at
// initialization, by server name; servers without any are absent.
func (m *Manager) Instructions() map[string]string {
	out := map[string]string{}
	for _, s := range m.servers {
		s.mu.Lock()
		if s.session != nil && s.instructions != "" {
			out[s.cfg.Name] = s.instructions
		}
		s.mu.Unlock()
	}
	return out
}

// Notices returns what the user should be told since the last call (a
// tool not offered, and why), and forgets it.
func (m *Manager) Notices() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := m.notices
	m.notices = nil
	return out
}

func (m *Manager) notice(line string) {
	m.log("mcp: " + line)
	m.mu.Lock()
	m.notices = append(m.notices, line)
	m.mu.Unlock()
}

// Status describes every server, in config order.
func (m *Manager) Status() []ServerStatus {
	out := make([]ServerStatus, len(m.servers))
	for i, s := range m.servers {
		s.mu.Lock()
		out[i] = ServerStatus{Name: s.cfg.Name, Starting: s.starting != nil, Connected: s.session != nil, Tools: len(s.tools), Err: s.err}
		s.mu.Unlock()
	}
	return out
}

// server returns the server called name, or nil.
func (m *Manager) server(name string) *server {
	for _, s := range m.servers {
		if s.cfg.Name == name {
			return s
		}
	}
	return nil
}

// Close stops start-ups in flight, closes every session and stops the
// stdio servers.
func (m *Manager) Close() error {
	m.cancel()
	var wg sync.WaitGroup
	for _, s := range m.servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.close()
		}()
	}
	wg.Wait()
	return nil
}

// progressWatch is the progress callback of one call; after stop it is
// never called again.
type progressWatch struct {
	mu      sync.Mutex
	fn      func(string)
	stopped bool
}

// watchProgress registers fn for the progress notifications of a new
// token; after stop returns, fn is not called any more.
func (m *Manager) watchProgress(fn func(string)) (token string, stop func()) {
	token = fmt.Sprintf("talaria-%d", m.progressSeq.Add(1))
	w := &progressWatch{fn: fn}
	m.mu.Lock()
	m.progress[token] = w
	m.mu.Unlock()
	return token, func() {
		m.mu.Lock()
		delete(m.progress, token)
		m.mu.Unlock()
		w.mu.Lock()
		w.stopped = true
		w.mu.Unlock()
	}
}

// onProgress routes a notifications/progress to the call that asked for
// it; unknown tokens (a call already finished) are dropped.
func (m *Manager) onProgress(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
	if req.Params != nil {
		m.routeProgress(req.Params)
	}
}

// routeProgress passes one progress notification to its call's callback.
func (m *Manager) routeProgress(p *sdk.ProgressNotificationParams) {
	m.mu.Lock()
	w := m.progress[fmt.Sprint(p.ProgressToken)]
	m.mu.Unlock()
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.stopped {
		w.fn(progressText(p))
	}
}

// progressText renders one progress notification: its message and
// "progress/total" (or the progress alone when the total is unknown).
func progressText(p *sdk.ProgressNotificationParams) string {
	var count string
	if p.Total > 0 {
		count = fmt.Sprintf("%g/%g", p.Progress, p.Total)
	} else {
		count = fmt.Sprintf("%g", p.Progress)
	}
	msg := strings.TrimSpace(strings.ToValidUTF8(p.Message, "?"))
	if msg == "" {
		return count
	}
	return msg + " (" + count + ")"
}

// toolName builds SERVER__TOOL from characters providers accept
// ([A-Za-z0-9_-], at most 64), made unique against used.
func toolName(serverName, tool string, used map[string]bool) string {
	clean := func(s string) string {
		var b strings.Builder
		for _, r := range s {
			if r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
				b.WriteRune(r)
			} else {
				b.WriteByte('_')
			}
		}
		return b.String()
	}
	name := clean(serverName) + "__" + clean(tool)
	if len(name) > 64 {
		name = name[:64]
	}
	base := name
	for i := 2; used[name]; i++ {
		suffix := fmt.Sprintf("_%d", i)
		name = base[:min(len(base), 64-len(suffix))] + suffix
	}
	used[name] = true
	return name
}

// server is the connection to one MCP server.
type server struct {
	m   *Manager
	cfg ServerConfig

	mu           sync.Mutex
	session      *sdk.ClientSession
	starting     chan struct{} // non-nil while an attempt runs; closed at its end
	stderr       *tailBuffer   // stdio servers only
	done         chan struct{} // closed when the session has ended
	tools        []*sdk.Tool
	instructions string
	err          error
	failures     int
	retryAt      time.Time
	closed       bool
}

// begin starts a connection attempt in the background unless one runs or
// the session is up; it reports whether it started one.
func (s *server) begin() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.session != nil || s.starting != nil {
		return false
	}
	ch := make(chan struct{})
	s.starting = ch
	go func() {
		_ = s.connect()
		s.mu.Lock()
		s.starting = nil
		s.mu.Unlock()
		close(ch)
	}()
	return true
}

// startingCh returns the channel closed when the running attempt ends, or
// nil when none runs.
func (s *server) startingCh() chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.starting
}

// alive reports whether the session is up.
func (s *server) alive() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.session != nil
}

// dueForRetry reports whether the server is down, not starting, and the
// backoff after its last failure is over.
func (s *server) dueForRetry() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.session == nil && s.starting == nil && !s.closed && !time.Now().Before(s.retryAt)
}

// toolList returns the tools listed at the last connection.
func (s *server) toolList() []*sdk.Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tools
}

// connect opens a session and lists the tools, within the start-up
// timeout.
func (s *server) connect() error {
	timeout := s.cfg.startupTimeout()
	ctx, cancel := context.WithTimeout(s.m.ctx, timeout)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "talaria", Version: "1"}, &sdk.ClientOptions{
		Capabilities:                &sdk.ClientCapabilities{},
		ProgressNotificationHandler: s.m.onProgress,
	})
	var transport sdk.Transport
	var stdio *stdioTransport
	var stderr *tailBuffer
	if s.cfg.Command != "" {
		stderr = &tailBuffer{max: stderrKeep}
		stdio = &stdioTransport{cmd: stdioCommand(s.cfg, stderr), progress: s.m.routeProgress, stray: func(line string) {
			s.m.log(fmt.Sprintf("mcp: server %q: skipped a line on stdout that is not JSON-RPC: %s", s.cfg.Name, line))
		}}
		transport = stdio
	} else {
		transport = &sdk.StreamableClientTransport{Endpoint: s.cfg.URL, MaxRetries: 2}
	}
	session, err := client.Connect(ctx, transport, nil)
	var list []*sdk.Tool
	if err == nil {
		list, err = listTools(ctx, session)
		if err != nil {
			session.Close()
		}
	}
	if err != nil {
		if stdio != nil && stdio.cmd.Process != nil {
			killGroup(stdio.cmd)
		}
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("not ready within its startup_timeout of %s (%v)", timeout, err)
		}
		err = s.describe("cannot connect", err, stderr)
		s.mu.Lock()
		s.err = err
		s.failures++
		s.retryAt = time.Now().Add(min(retryMin<<min(s.failures-1, 10), retryMax))
		s.mu.Unlock()
		return err
	}
	if stdio != nil && stdio.conn != nil {
		list = s.dropTaskOnly(list, stdio.conn.taskRequired())
	}
	instructions := ""
	if r := session.InitializeResult(); r != nil {
		instructions = strings.TrimSpace(strings.ToValidUTF8(r.Instructions, ""))
		if len(instructions) > instructionsCap {
			instructions = strings.ToValidUTF8(instructions[:instructionsCap], "") + "…"
		}
	}
	done := make(chan struct{})
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		_ = session.Close()
		return errors.New("closed")
	}
	s.session, s.stderr, s.done, s.tools, s.instructions = session, stderr, done, list, instructions
	s.err, s.failures, s.retryAt = nil, 0, time.Time{}
	s.mu.Unlock()
	go s.watch(session, stderr, done)
	return nil
}

// dropTaskOnly leaves out the tools that the server says need
// task-augmented calls (execution.taskSupport "required"), which talaria
// does not make, with a notice for each.
func (s *server) dropTaskOnly(list []*sdk.Tool, required map[string]bool) []*sdk.Tool {
	if len(required) == 0 {
		return list
	}
	out := list[:0:0]
	for _, t := range list {
		if required[t.Name] {
			s.m.notice(fmt.Sprintf("MCP server %q: tool %q is not offered: it requires task-augmented calls, which talaria does not support", s.cfg.Name, t.Name))
			continue
		}
		out = append(out, t)
	}
	return out
}

// markTaskOnly removes a tool the server refused to run without task
// augmentation (seen at call time, e.g. over HTTP, where the listing is
// not inspected), so that it is not offered again.
func (s *server) markTaskOnly(name string) {
	s.mu.Lock()
	list := s.tools
	s.mu.Unlock()
	kept := s.dropTaskOnly(list, map[string]bool{name: true})
	s.mu.Lock()
	s.tools = kept
	s.mu.Unlock()
}

// watch marks the server dead when session ends; closing the session
// stops and reaps a stdio server's process.
func (s *server) watch(session *sdk.ClientSession, stderr *tailBuffer, done chan struct{}) {
	_ = session.Wait()
	s.mu.Lock()
	if s.session == session {
		s.session = nil
		s.err = s.describe("the server closed the connection", nil, stderr)
	}
	s.mu.Unlock()
	close(done)
	_ = session.Close()
}

// describe builds an error naming the server, with the tail of its stderr.
func (s *server) describe(what string, err error, stderr *tailBuffer) error {
	msg := fmt.Sprintf("MCP server %q: %s", s.cfg.Name, what)
	if err != nil {
		msg += ": " + err.Error()
	}
	if stderr != nil {
		if tail := strings.TrimSpace(stderr.String()); tail != "" {
			msg += "; its stderr ends with: " + tail
		}
	}
	return errors.New(msg)
}

// live returns the current session and its done channel, or why there is
// none.
func (s *server) live() (*sdk.ClientSession, chan struct{}, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.session == nil {
		err := s.err
		switch {
		case s.starting != nil:
			err = fmt.Errorf("MCP server %q is still starting", s.cfg.Name)
		case err == nil:
			err = fmt.Errorf("MCP server %q is not connected", s.cfg.Name)
		}
		return nil, nil, err
	}
	return s.session, s.done, nil
}

// probe pings the server briefly.
func (s *server) probe(session *sdk.ClientSession) error {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	return session.Ping(ctx, nil)
}

// drop ends session after a transport failure, so that Reconnect tries
// again; watch then marks the server dead.
func (s *server) drop(session *sdk.ClientSession, cause error) {
	s.mu.Lock()
	if s.session == session {
		s.session = nil
		s.err = s.describe("the connection failed", cause, s.stderr)
	}
	s.mu.Unlock()
	_ = session.Close()
}

// close ends the session and stops a stdio server; an attempt in flight
// ends through the Manager's context and closes what it opened.
func (s *server) close() {
	s.mu.Lock()
	session, starting := s.session, s.starting
	s.session = nil
	s.closed = true
	s.err = fmt.Errorf("MCP server %q was closed", s.cfg.Name)
	s.mu.Unlock()
	if session != nil {
		_ = session.Close()
	}
	if starting != nil {
		<-starting
	}
}

// listTools lists every tool of the session, page by page, sorted by name.
func listTools(ctx context.Context, session *sdk.ClientSession) ([]*sdk.Tool, error) {
	var out []*sdk.Tool
	if session.InitializeResult() != nil && session.InitializeResult().Capabilities != nil &&
		session.InitializeResult().Capabilities.Tools == nil {
		return nil, nil // the server offers no tools
	}
	for t, err := range session.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("listing tools: %w", err)
		}
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// killGroup kills what is left of a stdio server's process group.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// tailBuffer is an io.Writer keeping the last max bytes written.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

// Write implements io.Writer.
func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

// String returns the kept bytes as valid UTF-8.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.ToValidUTF8(string(t.b), "")
}
