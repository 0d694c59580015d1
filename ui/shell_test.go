package ui

import (
	"context"
	"strings"
	"sync"
	"testing"

	"talaria/tools"
)

// shellFake is a fake agent that also runs !cmd.
type shellFake struct {
	*fakeAgent
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
// Shell (which asks for approval), shows the output, and the next message
// carries it to the model.
func TestBangRunsShellAndFeedsNextMessage(t *testing.T) {
	sf := &shellFake{res: tools.Result{Output: "main.go\nREADME.md\n"}}
	h := newHarness(t)
	sf.fakeAgent = h.agent
	h.m.agent = sf
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
	h := newHarness(t)
	sf.fakeAgent = h.agent
	h.m.agent = sf
	h.startBusy()
	h.command("!ls")
	if len(sf.cmds) != 0 {
		t.Fatal("the shell ran during a turn")
	}
	contains(t, h.screen(), "!ls refused: a turn is running")
}
