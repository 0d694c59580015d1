// Package acp is talaria's Agent Client Protocol server (`talaria acp`):
// editors (Zed, JetBrains, Neovim plugins) and clients such as acpx drive
// the same engine as the TUI and -p over JSON-RPC 2.0 on stdio. It is one
// more subscriber of a session's event pipeline (events become
// session/update notifications), one more way to start turns
// (session/prompt) and one more way to answer approvals
// (session/request_permission). The protocol types and the transport are
// github.com/coder/acp-go-sdk's.
package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"talaria/loop/app"
	"talaria/loop/config"
)

// closeWait bounds how long a session's running turn may take to end
// after the client went away, before the session is closed anyway.
const closeWait = 15 * time.Second

// Options configure one ACP server.
type Options struct {
	// Flags are the command line's settings; each session starts from
	// them with the cwd and MCP servers the client gives.
	Flags app.Flags
	// Name and Version are reported as agentInfo.
	Name, Version string
	Stdin         io.Reader
	Stdout        io.Writer
	Stderr        io.Writer
}

// Serve runs the ACP server until the client closes stdin and returns the
// process exit code. Nothing but protocol messages goes to o.Stdout.
func Serve(ctx context.Context, o Options) int {
	if o.Name == "" {
		o.Name = "talaria"
	}
	out := &lockedWriter{w: o.Stdout}
	logger := slog.New(slog.NewTextHandler(o.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv := &server{opts: o, sessions: map[string]*session{}, log: logger, ctx: ctx}
	in := filterInput(o.Stdin, out, logger)
	srv.conn = sdk.NewAgentSideConnection(srv, out, in)
	// No SetLogger: the SDK's goroutines read the logger unlocked once the
	// connection exists; its default (slog's) writes to stderr as well.
	select {
	case <-srv.conn.Done():
	case <-ctx.Done():
	}
	srv.closeAll()
	return 0
}

// server is the sdk.Agent: it owns the sessions of one connection.
type server struct {
	opts Options
	conn *sdk.AgentSideConnection
	log  *slog.Logger
	ctx  context.Context

	mu       sync.Mutex
	client   sdk.ClientCapabilities
	sessions map[string]*session
}

var (
	_ sdk.Agent       = (*server)(nil)
	_ sdk.AgentLoader = (*server)(nil)
)

// Initialize implements sdk.Agent: protocol version 1, what talaria takes
// in prompts, MCP over stdio and HTTP, no authentication.
func (s *server) Initialize(_ context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	s.mu.Lock()
	s.client = p.ClientCapabilities
	s.mu.Unlock()
	return sdk.InitializeResponse{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:         true,
			PromptCapabilities:  sdk.PromptCapabilities{EmbeddedContext: true, Image: true},
			McpCapabilities:     sdk.McpCapabilities{Http: true},
			SessionCapabilities: sdk.SessionCapabilities{Close: &sdk.SessionCloseCapabilities{}},
		},
		AgentInfo:   &sdk.Implementation{Name: s.opts.Name, Version: s.opts.Version},
		AuthMethods: []sdk.AuthMethod{},
	}, nil
}

// Authenticate implements sdk.Agent. talaria offers no authentication
// method: the provider's key comes from its config or environment.
func (s *server) Authenticate(context.Context, sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	return sdk.AuthenticateResponse{}, &sdk.RequestError{Code: -32602, Message: "talaria offers no authentication method: configure a provider in $TALARIA_HOME/config.yaml or set its API key variable (e.g. OPENAI_API_KEY) in the environment the editor starts talaria with"}
}

// NewSession implements sdk.Agent: a new talaria session in cwd with the
// client's MCP servers joined to the configured ones.
func (s *server) NewSession(ctx context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	sess, err := s.open(ctx, p.Cwd, p.McpServers, "")
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	// The client learns the session's id from this response: the command
	// list follows it (and goes again with the first prompt).
	go sess.advertiseCommands()
	return sdk.NewSessionResponse{SessionId: sdk.SessionId(sess.id), Modes: sess.modes()}, nil
}

// LoadSession implements sdk.AgentLoader: it opens a stored session,
// replays its history as session/update notifications, then answers.
func (s *server) LoadSession(ctx context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	if p.SessionId == "" {
		return sdk.LoadSessionResponse{}, sdk.NewInvalidParams(map[string]any{"error": "sessionId is empty"})
	}
	if s.get(string(p.SessionId)) != nil {
		return sdk.LoadSessionResponse{}, &sdk.RequestError{Code: -32602, Message: fmt.Sprintf("session %s is already open on this connection", p.SessionId)}
	}
	sess, err := s.open(ctx, p.Cwd, p.McpServers, string(p.SessionId))
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	sess.replay()
	sess.advertiseCommands()
	return sdk.LoadSessionResponse{Modes: sess.modes()}, nil
}

// open wires one session through app.Open, registered under its store id.
func (s *server) open(ctx context.Context, cwd string, servers []sdk.McpServer, resume string) (*session, error) {
	mcp, err := mcpServers(servers)
	if err != nil {
		return nil, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	if !filepath.IsAbs(cwd) {
		return nil, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("cwd %q is not an absolute path: session/new and session/load need the absolute working directory", cwd)})
	}
	sess := newSession(s)
	f := s.opts.Flags
	f.Cwd, f.Resume, f.Continue, f.MCPServers = cwd, resume, false, mcp
	f.Headless = true // MCP servers are ready at the first turn; hard-stop guardrails on
	f.UI = app.Interactive{Approve: sess.approve, Files: sess.clientFiles()}
	as, err := app.Open(ctx, f, sess.sink)
	if err != nil {
		return nil, openError(err)
	}
	sess.attach(as)
	if as.Notice != "" {
		s.log.Warn("session notice", "session", sess.id, "notice", as.Notice)
	}
	s.mu.Lock()
	old := s.sessions[sess.id]
	s.sessions[sess.id] = sess
	s.mu.Unlock()
	if old != nil {
		old.close()
	}
	as.Agent.EmitSessionStarted(as.Cwd, as.Resumed)
	return sess, nil
}

// openError is app.Open's error as the client shows it.
func openError(err error) error {
	var re *app.ResumeError
	switch {
	case errors.Is(err, config.ErrNoProvider):
		return &sdk.RequestError{Code: -32000, Message: "talaria: " + err.Error()}
	case errors.As(err, &re):
		return &sdk.RequestError{Code: -32602, Message: "talaria: " + err.Error()}
	}
	return &sdk.RequestError{Code: -32603, Message: "talaria: " + err.Error()}
}

func (s *server) get(id string) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[id]
}

// session returns the open session id or a JSON-RPC error naming it.
func (s *server) session(id sdk.SessionId) (*session, error) {
	if sess := s.get(string(id)); sess != nil {
		return sess, nil
	}
	return nil, &sdk.RequestError{Code: -32602, Message: fmt.Sprintf("unknown session %q: open it with session/new or session/load first", id)}
}

// Prompt implements sdk.Agent: one turn, streamed as session/update.
func (s *server) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	sess, err := s.session(p.SessionId)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	return sess.prompt(ctx, p.Prompt)
}

// Cancel implements sdk.Agent: the interrupt of the session's turn.
func (s *server) Cancel(_ context.Context, p sdk.CancelNotification) error {
	sess, err := s.session(p.SessionId)
	if err != nil {
		return err
	}
	sess.cancel()
	return nil
}

// SetSessionMode implements sdk.Agent: the session's approvals mode.
func (s *server) SetSessionMode(_ context.Context, p sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	sess, err := s.session(p.SessionId)
	if err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	return sdk.SetSessionModeResponse{}, sess.setMode(string(p.ModeId))
}

// CloseSession implements sdk.Agent: interrupt, then free the session.
func (s *server) CloseSession(_ context.Context, p sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	sess, err := s.session(p.SessionId)
	if err != nil {
		return sdk.CloseSessionResponse{}, err
	}
	s.mu.Lock()
	delete(s.sessions, sess.id)
	s.mu.Unlock()
	sess.close()
	return sdk.CloseSessionResponse{}, nil
}

// ListSessions implements sdk.Agent; talaria does not offer it (the
// sessionCapabilities.list capability is not advertised).
func (s *server) ListSessions(context.Context, sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	return sdk.ListSessionsResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionList)
}

// ResumeSession implements sdk.Agent; not offered (use session/load).
func (s *server) ResumeSession(context.Context, sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	return sdk.ResumeSessionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionResume)
}

// SetSessionConfigOption implements sdk.Agent; talaria has no config
// options (the approval modes are the session's modes).
func (s *server) SetSessionConfigOption(context.Context, sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	return sdk.SetSessionConfigOptionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionSetConfigOption)
}

// closeAll ends every session: running turns are interrupted and given
// closeWait to save their step before the session closes.
func (s *server) closeAll() {
	s.mu.Lock()
	all := make([]*session, 0, len(s.sessions))
	for _, sess := range s.sessions {
		all = append(all, sess)
	}
	s.sessions = map[string]*session{}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, sess := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sess.close()
		}()
	}
	wg.Wait()
}

// update sends one session/update; a failure (the client went away) is
// logged, not fatal: the turn goes on and is saved.
func (s *server) update(id string, u sdk.SessionUpdate) {
	if err := s.conn.SessionUpdate(s.ctx, sdk.SessionNotification{SessionId: sdk.SessionId(id), Update: u}); err != nil {
		s.log.Debug("session/update not sent", "session", id, "err", err)
	}
}
