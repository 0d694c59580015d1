// Package ui is talaria's full-screen terminal interface: one Bubble Tea
// root model that shows a session's transcript, the live panes of the
// running turn (iteration budget, retry countdown, tool lanes, guardrails,
// pending steers and queued messages), a composer and a status line.
//
// Tool approvals and clarify questions reach the screen through
// [Dialogs], and show as a modal in the composer's place, one at a time;
// /sessions and /resume open a session picker there.
//
// Turns run in the agent's goroutine. The screen starts them through
// [Agent].Start in a command goroutine and learns what happens only from
// the events channel in [Options], drained in batches by a re-armed
// command; turn.finished is the one signal that a turn ended.
// Update does no I/O and View only joins strings cached by Update: markdown
// is rendered once per message version and width, and the transcript draws
// only the visible window.
//
// # Wiring
//
// The program's main connects a session like this (app.Screen is the
// [Port] over the wiring's session switcher):
//
//	ctx := context.Background()
//	events, sink := ui.EventChannel(ctx, 0)
//	dialogs := ui.NewDialogs()
//	w := app.NewSwitcher(ctx, flags, sink) // approvals ask dialogs.Approve
//	first, err := w.Open()
//	err = ui.Run(ctx, ui.Options{
//		Port: w.Screen(app.ScreenOptions{}), Events: events, Dialogs: dialogs,
//		Provider: provider, Model: model, Cwd: cwd, SessionID: first.Record.ID,
//		Theme: cfg.Display.Theme, BusyInputMode: cfg.Display.BusyInputMode,
//		MaxIterations: cfg.Agent.MaxIterations, ContextLength: cfg.Model.ContextLength,
//		History: first.Agent.History(),
//	})
package ui

import (
	"context"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"talaria/loop"
	"talaria/providers"
	"talaria/themes"
)

// Model is the root Bubble Tea model. Create it with [New]; it is used
// through its pointer.
type Model struct {
	opts   Options
	agent  Port      // the way to the session (Options.Port); nil: none
	can    Abilities // what agent offers, read once
	events <-chan loop.Event
	ctx    context.Context
	cancel context.CancelFunc
	clock  func() time.Time
	keys   keyMap
	term   termEnv // the multiplexer and display servers around us

	look  look
	width int
	high  int

	tr    *transcript
	comp  composer
	ses   sessionInfo
	turn  turnState
	live  liveState
	ui    uiState
	modal modalState // approval and clarify dialogs, session picker
	pager *pager     // the full-screen transcript reader (ctrl+t), nil when closed
	sel   selection  // a mouse drag over the transcript
	focus focusState // the terminal's focus reports, for notifications

	// rw is the /rewind list and the /diff view.
	rw rewindState
	// older is what the screen was not given of a long session (older.go).
	older olderState

	// pending names the command (new, resume, model, compress) whose
	// callback is still running; "" when none. See setPending.
	pending string

	// Cached screen parts, rebuilt in Update by sync, joined by View.
	// composerView holds the open modal instead of the composer.
	panesView, popupView, composerView, statusView string
	trDirty, chromeDirty, inputDirty               bool
}

// look is everything that decides colours.
type look struct {
	name    string // configured theme: a name or "auto"
	theme   themes.Theme
	st      themes.Styles
	md      *markdown
	gen     int // bumped on theme change or reasoning toggle
	dark    bool
	noColor bool
}

// sessionInfo is what the status line says about the session.
type sessionInfo struct {
	provider, model, cwd, id string
	usage                    providers.Usage // whole session, settled turns
	turnUsage                providers.Usage // the running turn so far
	ctxTokens                int             // context size of the last call
	lastAnswer               string

	title string // from the first user message
}

// uiState holds purely presentational switches.
type uiState struct {
	mouse         bool
	showReasoning bool
	lastCtrlC     time.Time
	hint          string
	hintUntil     time.Time
	ticking       bool
	frame         int
	now           time.Time
	mcpStarting   string // MCP servers still starting, for the status line
}

// New builds the model. Nothing runs until the program calls Init. Turns
// run under a context of their own, cancelled when the program ends; [Run]
// derives it from the context it is given.
func New(opts Options) *Model { return newModel(context.Background(), opts) }

func newModel(parent context.Context, opts Options) *Model {
	ctx, cancel := context.WithCancel(parent)
	clock := opts.Now
	if clock == nil {
		clock = time.Now
	}
	m := &Model{
		opts: opts, agent: opts.Port, events: opts.Events,
		ctx: ctx, cancel: cancel, clock: clock, keys: defaultKeyMap(), term: readTermEnv(),
		tr:   newTranscript(),
		comp: newComposerWith(opts.InputHistory, clock()),
		ses:  sessionInfo{provider: opts.Provider, model: opts.Model, cwd: opts.Cwd, id: opts.SessionID, usage: opts.Usage},
		ui:   uiState{mouse: !opts.MouseOff},
	}
	if m.agent != nil {
		m.can = m.agent.Abilities()
	}
	m.look.name, m.look.noColor, m.look.dark = opts.Theme, opts.NoColor, true
	m.applyTheme()
	m.live.budget.max = opts.MaxIterations
	m.ui.now = clock()
	m.resetOlder(opts.HistoryBefore, opts.Title)
	m.loadHistory(opts.History)
	m.opts.History = nil // the transcript holds what it shows
	if opts.Notice != "" {
		m.notice(noticeInfo, opts.Notice)
	}
	m.setupAtStart() // no provider yet: setup_dialog.go
	if m.agent == nil && opts.Notice == "" {
		m.notice(noticeWarn, "No agent is configured: set a provider in config.yaml or run talaria --demo.")
	}
	m.trDirty, m.chromeDirty = true, true
	return m
}

// Init asks the terminal for its background colour (to pick dark or light)
// and starts draining events and dialog requests.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor, m.waitEvents(), waitDialogs(m.opts.Dialogs), m.askTrust()}
	if m.pollMCP() {
		cmds = append(cmds, m.ensureTicking())
	}
	if p := m.opts.InitialPrompt; p != "" && m.agent != nil {
		cmds = append(cmds, func() tea.Msg { return initialPromptMsg{text: p} })
	}
	return tea.Batch(cmds...)
}

// initialPromptMsg sends the first message once the program runs.
type initialPromptMsg struct{ text string }

// Update applies one message, then rebuilds whatever cached screen part
// the message made stale.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.pageHistory(msg, m.update(msg))
	m.sync()
	return m, cmd
}

// update dispatches a message to its handler.
func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		return m.resize(msg.Width, msg.Height)
	case tea.BackgroundColorMsg:
		return m.setBackground(msg.IsDark())
	case tea.KeyPressMsg:
		m.clearSelection()
		return m.handleKey(msg)
	case tea.PasteMsg:
		return m.handlePaste(msg.Content)
	case tea.MouseWheelMsg:
		return m.handleWheel(msg)
	case tea.MouseClickMsg:
		return m.inTranscript(func() tea.Cmd { return m.handleMouseClick(msg) })
	case tea.MouseMotionMsg:
		return m.inTranscript(func() tea.Cmd { return m.handleMouseMotion(msg) })
	case tea.MouseReleaseMsg:
		return m.inTranscript(func() tea.Cmd { return m.handleMouseRelease(msg) })
	case eventsMsg:
		return m.handleEvents(msg)
	case turnFailedMsg:
		return m.handleTurnFailed(msg)
	case steerRefusedMsg:
		return m.handleSteerRefused(msg)
	case frameMsg:
		return m.handleFrame()
	case commandResultMsg:
		return m.handleCommandResult(msg)
	case composerMsg:
		return m.doComposer(msg.apply(&m.comp, m.composerEnv()))
	case searchResultMsg:
		return m.handleSearchResult(msg)
	case dialogMsg:
		return m.handleDialog(msg)
	case dialogSettledMsg:
		return m.handleDialogSettled(msg)
	case diffReadyMsg:
		return m.handleDiffReady(msg)
	case tea.FocusMsg:
		m.focus.known, m.focus.focused = true, true
	case tea.BlurMsg:
		m.focus.known, m.focus.focused = true, false
	case notifyDoneMsg:
		return m.handleNotifyDone(msg)
	case shellOutputMsg:
		return m.handleShellOutput(msg)
	case shellDoneMsg:
		return m.handleShellDone(msg)
	case copiedMsg:
		return m.handleCopied(msg)
	case initialPromptMsg:
		return m.startTurn(msg.text)
	}
	return nil
}

// sync rebuilds stale cached parts of the screen. Streaming deltas mark
// nothing stale (the frame tick flushes them), so they cost almost nothing.
func (m *Model) sync() {
	if m.chromeDirty && m.pager != nil {
		m.pager.render(m.pagerEnv()) // its status line shows the hints
	}
	if m.trDirty && m.pager != nil {
		m.pager = m.pager.refreshed(m.tr, m.pagerEnv()) // it follows the transcript while open
	}
	if m.chromeDirty || m.inputDirty {
		if m.chromeDirty {
			m.renderChrome()
		} else {
			m.renderInput()
		}
		m.chromeDirty, m.inputDirty = false, false
		if m.layout() {
			m.trDirty = true
		}
	}
	if m.trDirty {
		m.trDirty = false
		m.tr.refresh(m.renderCtx())
		if m.sel.shown {
			lines := strings.Split(m.tr.view, "\n")
			m.highlight(lines)
			m.tr.view = strings.Join(lines, "\n")
		}
	}
}

// inTranscript runs a mouse handler unless the pager covers the
// transcript.
func (m *Model) inTranscript(f func() tea.Cmd) tea.Cmd {
	if m.pager != nil {
		return nil
	}
	return f()
}

// resize records the terminal size and re-wraps everything.
func (m *Model) resize(w, h int) tea.Cmd {
	m.width, m.high = w, h
	if m.pager != nil {
		m.pager.render(m.pagerEnv())
	}
	m.comp.setWidth(w)
	m.comp.ed.maxRows = max(1, min(composerMaxRows, h/4))
	if m.modal.typing {
		m.modal.input.setWidth(modalInputWidth(m.width))
	}
	if p := m.modal.picker; p != nil {
		p.filter.setWidth(m.pickerFilterWidth())
	}
	m.trDirty, m.chromeDirty = true, true
	return nil
}

// setBackground follows the terminal background when the theme is "auto".
func (m *Model) setBackground(dark bool) tea.Cmd {
	if m.look.dark == dark {
		return nil
	}
	m.look.dark = dark
	m.applyTheme()
	return nil
}

// applyTheme (re)builds styles and the markdown style from the configured
// theme and invalidates every cached render.
func (m *Model) applyTheme() {
	var t themes.Theme
	switch {
	case m.look.noColor:
		t = themes.Plain()
	default:
		resolved, err := themes.Resolve(m.look.name, m.look.dark)
		if err != nil {
			resolved = themes.Default(m.look.dark)
		}
		t = resolved
	}
	m.look.theme = t
	m.look.st = t.Styles()
	m.look.md = lazyMarkdown(t.Glamour)
	m.look.gen++
	m.comp.setStyles(m.look.st, m.look.noColor)
	m.trDirty, m.chromeDirty = true, true
}

// renderCtx is what item renderers may read.
func (m *Model) renderCtx() *renderCtx {
	return &renderCtx{
		width: m.width, gen: m.look.gen, frame: m.ui.frame, now: m.ui.now,
		st: &m.look.st, md: m.look.md, showReasoning: m.ui.showReasoning,
		liveLines: m.opts.LiveLines,
	}
}

// setHint shows a short-lived hint above the composer.
func (m *Model) setHint(text string, d time.Duration) tea.Cmd {
	m.ui.hint = text
	m.ui.hintUntil = m.clock().Add(d)
	m.chromeDirty = true
	return m.ensureTicking()
}

// shutdown stops turn contexts; called when the program ends.
func (m *Model) shutdown() { m.cancel() }
