package ui

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"talaria/tools"
)

// shellFake runs !cmd for a fake port.
type shellFake struct {
	mu   sync.Mutex
	cmds []string
	res  tools.Result
}

func (s *shellFake) Shell(_ context.Context, command string) (tools.Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cmds = append(s.cmds, command)
	return s.res, nil
}

// TestBangRunsShellAndFeedsNextMessage: !cmd runs through the agent's
// Shell (no approval: the user typed it), shows the output, and the next message
// carries it to the model.
func TestBangRunsShellAndFeedsNextMessage(t *testing.T) {
	sf := &shellFake{res: tools.Result{Output: "main.go\nREADME.md\n"}}
	h := newHarness(t, func(o *Options) { fake(o).OnShell = sf.Shell })
	h.command("!ls")
	if len(sf.cmds) != 1 || sf.cmds[0] != "ls" {
		t.Fatalf("shell calls %q", sf.cmds)
	}
	contains(t, h.screen(), "! ls", "main.go", "README.md", "goes to the model with your next message")
	h.typeText("what is here?")
	h.key("enter")
	calls := h.agent.got()
	if len(calls) != 1 || !strings.Contains(calls[0], "<shell command=\"ls\">\nmain.go\nREADME.md\n</shell>\n\nwhat is here?") {
		t.Fatalf("sent %q", calls)
	}
	h.endTurn(1, "")
	h.typeText("and now?")
	h.key("enter")
	if calls := h.agent.got(); strings.Contains(calls[len(calls)-1], "<shell") {
		t.Fatalf("the output was sent twice: %q", calls[len(calls)-1])
	}

	for in, want := range map[string]bool{"!ls -la": true, "!": false, "hello !x": false} {
		name, _, ok := parseCommand(in)
		if (ok && name == "!") != want {
			t.Errorf("parseCommand(%q) = %q %v", in, name, ok)
		}
	}
}

// TestBangRefusedDuringTurn: a turn is running, so !cmd is refused.
func TestBangRefusedDuringTurn(t *testing.T) {
	sf := &shellFake{}
	h := newHarness(t, func(o *Options) { fake(o).OnShell = sf.Shell })
	h.startBusy()
	h.command("!ls")
	if len(sf.cmds) != 0 {
		t.Fatal("the shell ran during a turn")
	}
	contains(t, h.screen(), "!ls refused: a turn is running")
}

// liveShell writes its output live, then waits for release.
type liveShell struct {
	release chan struct{}
}

func (s *liveShell) Shell(ctx context.Context, command string) (tools.Result, error) {
	if w := tools.Output(ctx); w != nil {
		_, _ = w.Write([]byte("compiling…\n"))
	}
	<-s.release
	return tools.Result{Output: "compiling…\nok  talaria 0.1s\n"}, nil
}

// TestBangShowsOutputLive: a running !cmd has a lane whose output shows
// while it runs; at its end the card settles and the output is kept for
// the next message.
func TestBangShowsOutputLive(t *testing.T) {
	ls := &liveShell{release: make(chan struct{})}
	h := newHarness(t, func(o *Options) { fake(o).OnShell = ls.Shell })
	h.typeText("!go test")
	// The command itself blocks until release: its output arrives first.
	msgs := execCmdWait(func() tea.Msg { _, c := h.m.Update(keyMsg("enter")); return c() }, 2*time.Second)
	var done tea.Cmd
	for _, msg := range msgs {
		if o, ok := msg.(shellOutputMsg); ok {
			_, done = h.m.Update(o)
		}
	}
	contains(t, h.screen(), "! go test", "│ compiling…")
	if strings.Contains(h.screen(), "goes to the model") {
		t.Fatal("settled before the command ended")
	}
	close(ls.release)
	for _, msg := range execCmdWait(done, 5*time.Second) {
		h.send(msg)
	}
	contains(t, h.screen(), "✓ ! go test", "│ ok  talaria 0.1s", "goes to the model with your next message")
	if len(h.m.comp.shellOut) != 1 {
		t.Errorf("kept %d outputs", len(h.m.comp.shellOut))
	}
}
