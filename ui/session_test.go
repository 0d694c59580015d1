package ui

import (
	"context"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"talaria/loop"
)

// watched runs a model in the real program and lets the test wait, on
// the test goroutine, for a condition checked after every Update on the
// program's goroutine.
type watched struct {
	*Model
	mu   sync.Mutex
	cond func(*Model) bool
	hit  chan struct{}
	p    *tea.Program
}

// nudgeMsg makes the program run an Update, so a new condition is checked
// against the current state.
type nudgeMsg struct{}

func (w *watched) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := w.Model.Update(msg)
	w.mu.Lock()
	if w.cond != nil && w.cond(w.Model) {
		close(w.hit)
		w.cond = nil
	}
	w.mu.Unlock()
	return w, cmd
}

// runWatched starts the program; it quits when the test ends.
func runWatched(t *testing.T, m *Model) *watched {
	t.Helper()
	w := &watched{Model: m}
	t.Cleanup(m.shutdown) // runs after the program quit (below)
	w.p = tea.NewProgram(w, tea.WithInput(nil), tea.WithOutput(&strings.Builder{}), tea.WithWindowSize(80, 24),
		tea.WithoutSignals())
	done := make(chan struct{})
	go func() { _, _ = w.p.Run(); close(done) }()
	t.Cleanup(func() {
		w.p.Quit()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("the program did not quit")
		}
	})
	return w
}

// until blocks until cond holds after an Update; cond runs on the
// program's goroutine, so it may read the model and copy what the test
// checks afterwards.
func (w *watched) until(t *testing.T, what string, cond func(*Model) bool) {
	t.Helper()
	hit := make(chan struct{})
	w.mu.Lock()
	w.cond, w.hit = cond, hit
	w.mu.Unlock()
	w.p.Send(nudgeMsg{})
	select {
	case <-hit:
	case <-time.After(5 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

// typeLine types text and presses Enter in the running program.
func (w *watched) typeLine(text string) {
	for _, r := range text {
		w.p.Send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	w.p.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
}

// TestNewSessionOnTheSameChannel: /new hands back the channel the screen
// already drains (the wiring shares one channel between sessions). The
// screen keeps its one wait on it; a second wait would take the next
// turn's first batch and drop it as stale.
func TestNewSessionOnTheSameChannel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events, sink := EventChannel(ctx, 0)
	agent := &scriptAgent{sink: sink}
	p := portOf(agent)
	p.OnNew = func(context.Context) (Session, error) {
		return Session{ID: "5e55104e0002", Provider: "demo", Model: "script"}, nil
	}
	w := runWatched(t, New(Options{Port: p, Events: events, Provider: "demo", Model: "script", NoColor: true}))
	w.typeLine("/new")
	w.until(t, "the switch", func(m *Model) bool { return m.width > 0 && m.ses.id == "5e55104e0002" && m.pending == "" })
	w.typeLine("hi")
	var number int
	var screen string
	w.until(t, "the turn to end", func(m *Model) bool {
		number, screen = m.turn.number, plain(m.View().Content)
		return m.turn.number == 1 && !m.turn.busy
	})
	if number != 1 {
		t.Errorf("turn.started was lost: turn number %d", number)
	}
	contains(t, screen, "› hi", "● Hello, world", "done · 1 API call")
}

// goCmd runs cmd in the background the way the runtime would and hands
// back what it returns (a callback that blocks is waited for).
func goCmd(cmd tea.Cmd) <-chan []tea.Msg {
	out := make(chan []tea.Msg, 1)
	go func() { out <- execCmdWait(cmd, 10*time.Second) }()
	return out
}

// blockingCommands are session commands that wait for release; new and
// resume switch to session 5e55104e0004 (on the same agent: the wiring
// forwards to the session it switched to).
func blockingCommands(release <-chan struct{}) func(*Options) {
	session := func() (Session, error) { <-release; return Session{ID: "5e55104e0004"}, nil }
	return func(o *Options) {
		p := fake(o)
		p.OnNew = func(context.Context) (Session, error) { return session() }
		p.OnResume = func(context.Context, string) (Session, error) { return session() }
		p.OnModel = func(context.Context, string) (string, string, error) { <-release; return "openai", "gpt-5", nil }
		p.OnCompress = func(context.Context) error { <-release; return nil }
	}
}

// TestEnterQueuesWhileSessionCommandRuns: while /new, /resume, /model or
// /compress is still running, Enter queues the message (a turn would run
// on the agent being replaced, or be refused while compressing); it is
// sent, on the new session's agent, once the command's result is in.
func TestEnterQueuesWhileSessionCommandRuns(t *testing.T) {
	for _, c := range []string{"/new", "/resume 5e55", "/model openai/gpt-5", "/compress"} {
		t.Run(c, func(t *testing.T) {
			release := make(chan struct{})
			h := newHarness(t, blockingCommands(release))
			h.typeText(c)
			_, cmd := h.m.Update(keyMsg("enter"))
			res := goCmd(cmd)
			h.typeText("hello")
			h.key("enter")
			h.typeText("/new")
			h.settle(keyMsg("enter"))
			if got := h.agent.got(); len(got) != 0 || h.m.turn.busy || !reflect.DeepEqual(h.m.turn.queue, []string{"hello"}) {
				t.Fatalf("a turn started while %s ran: busy %v, calls %q, queue %q", c, h.m.turn.busy, got, h.m.turn.queue)
			}
			name, _, _ := strings.Cut(c, " ")
			contains(t, h.screen(), "queued: "+name+" is still running", "⏎ queued · next turn: hello", "/new refused: "+name+" is still running")
			close(release)
			for _, msg := range <-res {
				h.settle(msg)
			}
			if got := h.agent.got(); !reflect.DeepEqual(got, []string{"run:hello"}) || h.m.pending != "" || len(h.m.turn.queue) != 0 {
				t.Errorf("after %s: calls %q, pending %q, queue %q", c, got, h.m.pending, h.m.turn.queue)
			}
		})
	}
}

// TestPickerResumeIsPending: resuming from the picker is a session
// command too.
func TestPickerResumeIsPending(t *testing.T) {
	release := make(chan struct{})
	h, _ := pickerHarness(t, pickerSessions())
	h.port.OnResume = func(context.Context, string) (Session, error) { <-release; return Session{ID: "5e55104e0004"}, nil }
	h.command("/sessions")
	_, cmd := h.m.Update(keyMsg("enter"))
	res := goCmd(cmd)
	h.typeText("hello")
	h.key("enter")
	if h.m.turn.busy || len(h.m.turn.queue) != 1 {
		t.Errorf("a turn started while resuming: busy %v, queue %q", h.m.turn.busy, h.m.turn.queue)
	}
	close(release)
	for _, msg := range <-res {
		h.settle(msg)
	}
	if h.m.pending != "" || h.m.ses.id != "5e55104e0004" {
		t.Errorf("pending %q, session %q", h.m.pending, h.m.ses.id)
	}
}

// TestSessionSwitchRefusedWhileTurnRuns: a switch that lands while a turn
// runs (one the agent started itself) does not reset the screen under it.
func TestSessionSwitchRefusedWhileTurnRuns(t *testing.T) {
	release := make(chan struct{})
	h := newHarness(t, blockingCommands(release))
	h.typeText("/new")
	_, cmd := h.m.Update(keyMsg("enter"))
	res := goCmd(cmd)
	h.events(turnStarted(1, "started elsewhere"))
	close(release)
	for _, msg := range <-res {
		h.settle(msg)
	}
	if h.m.agent != Port(h.port) || h.m.ses.id != "0a1b2c3d4e5f" || !h.m.turn.busy {
		t.Errorf("switched during a turn: session %q, busy %v", h.m.ses.id, h.m.turn.busy)
	}
	contains(t, h.screen(), "› started elsewhere", "the session was not switched on screen")
}

// TestLateTurnFinishedIgnoredByNextTurn: turn 1 finished and the queued
// turn started; a stray event of turn 1 arriving now (a duplicate
// turn.finished) must not settle the new one.
func TestLateTurnFinishedIgnoredByNextTurn(t *testing.T) {
	h := newHarness(t)
	h.startBusy()
	h.events(turnStarted(1, "first"))
	h.typeText("next")
	h.key("tab")
	h.endTurn(1, "")
	wantCalls(t, h, "run:first", "run:next")
	h.events(&loop.TurnFinished{Header: hdr(loop.TypeTurnFinished, 1, time.Second), ExitReason: loop.ExitTextResponse("stop"), Completed: true})
	if !h.m.turn.busy || strings.Count(h.screen(), "done ·") != 1 {
		t.Errorf("the late turn.finished settled the next turn (busy %v)", h.m.turn.busy)
	}
	h.events(turnStarted(2, "next"), &loop.TurnFinished{Header: hdr(loop.TypeTurnFinished, 2, 2*time.Second), Completed: true, APICalls: 1})
	if h.m.turn.busy || h.m.turn.number != 2 {
		t.Errorf("the next turn's own events were dropped (number %d, busy %v)", h.m.turn.number, h.m.turn.busy)
	}
}

// TestTabBlankNotQueued: Tab while busy does not queue blank input.
func TestTabBlankNotQueued(t *testing.T) {
	h := newHarness(t)
	h.startBusy()
	h.typeText("   ")
	h.key("tab")
	if len(h.m.turn.queue) != 0 {
		t.Errorf("blank input queued: %q", h.m.turn.queue)
	}
}
