package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"talaria/loop"
	"talaria/loop/compress"
	"talaria/loop/config"
	"talaria/persist"
	"talaria/tools"
)

// ErrNoSession is returned when there is no current session to act on.
var ErrNoSession = errors.New("no session is open")

// closeWait bounds how long Close waits for a running turn's epilogue.
const closeWait = 5 * time.Second

// Switcher is the one owner of the current session of an interactive
// run: it opens the first one, replaces it on /new and /resume, moves it to
// another model in place on /model, and forwards turns, steers and
// interrupts to its agent. Every session it opens sends events to the same
// sink, so the screen keeps one event channel. Safe from any goroutine.
type Switcher struct {
	flags Flags
	ctx   context.Context
	sink  loop.Sink

	// changing serialises the operations that replace or change the
	// session (they open stores and transports, and may be slow), so mu
	// is only held for the swap itself.
	changing sync.Mutex

	mu  sync.Mutex
	cur *Session
	// chosen is the approvals mode the user set (Shift+Tab, /approvals),
	// carried over to the next session; "" until they do.
	chosen tools.ApprovalMode
	// model is the provider and model /model chose ("" until then):
	// /new opens the next session with them.
	model struct{ provider, name string }
}

// NewSwitcher returns a switcher that opens sessions with flags f under
// ctx; their events go to sink.
func NewSwitcher(ctx context.Context, f Flags, sink loop.Sink) *Switcher {
	return &Switcher{flags: f, ctx: ctx, sink: sink}
}

// Current returns the current session, nil before the first opened. Its
// Agent, Store and Record do not change; Backend changes with /model.
func (w *Switcher) Current() *Session {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.cur
}

// agent returns the current session's agent, or nil.
func (w *Switcher) agent() *loop.Agent {
	if s := w.Current(); s != nil {
		return s.Agent
	}
	return nil
}

// OpenDemo makes the offline tour the current session.
func (w *Switcher) OpenDemo() (*Session, error) {
	w.changing.Lock()
	defer w.changing.Unlock()
	s, err := OpenDemo(w.flags, w.sink)
	if err != nil {
		return nil, err
	}
	w.adopt(s)
	return s, nil
}

// Open opens the session the flags name (new, -c or -r) and makes it
// current; see Switch.
func (w *Switcher) Open() (*Session, error) {
	s, err := w.Switch(w.flags)
	w.flags.Record = ""         // --record covers the first session; /new, /resume and /model end it
	w.flags.Script.Fork = false // --fork-session forks the first session only
	return s, err
}

// New opens a new session in the same directory (/new).
func (w *Switcher) New() (*Session, error) {
	f := w.flags
	f.Continue, f.Resume = false, ""
	w.mu.Lock()
	if w.model.name != "" || w.model.provider != "" {
		f.Overrides.Provider, f.Overrides.Model = w.model.provider, w.model.name
	}
	w.mu.Unlock()
	return w.Switch(f)
}

// Resume opens session id, or the latest of this directory when id is
// empty (/resume).
func (w *Switcher) Resume(id string) (*Session, error) {
	f := w.flags
	f.Resume, f.Continue = id, id == ""
	f.Script.AppendSystemPrompt = "" // for new sessions; /resume replays the stored prompt
	return w.Switch(f)
}

// Switch opens a session with flags f and makes it current; the previous
// one is closed (its background processes and MCP servers end). It
// refuses while the current session runs a turn.
func (w *Switcher) Switch(f Flags) (*Session, error) {
	w.changing.Lock()
	defer w.changing.Unlock()
	if a := w.agent(); a != nil && a.Busy() {
		return nil, fmt.Errorf("a turn is running: /stop it first")
	}
	s, err := Open(w.ctx, f, w.sink)
	if err != nil {
		return nil, err
	}
	w.adopt(s)
	return s, nil
}

// adopt makes s current and announces it; w.changing is held.
func (w *Switcher) adopt(s *Session) {
	w.mu.Lock()
	old := w.cur
	w.cur = s
	if a := s.Approvals(); a != nil && w.chosen != "" {
		a.SetMode(w.chosen)
	}
	w.mu.Unlock()
	if old != nil {
		old.Close()
	}
	s.Agent.EmitSessionStarted(s.Cwd, s.Resumed)
}

// SetModel moves the current session to model spec ("[provider/]name")
// in place: the agent gets the new backend and fallback chain, and keeps
// its history, tools, background processes and MCP connections. The
// session record and the system prompt's Model:/Provider: lines follow.
// It returns the backend now in use.
func (w *Switcher) SetModel(ctx context.Context, spec string) (config.Backend, error) {
	w.changing.Lock()
	defer w.changing.Unlock()
	s := w.Current()
	switch {
	case s == nil:
		return config.Backend{}, ErrNoSession
	case s.Store == nil:
		return config.Backend{}, fmt.Errorf("the offline tour's scripted model cannot be switched")
	}
	f := w.flags
	f.Overrides.Model = spec
	if p, name, ok := strings.Cut(spec, "/"); ok && slices.Contains(config.Providers(), p) {
		f.Overrides.Provider, f.Overrides.Model = p, name
	}
	cfg, err := LoadConfig(f)
	if err != nil {
		return config.Backend{}, err
	}
	backend, _, err := ResolveBackend(ctx, cfg, os.Getenv)
	if err != nil {
		return config.Backend{}, err
	}
	chain, _, err := buildChain(backend, cfg, os.Getenv)
	if err != nil {
		return config.Backend{}, err
	}
	change := loop.BackendChange{Chain: chain, NewTransport: TransportFactory(Timeouts(cfg.Agent)),
		Provider: backend.Provider, Model: backend.Model, MaxTokens: backend.MaxTokens}
	err = s.Agent.SetBackend(change)
	if errors.Is(err, loop.ErrBusy) {
		return config.Backend{}, fmt.Errorf("a turn is running: /stop it first")
	} else if err != nil {
		return config.Backend{}, err
	}
	if s.tools != nil {
		s.tools.retarget(change, s.Agent.SystemPrompt())
	}
	backend.ContextLength = compress.ContextLength(backend.Provider, backend.Model, backend.ContextLength)
	w.mu.Lock()
	s.Backend = backend
	w.model.provider, w.model.name = backend.Provider, backend.Model
	w.mu.Unlock()
	return backend, w.saveBackend(s, backend)
}

// saveBackend records the session's new backend and system prompt, so a
// later resume starts where /model left it.
func (w *Switcher) saveBackend(s *Session, b config.Backend) error {
	id := s.Record.ID
	prompt := s.Agent.SystemPrompt()
	err := s.Store.UpdateSession(id, func(r *persist.Session) { r.Provider, r.Model = b.Provider, b.Model })
	if err == nil && prompt != "" {
		err = s.Store.SetSystemPrompt(id, &prompt)
	}
	if err != nil {
		return fmt.Errorf("switched to %s/%s, but saving that failed: %w", b.Provider, b.Model, err)
	}
	return nil
}

// Backend returns the current session's backend.
func (w *Switcher) Backend() config.Backend {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cur == nil {
		return config.Backend{}
	}
	return w.cur.Backend
}

// Start starts a turn on the current session (see loop.Agent.Start).
func (w *Switcher) Start(ctx context.Context, input string) error {
	a := w.agent()
	if a == nil {
		return ErrNoSession
	}
	return a.Start(ctx, input)
}

// Steer steers the current session's running turn and returns the steer's
// id (0 when there is no session).
func (w *Switcher) Steer(text string) int {
	if a := w.agent(); a != nil {
		return a.Steer(text)
	}
	return 0
}

// Interrupt interrupts the current session's running turn.
func (w *Switcher) Interrupt() {
	if a := w.agent(); a != nil {
		a.Interrupt()
	}
}

// CancelCall stops one running tool call of the current session's turn;
// it reports whether such a call was running.
func (w *Switcher) CancelCall(id string) bool {
	if a := w.agent(); a != nil {
		return a.CancelCall(id)
	}
	return false
}

// Compress compresses the current session's context now.
func (w *Switcher) Compress(ctx context.Context, focus string) error {
	a := w.agent()
	if a == nil {
		return ErrNoSession
	}
	return a.Compress(ctx, focus)
}

// Close interrupts a running turn, waits (bounded) for its epilogue to
// save the step in flight, and closes the current session.
func (w *Switcher) Close() {
	w.changing.Lock()
	defer w.changing.Unlock()
	w.mu.Lock()
	s := w.cur
	w.cur = nil
	w.mu.Unlock()
	if s == nil {
		return
	}
	s.Agent.Interrupt()
	ctx, cancel := context.WithTimeout(context.Background(), closeWait)
	defer cancel()
	_ = s.Agent.Wait(ctx)
	s.Close()
}
