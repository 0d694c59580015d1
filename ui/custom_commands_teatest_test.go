package ui

import (
	"bytes"
	"context"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// TestTeatestCustomCommand runs the real program: /help lists a custom
// command, /review main.go runs a turn whose input is the expansion while
// the screen shows what was typed.
func TestTeatestCustomCommand(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events, sink := EventChannel(ctx, 0)
	agent := &streamingAgent{sink: sink}
	var expanded []string
	opts := Options{Port: portOf(agent), Events: events, Provider: "openai", Model: "gpt-4.1", NoColor: true, MaxIterations: 90}
	testExtensions(&expanded)(&opts)
	m := New(opts)
	defer m.shutdown()
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 60))
	wait := func(s string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(s)) }, teatest.WithDuration(10*time.Second))
	}
	wait("Ask anything")
	tm.Type("/help")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	wait("review a file for bugs")
	tm.Type("/review main.go")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	wait("answer.")
	tm.Type("/quit")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
	if got := agent.got(); len(got) != 1 || got[0] != "run:EXPANDED review with main.go" {
		t.Fatalf("agent calls: %v", got)
	}
}
