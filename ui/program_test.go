package ui

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"talaria/loop"
	"talaria/providers"
)

// scriptAgent plays a short turn through the sink, the way loop.Agent
// does (here synchronously, from Start).
type scriptAgent struct {
	mu     sync.Mutex
	sink   loop.Sink
	turns  int
	steers []string
}

func (s *scriptAgent) Start(_ context.Context, input string) error {
	s.mu.Lock()
	s.turns++
	n := s.turns
	s.mu.Unlock()
	h := func(typ string) loop.Header {
		return loop.Header{Type: typ, SessionID: "s1", TS: loop.Timestamp(time.Now()), Turn: n}
	}
	s.sink(&loop.TurnStarted{Header: h(loop.TypeTurnStarted), Input: input})
	s.sink(&loop.IterationStarted{Header: h(loop.TypeIterationStarted), Iteration: 1, BudgetUsed: 1, BudgetMax: 90})
	for _, w := range []string{"Hello", ", ", "**world**"} {
		s.sink(&loop.MessageDelta{Header: h(loop.TypeMessageDelta), Text: w})
	}
	s.sink(&loop.MessageCompleted{Header: h(loop.TypeMessageCompleted), Content: "Hello, **world**", Usage: providers.Usage{InputTokens: 10, OutputTokens: 3}})
	s.sink(&loop.TurnFinished{Header: h(loop.TypeTurnFinished), ExitReason: loop.ExitTextResponse("stop"), Completed: true, FinalResponse: "Hello, **world**", APICalls: 1})
	return nil
}

func (s *scriptAgent) Steer(text string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.steers = append(s.steers, text)
	return len(s.steers)
}

func (s *scriptAgent) Interrupt() {}

// TestProgramEndToEnd runs the real Bubble Tea program (no terminal):
// type, send, let the scripted agent stream an answer through the event
// channel, quit with two Ctrl+C.
func TestProgramEndToEnd(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events, sink := EventChannel(ctx, 0)
	agent := &scriptAgent{sink: sink}
	m := New(Options{Port: portOf(agent), Events: events, Provider: "demo", Model: "script", NoColor: true})
	defer m.shutdown() // what ui.Run does when the program ends

	answered := make(chan struct{})
	var once sync.Once
	filter := func(model tea.Model, msg tea.Msg) tea.Msg {
		if mm, ok := model.(*Model); ok && mm.width > 0 && !mm.turn.busy && mm.ses.lastAnswer != "" { // the size may come late
			once.Do(func() { close(answered) })
		}
		return msg
	}
	var out bytes.Buffer
	p := tea.NewProgram(m, tea.WithInput(nil), tea.WithOutput(&out), tea.WithWindowSize(80, 24),
		tea.WithoutSignals(), tea.WithFilter(filter), tea.WithContext(ctx))
	done := make(chan tea.Model, 1)
	go func() {
		final, err := p.Run()
		if err != nil {
			t.Errorf("program: %v", err)
		}
		done <- final
	}()
	for _, r := range "hi" {
		p.Send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	p.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	select {
	case <-answered:
	case <-time.After(5 * time.Second):
		t.Fatal("no answer within 5s")
	}
	p.Send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	p.Send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	var final tea.Model
	select {
	case final = <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("two ctrl+c did not quit")
	}
	fm := final.(*Model)
	screen := plain(fm.View().Content)
	contains(t, screen, "› hi", "● Hello, world", "done · 1 API call")
	if !strings.Contains(out.String(), "\x1b[?1049h") {
		t.Error("the program did not switch to the alternate screen")
	}
}
