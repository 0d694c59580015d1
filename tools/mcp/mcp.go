// Package mcp connects talaria to Model Context Protocol servers (stdio
// commands and streamable HTTP endpoints) and offers their tools to the
// model as tools.Tool values named SERVER__TOOL.
package mcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"talaria/tools"
)

// Defaults of a Manager.
const (
	// DefaultCallTimeout bounds one tool call.
	DefaultCallTimeout = 2 * time.Minute
	// connectTimeout bounds connecting to one server and listing its
	// tools, when ctx has no earlier deadline.
	connectTimeout = 30 * time.Second
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
	}
	return nil
}

// Manager holds the connections to the configured MCP servers. It is safe
// for concurrent use.
type Manager struct {
	mu          sync.Mutex
	servers     []*server
	callTimeout time.Duration
}

// ServerStatus describes one server for the UI.
type ServerStatus struct {
	// Name is the server's name.
	Name string
	// Connected is true while its session is up.
	Connected bool
	// Tools is how many tools it offers.
	Tools int
	// Err is why it is not connected, if it is not.
	Err error
}

// Connect connects to every server of cfgs concurrently and lists their
// tools. A server that fails does not stop the others: its error, naming
// it, is returned and Reconnect tries it again later. The Manager is never
// nil.
func Connect(ctx context.Context, cfgs []ServerConfig) (*Manager, []error) {
	m := &Manager{callTimeout: DefaultCallTimeout}
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
		m.servers = append(m.servers, &server{cfg: c})
	}
	return m, append(errs, m.connectAll(ctx, false)...)
}

// SetCallTimeout changes the bound on one tool call (DefaultCallTimeout
// unless set).
func (m *Manager) SetCallTimeout(d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if d > 0 {
		m.callTimeout = d
	}
}

// timeout returns the bound on one tool call.
func (m *Manager) timeout() time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.callTimeout
}

// connectAll connects the servers that are not connected, concurrently.
// With retry, a server whose last attempt failed is skipped until its
// backoff has passed.
func (m *Manager) connectAll(ctx context.Context, retry bool) []error {
	m.mu.Lock()
	servers := append([]*server(nil), m.servers...)
	m.mu.Unlock()
	errs := make([]error, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		if s.alive() || retry && !s.dueForRetry() {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.connect(ctx)
		}()
	}
	wg.Wait()
	var out []error
	for _, err := range errs {
		if err != nil {
			out = append(out, err)
		}
	}
	return out
}

// Reconnect tries again the servers that are not connected (never were,
// or died), at most once per backoff period each, and returns their errors.
// Call it between turns, then register Tools() again: a server's tool list
// may have changed.
func (m *Manager) Reconnect(ctx context.Context) []error {
	return m.connectAll(ctx, true)
}

// Tools returns the tools of every server, server by server in config
// order and by name within a server, named SERVER__TOOL. The tools of a
// server that died stay listed: calling them returns an error result until
// it is reconnected.
func (m *Manager) Tools() []tools.Tool {
	m.mu.Lock()
	servers := append([]*server(nil), m.servers...)
	m.mu.Unlock()
	var out []tools.Tool
	used := map[string]bool{}
	for _, s := range servers {
		for _, t := range s.toolList() {
			name := toolName(s.cfg.Name, t.Name, used)
			out = append(out, newTool(m, s, name, t))
		}
	}
	return out
}

// Status describes every server, in config order.
func (m *Manager) Status() []ServerStatus {
	m.mu.Lock()
	servers := append([]*server(nil), m.servers...)
	m.mu.Unlock()
	out := make([]ServerStatus, len(servers))
	for i, s := range servers {
		s.mu.Lock()
		out[i] = ServerStatus{Name: s.cfg.Name, Connected: s.session != nil, Tools: len(s.tools), Err: s.err}
		s.mu.Unlock()
	}
	return out
}

// Close closes every session and stops the stdio servers.
func (m *Manager) Close() error {
	m.mu.Lock()
	servers := append([]*server(nil), m.servers...)
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.close()
		}()
	}
	wg.Wait()
	return nil
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
	cfg ServerConfig

	mu       sync.Mutex
	session  *sdk.ClientSession
	cmd      *exec.Cmd     // stdio servers only
	stderr   *tailBuffer   // stdio servers only
	done     chan struct{} // closed when the session has ended
	tools    []*sdk.Tool
	err      error
	failures int
	retryAt  time.Time
}

// alive reports whether the session is up.
func (s *server) alive() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.session != nil
}

// dueForRetry reports whether the backoff after the last failure is over.
func (s *server) dueForRetry() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !time.Now().Before(s.retryAt)
}

// toolList returns the tools listed at the last connection.
func (s *server) toolList() []*sdk.Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tools
}

// connect opens a session and lists the tools.
func (s *server) connect(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "talaria", Version: "1"}, &sdk.ClientOptions{
		Capabilities: &sdk.ClientCapabilities{},
	})
	var transport sdk.Transport
	var cmd *exec.Cmd
	var stderr *tailBuffer
	if s.cfg.Command != "" {
		cmd = exec.Command(s.cfg.Command, s.cfg.Args...)
		cmd.Env = s.cfg.Environ
		if cmd.Env == nil {
			cmd.Env = tools.FilterEnviron(os.Environ(), nil, nil)
		}
		cmd.Env = slices.Clip(cmd.Env)
		for k, v := range s.cfg.Env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		stderr = &tailBuffer{max: stderrKeep}
		cmd.Stderr = stderr
		cmd.WaitDelay = closeGrace
		// Its own process group: Ctrl+C in the terminal does not reach
		// it, and closing it can stop its children too.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		transport = &sdk.CommandTransport{Command: cmd, TerminateDuration: closeGrace}
	} else {
		transport = &sdk.StreamableClientTransport{Endpoint: s.cfg.URL, MaxRetries: 2}
	}
	session, err := client.Connect(ctx, transport, nil)
	if cmd != nil && cmd.Process != nil {
		s.cfg.Reaper.Track(cmd.Process.Pid)
	}
	var list []*sdk.Tool
	if err == nil {
		list, err = listTools(ctx, session)
		if err != nil {
			session.Close()
		}
	}
	if err != nil {
		if cmd != nil {
			killGroup(cmd)
		}
		err = s.describe("cannot connect", err, stderr)
		s.mu.Lock()
		s.err = err
		s.failures++
		s.retryAt = time.Now().Add(min(retryMin<<min(s.failures-1, 10), retryMax))
		s.mu.Unlock()
		return err
	}
	done := make(chan struct{})
	s.mu.Lock()
	s.session, s.cmd, s.stderr, s.done, s.tools = session, cmd, stderr, done, list
	s.err, s.failures, s.retryAt = nil, 0, time.Time{}
	s.mu.Unlock()
	go s.watch(session, cmd, stderr, done)
	return nil
}

// watch marks the server dead when session ends, and reaps the process
// of a stdio server.
func (s *server) watch(session *sdk.ClientSession, cmd *exec.Cmd, stderr *tailBuffer, done chan struct{}) {
	_ = session.Wait()
	s.mu.Lock()
	if s.session == session {
		s.session = nil
		s.err = s.describe("the server closed the connection", nil, stderr)
	}
	s.mu.Unlock()
	close(done)
	_ = session.Close()
	if cmd != nil {
		killGroup(cmd)
	}
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
		if err == nil {
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

// close ends the session and stops a stdio server.
func (s *server) close() {
	s.mu.Lock()
	session, cmd := s.session, s.cmd
	s.session = nil
	s.err = fmt.Errorf("MCP server %q was closed", s.cfg.Name)
	s.retryAt = time.Now().Add(100 * 365 * 24 * time.Hour)
	s.mu.Unlock()
	if session != nil {
		_ = session.Close()
	}
	if cmd != nil {
		killGroup(cmd)
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
