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

// ErrChanging is a turn refused while the switcher changes the current
// session (/new, /resume, /model, /rewind): send it again once the change
// is done.
var ErrChanging = errors.New("the session is changing (/new, /resume, /model or /rewind): send it again when that is done")

// errTurnRunning refuses a change while the current session runs a turn.
var errTurnRunning = errors.New("a turn is running: /stop it first")

// Switcher is the one owner of the current session of an interactive
// run: it opens the first one, replaces it on /new and /resume, moves it to
// another model in place on /model, rewinds its conversation in place, and
// forwards turns, steers and interrupts to its agent. Every session it
// opens sends events to the same sink, so the screen keeps one event
// channel. Safe from any goroutine.
//
// The lock discipline: a change (Switch, SetModel, Rewind) takes changing
// for its whole length and, in one step under gate, checks that no turn
// runs and holds the session (hold); until it lets go (release), Start
// refuses with ErrChanging and Steer with 0. Start, Steer, Interrupt and
// CancelCall act on the agent under gate's read lock, so a turn either
// began before the check (and the change is refused) or begins after the
// change, on the session it left current: never on a session being
// closed. mu only guards the fields, never a call into an agent (Steer
// emits, and the sink may wait for a screen that asks for Current).
type Switcher struct {
	flags Flags
	ctx   context.Context
	sink  loop.Sink

	// changing serialises the operations that replace or change the
	// session (they open stores and transports, and may be slow); mu is
	// held only for checks and swaps.
	changing sync.Mutex

	// gate orders turns against changes: Start, Steer, Interrupt and
	// CancelCall take its read lock, hold and release its write lock.
	gate sync.RWMutex
	// held is set while a change holds the current session: no turn may
	// start on it (guarded by gate).
	held bool

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

// hold claims the current session (nil before the first) for a change:
// refused while it runs a turn; until release, no turn starts. The caller
// holds w.changing.
func (w *Switcher) hold() (*Session, error) {
	w.gate.Lock()
	defer w.gate.Unlock()
	s := w.Current()
	if s != nil && s.Agent.Busy() {
		return nil, errTurnRunning
	}
	w.held = true
	return s, nil
}

// release lets turns start again after a change.
func (w *Switcher) release() {
	w.gate.Lock()
	w.held = false
	w.gate.Unlock()
}

// withAgent runs f on the current session's agent (nil when there is none
// or a change holds it) under gate's read lock.
func (w *Switcher) withAgent(f func(a *loop.Agent)) {
	w.gate.RLock()
	defer w.gate.RUnlock()
	if s := w.Current(); s != nil && !w.held {
		f(s.Agent)
		return
	}
	f(nil)
}

// OpenDemo makes the offline tour the current session.
func (w *Switcher) OpenDemo() (*Session, error) {
	w.changing.Lock()
	defer w.changing.Unlock()
	if _, err := w.hold(); err != nil {
		return nil, err
	}
	defer w.release()
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
// refuses while the current session runs a turn, and no turn starts
// while it opens the next (Start returns ErrChanging).
func (w *Switcher) Switch(f Flags) (*Session, error) {
	w.changing.Lock()
	defer w.changing.Unlock()
	if _, err := w.hold(); err != nil {
		return nil, err
	}
	defer w.release()
	s, err := Open(w.ctx, f, w.sink)
	if err != nil {
		return nil, err
	}
	w.adopt(s)
	return s, nil
}

// adopt makes s current, closes the one before and announces s; the
// caller holds w.changing and the session (hold), so no turn runs on
// either.
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
	s, err := w.hold()
	if err != nil {
		return config.Backend{}, err
	}
	defer w.release()
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
	err = s.parts.moveTo(s.Agent, backend, chain, Timeouts(cfg.Agent))
	if errors.Is(err, loop.ErrBusy) {
		return config.Backend{}, errTurnRunning
	} else if err != nil {
		return config.Backend{}, err
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

// Start starts a turn on the current session (see loop.Agent.Start); it
// returns ErrChanging while the session is being changed.
func (w *Switcher) Start(ctx context.Context, input string) error {
	return w.StartInput(ctx, loop.Input{Text: input})
}

// Steer steers the current session's running turn and returns the steer's
// id (0 when there is no session).
func (w *Switcher) Steer(text string) int {
	id := 0
	w.withAgent(func(a *loop.Agent) {
		if a != nil {
			id = a.Steer(text)
		}
	})
	return id
}

// Interrupt interrupts the current session's running turn.
func (w *Switcher) Interrupt() {
	w.withAgent(func(a *loop.Agent) {
		if a != nil {
			a.Interrupt()
		}
	})
}

// CancelCall stops one running tool call of the current session's turn;
// it reports whether such a call was running.
func (w *Switcher) CancelCall(id string) bool {
	ok := false
	w.withAgent(func(a *loop.Agent) {
		ok = a != nil && a.CancelCall(id)
	})
	return ok
}

// Compress compresses the current session's context now. It is a change
// of the session: /new, /resume, /model and /rewind wait for it.
func (w *Switcher) Compress(ctx context.Context, focus string) error {
	w.changing.Lock()
	defer w.changing.Unlock()
	s := w.Current()
	if s == nil {
		return ErrNoSession
	}
	return s.Agent.Compress(ctx, focus)
}

// Close interrupts a running turn, waits (bounded) for its epilogue to
// save the step in flight, and closes the current session.
func (w *Switcher) Close() {
	w.changing.Lock()
	defer w.changing.Unlock()
	// Under gate: a Start either began its turn (interrupted below) or
	// finds no session.
	w.gate.Lock()
	w.mu.Lock()
	s := w.cur
	w.cur = nil
	w.mu.Unlock()
	w.gate.Unlock()
	if s == nil {
		return
	}
	s.Agent.Interrupt()
	ctx, cancel := context.WithTimeout(context.Background(), closeWait)
	defer cancel()
	_ = s.Agent.Wait(ctx)
	s.Close()
}
