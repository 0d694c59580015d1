package ui

import (
	"bytes"
	"context"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"talaria/loop"
)

// streamingAgent answers each Start by emitting a turn's events into the
// channel the screen drains, like the real agent's sink.
type streamingAgent struct {
	fakeAgent
	sink loop.Sink
}

func (s *streamingAgent) Start(ctx context.Context, input string) error {
	s.record("run:" + input)
	emit := func(e loop.Event, typ string) {
		h := e.Meta()
		h.Type, h.SessionID, h.Turn, h.TS = typ, "s", 1, loop.Timestamp(time.Now())
		s.sink(e)
	}
	emit(&loop.TurnStarted{Input: input}, loop.TypeTurnStarted)
	emit(&loop.IterationStarted{Iteration: 1, BudgetUsed: 1, BudgetMax: 90}, loop.TypeIterationStarted)
	for _, w := range []string{"Smoke ", "test ", "answer."} {
		emit(&loop.MessageDelta{Text: w}, loop.TypeMessageDelta)
	}
	emit(&loop.MessageCompleted{Content: "Smoke test answer.", FinishReason: "stop"}, loop.TypeMessageCompleted)
	emit(&loop.TurnFinished{ExitReason: loop.ExitTextResponse("stop"), Completed: true, FinalResponse: "Smoke test answer.", APICalls: 1}, loop.TypeTurnFinished)
	return nil
}

// TestTeatestSmokeTypeAndAnswer runs the real program: type a prompt,
// press Enter, see the streamed answer, quit with /quit.
func TestTeatestSmokeTypeAndAnswer(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events, sink := EventChannel(ctx, 0)
	agent := &streamingAgent{sink: sink}
	m := New(Options{Port: portOf(agent), Events: events, Provider: "openai", Model: "gpt-4.1", NoColor: true, MaxIterations: 90})
	defer m.shutdown() // what ui.Run does when the program ends
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("Ask anything")) }, teatest.WithDuration(10*time.Second))
	tm.Type("hello there")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("answer.")) }, teatest.WithDuration(10*time.Second))
	tm.Type("/quit")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
	if got := agent.got(); len(got) != 1 || got[0] != "run:hello there" {
		t.Fatalf("agent calls: %v", got)
	}
}
