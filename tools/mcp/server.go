package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// server is the connection to one MCP server.
type server struct {
	m   *Manager
	cfg ServerConfig

	mu           sync.Mutex
	session      *sdk.ClientSession
	starting     chan struct{} // non-nil while an attempt runs; closed at its end
	stderr       *tailBuffer   // stdio servers only
	pid          int           // a stdio server's process id, 0 otherwise
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

// awaitStart waits until the running connection attempt, if any, ends or
// ctx does.
func (s *server) awaitStart(ctx context.Context) {
	if ch := s.startingCh(); ch != nil {
		select {
		case <-ch:
		case <-ctx.Done():
		}
	}
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
		stdio = &stdioTransport{cmd: stdioCommand(s.cfg, stderr), reaper: s.cfg.Reaper, progress: s.m.routeProgress, stray: func(line string) {
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
		first, closed := s.failures == 1, s.closed
		s.mu.Unlock()
		if first && !closed {
			s.m.notice(err.Error()) // later failures in a row only go to the log
		} else {
			s.m.log("mcp: " + err.Error())
		}
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
	if stdio != nil && stdio.cmd.Process != nil {
		s.pid = stdio.cmd.Process.Pid
	}
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
