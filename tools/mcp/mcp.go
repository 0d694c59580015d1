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
	// maxNotices bounds the notices kept until Notices is called.
	maxNotices = 50
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
	// Environ is the environment a stdio server inherits, before Env;
	// nil means the process environment without secrets
	// (tools.FilterEnviron).
	Environ []string
	// URL is the endpoint of a streamable HTTP server.
	URL string
	// Reaper, when set, records a stdio server's process group so that it
	// dies with talaria, SIGKILL included.
	Reaper *tools.Reaper
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

// Wait waits until no server is starting any more, or ctx ends, and
// returns why each server that is not connected is not.
func (m *Manager) Wait(ctx context.Context) []error {
	for _, s := range m.servers {
		s.awaitStart(ctx)
	}
	return downErrs(m.servers)
}

// Retry starts again, in the background, the servers that are not
// connected (never were, or died) and not starting, at most once per
// backoff period each.
func (m *Manager) Retry() { m.retry() }

// retry is Retry; it returns the servers it started an attempt for.
func (m *Manager) retry() []*server {
	var started []*server
	for _, s := range m.servers {
		if s.dueForRetry() && s.begin() {
			started = append(started, s)
		}
	}
	return started
}

// Reconnect is Retry, then waits for the attempts it started (bounded by
// their start-up timeouts and ctx) and returns their errors. Call it
// between turns, then register Tools() again: a server's tool list may
// have changed.
func (m *Manager) Reconnect(ctx context.Context) []error {
	started := m.retry()
	for _, s := range started {
		s.awaitStart(ctx)
	}
	return downErrs(started)
}

// downErrs returns why each of servers that is not connected is not.
func downErrs(servers []*server) []error {
	var out []error
	for _, s := range servers {
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
// server that could not start, the first time in a row; a tool not
// offered, and why), and forgets it.
func (m *Manager) Notices() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := m.notices
	m.notices = nil
	return out
}

func (m *Manager) notice(line string) {
	m.log("mcp: " + strings.TrimPrefix(line, "mcp: "))
	m.mu.Lock()
	if len(m.notices) < maxNotices {
		m.notices = append(m.notices, line)
	}
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
