package app

import (
	"context"
	"fmt"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"talaria/loop"
	"talaria/loop/ext"
	"talaria/loop/port"
	"talaria/loop/trace"
	"talaria/tools"
)

// Screen is the full-screen UI's port to the session (it implements
// ui.Port): every turn, slash command, approval change and extension the
// screen asks for goes through it to the switcher, the one owner of the
// current session, so /new and /resume keep the same port. It speaks in
// the values of package loop/port and never imports the UI.
type Screen struct {
	w     *Switcher
	setup bool
	cat   *ModelCatalog // one cache of the models endpoints for the run

	// The custom command list is asked for at each key typed after a
	// slash: it is built once per session's set.
	extMu     sync.Mutex
	extSet    *ext.Set
	extListed []port.CustomCommand
}

// ScreenOptions configure a [Screen].
type ScreenOptions struct {
	// Setup offers the first-run setup dialog: no provider could be
	// found when the screen opened (config.ErrNoProvider).
	Setup bool
}

// compressWait bounds /compress from the screen.
const compressWait = 3 * time.Minute

// searchLimit is how many hits the session picker's search shows.
const searchLimit = 30

// Screen returns the screen's port over w.
func (w *Switcher) Screen(o ScreenOptions) *Screen {
	return &Screen{w: w, setup: o.Setup, cat: NewModelCatalog(nil)}
}

// Abilities says what the screen may offer: everything, and the setup
// dialog when no provider was found.
func (p *Screen) Abilities() port.Abilities {
	return port.Abilities{
		Images: true, Shell: true, CancelCall: true, Approvals: true,
		New: true, Resume: true, Sessions: true, Search: true,
		Model: true, Models: true, Compress: true, SaveInput: true,
		Rewind: true, Diff: true, Timeline: true, Rename: true, Fork: true,
		Setup: p.setup, Extensions: true,
	}
}

// Start starts a turn with text on the current session.
func (p *Screen) Start(ctx context.Context, input string) error { return p.w.Start(ctx, input) }

// StartInput starts a turn with text and images on the current session.
func (p *Screen) StartInput(ctx context.Context, in loop.Input) error {
	return p.w.StartInput(ctx, in)
}

// Steer steers the running turn; it returns the steer's id (0: none).
func (p *Screen) Steer(text string) int { return p.w.Steer(text) }

// Interrupt interrupts the running turn.
func (p *Screen) Interrupt() { p.w.Interrupt() }

// CancelCall stops one call of the running batch.
func (p *Screen) CancelCall(id string) bool { return p.w.CancelCall(id) }

// Shell runs the user's own !command.
func (p *Screen) Shell(ctx context.Context, command string) (tools.Result, error) {
	return p.w.Shell(ctx, command)
}

// ApprovalMode is the current session's approvals mode.
func (p *Screen) ApprovalMode() tools.ApprovalMode { return p.w.Mode() }

// SetApprovalMode sets it (and keeps it for the next session).
func (p *Screen) SetApprovalMode(m tools.ApprovalMode) { p.w.SetMode(m) }

// MCPStarting lists the MCP servers still starting.
func (p *Screen) MCPStarting() []string { return p.w.MCPStarting() }

// MCPNotices returns news about the MCP servers, once each.
func (p *Screen) MCPNotices() []string { return p.w.MCPNotices() }

// New opens a new session and makes it current.
func (p *Screen) New(context.Context) (port.Session, error) { return shown(p.w.New()) }

// Resume makes session id current (the most recent one when id is "").
func (p *Screen) Resume(_ context.Context, id string) (port.Session, error) {
	return shown(p.w.Resume(id))
}

// Fork copies the current session into a new one and makes it current.
func (p *Screen) Fork(_ context.Context, title string) (port.Session, error) {
	return shown(p.w.Fork(title))
}

// Rename sets the current session's title.
func (p *Screen) Rename(_ context.Context, title string) (string, error) {
	return p.w.Rename(title)
}

// Sessions lists the store's sessions, most recent first (the home's
// store when no session could open).
func (p *Screen) Sessions(context.Context) ([]port.SessionInfo, error) {
	st, err := p.w.Store()
	if err != nil {
		return nil, err
	}
	list, err := st.ListSessions()
	out := make([]port.SessionInfo, len(list))
	for i, s := range list {
		out[i] = port.SessionInfo{ID: s.ID, Title: s.Title, Cwd: s.Cwd, Updated: s.UpdatedAt, Messages: s.LiveMessages()}
	}
	return out, err
}

// Search finds the sessions whose messages match query, as the picker
// searches while the user types: the last word is a prefix.
func (p *Screen) Search(ctx context.Context, query string) ([]port.SessionInfo, error) {
	st, err := p.w.Store()
	if err != nil {
		return nil, err
	}
	hits, err := st.SearchSessions(ctx, prefixQuery(query), searchLimit, "")
	out := make([]port.SessionInfo, 0, len(hits))
	for _, h := range hits {
		out = append(out, port.SessionInfo{ID: h.SessionID, Title: h.Title, Updated: h.When, Snippet: h.Snippet})
	}
	return out, err
}

// prefixQuery makes the last word of query a prefix ("pars" finds
// "parser") when it ends in a letter or digit.
func prefixQuery(query string) string {
	if r, _ := utf8.DecodeLastRuneInString(query); unicode.IsLetter(r) || unicode.IsDigit(r) {
		return query + "*"
	}
	return query
}

// SaveInput keeps one composer input in the project's history.
func (p *Screen) SaveInput(text string) error {
	if s := p.w.Current(); s != nil {
		return s.SaveInput(text)
	}
	return nil
}

// Model is /model SPEC: the current session moves to it (or, with no
// session yet, one opens on it).
func (p *Screen) Model(ctx context.Context, spec string) (string, string, error) {
	b, err := p.w.ChooseModel(ctx, spec)
	return b.Provider, b.Model, err
}

// Models lists the current provider's models for /model's picker.
func (p *Screen) Models(ctx context.Context) (port.ModelList, error) {
	l, err := p.w.Models(ctx, p.cat)
	return port.ModelList(l), err
}

// Compress compresses the current session's context now, bounded.
func (p *Screen) Compress(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, compressWait)
	defer cancel()
	return p.w.Compress(ctx, "")
}

// Timeline returns the span log of turn (0: the last one).
func (p *Screen) Timeline(ctx context.Context, turn int) (*trace.Log, error) {
	return p.w.Timeline(ctx, turn)
}

// shown is what the screen shows of session s, or err.
func shown(s *Session, err error) (port.Session, error) {
	if err != nil {
		return port.Session{}, err
	}
	return s.View(), nil
}

// session is the current session for a command that needs its store.
func (p *Screen) session() (*Session, error) {
	cur := p.w.Current()
	if cur == nil || cur.Store == nil {
		return nil, fmt.Errorf("no session store in this mode")
	}
	return cur, nil
}
