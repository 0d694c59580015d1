package ui

import (
	"context"
	"strings"
	"testing"
)

// TestCommandAliases: the peer names run our commands (CONTRACT.md
// "Command aliases").
func TestCommandAliases(t *testing.T) {
	for alias, want := range commandAliases() {
		name, _, ok := parseCommand("/" + alias)
		if !ok || name != want {
			t.Errorf("/%s parsed as %q %v, want %q", alias, name, ok, want)
		}
	}
	newCalls := 0
	h := newHarness(t, func(o *Options) {
		fake(o).OnNew = func(context.Context) (Session, error) {
			newCalls++
			return Session{ID: "20261201_153012_3fa9c1"}, nil
		}
	})
	h.command("/clear")
	if newCalls != 1 {
		t.Fatalf("/clear ran /new %d times", newCalls)
	}
	h.command("/cost")
	contains(t, h.screen(), "usage · input")
	h.typeText("/exit")
	if !hasQuit(h.key("enter")) {
		t.Fatal("/exit did not quit")
	}
}

func TestUnknownCommandSuggests(t *testing.T) {
	for in, want := range map[string]string{
		"modle": "model", "hlep": "help", "sesions": "sessions", "comapct": "compact",
		"stat": "status", "resum": "resume",
	} {
		if got := suggestCommand(in); got != want {
			t.Errorf("suggestCommand(%q) = %q, want %q", in, got, want)
		}
	}
	if got := suggestCommand("frobnicate"); got != "" {
		t.Errorf("frobnicate suggests %q", got)
	}
	h := newHarness(t)
	h.command("/modle gpt-5")
	contains(t, h.screen(), "unknown command /modle · did you mean /model?")
	wantCalls(t, h)
}

// TestStatusCommand: /status shows the session, model, cwd and context.
func TestStatusCommand(t *testing.T) {
	h := newHarness(t)
	h.size(80, 30)
	h.typeText("fix the parser")
	h.key("enter")
	h.endTurn(1, "")
	h.command("/status")
	contains(t, h.screen(), "status", "session    0a1b2c3d4e5f · fix the parser", "model      openai/gpt-4.1", "cwd        /work/repo", "state      idle")
}

// TestInitCommand: /init is a model turn asking for AGENTS.md; refused,
// not queued, while a turn runs.
func TestInitCommand(t *testing.T) {
	h := newHarness(t)
	h.command("/init")
	calls := h.agent.got()
	if len(calls) != 1 || !strings.HasPrefix(calls[0], "run:/init: create AGENTS.md") {
		t.Fatalf("calls = %q", calls)
	}
	h2 := newHarness(t)
	h2.startBusy()
	h2.command("/init")
	contains(t, h2.screen(), "/init refused: a turn is running")
	wantCalls(t, h2, "run:first")
}

// TestModelWithoutProviderSaysHowToPick: /model with no provider yet says
// how to pick one instead of printing an empty model.
func TestModelWithoutProviderSaysHowToPick(t *testing.T) {
	h := newHarness(t, func(o *Options) {
		o.Provider, o.Model = "", ""
		fake(o).OnModel = func(context.Context, string) (string, string, error) { return "openai", "gpt-4.1", nil }
	})
	h.size(120, 30)
	h.command("/model")
	contains(t, h.screen(), "no provider yet · /model PROVIDER/NAME picks one", "no provider · /model picks one")
}
