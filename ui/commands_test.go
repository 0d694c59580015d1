package ui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"talaria/loop"
	"talaria/providers"
)

// command types text and presses Enter, feeding back command results.
func (h *harness) command(text string) {
	h.typeText(text)
	h.settle(keyMsg("enter"))
}

func TestParseCommand(t *testing.T) {
	cases := []struct {
		in, name, args string
		ok             bool
	}{
		{"/help", "help", "", true},
		{"  /steer  use tabs ", "steer", "use tabs", true},
		{"/exit", "quit", "", true},
		{"/THEME light", "theme", "light", true},
		{"/usr/bin is missing", "", "", false},
		{"/foo bar", "foo", "bar", true},
		{"hello /help", "", "", false},
		{"/", "", "", false},
	}
	for _, c := range cases {
		name, args, ok := parseCommand(c.in)
		if name != c.name || args != c.args || ok != c.ok {
			t.Errorf("parseCommand(%q) = %q, %q, %v", c.in, name, args, ok)
		}
	}
}

func TestHelpAndUnknown(t *testing.T) {
	h := newHarness(t)
	h.size(80, 90)
	h.command("/help")
	contains(t, h.screen(), "shift+enter/ctrl+j", "/resume [ID]", "while a turn runs, enter does: steer")
	h.command("/frobnicate")
	contains(t, h.screen(), "unknown command /frobnicate")
	wantCalls(t, h)
}

func TestQuitCommand(t *testing.T) {
	h := newHarness(t)
	h.startBusy()
	h.typeText("/quit")
	if !hasQuit(h.key("enter")) {
		t.Fatal("/quit did not quit")
	}
	wantCalls(t, h, "run:first", "interrupt")
}

func TestStopSteerQueueCommands(t *testing.T) {
	h := newHarness(t)
	h.command("/stop")
	contains(t, h.screen(), "no turn is running")
	h.command("/steer")
	contains(t, h.screen(), "usage: /steer TEXT")

	h.startBusy()
	h.command("/steer prefer small diffs")
	h.command("/queue write docs")
	h.command("/stop")
	wantCalls(t, h, "run:first", "steer:prefer small diffs", "interrupt")
	if len(h.m.turn.queue) != 1 || h.m.turn.queue[0] != "write docs" {
		t.Errorf("queue = %q", h.m.turn.queue)
	}
}

func TestSteerAndQueueWhileIdleSend(t *testing.T) {
	for _, c := range []string{"/steer", "/queue"} {
		h := newHarness(t)
		h.command(c + " do it")
		wantCalls(t, h, "run:do it")
	}
}

func TestThemeCommand(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.NoColor = false })
	gen := h.m.look.gen
	h.command("/theme light")
	if h.m.look.theme.Name != "light" || h.m.look.gen == gen {
		t.Errorf("theme = %s (gen %d→%d)", h.m.look.theme.Name, gen, h.m.look.gen)
	}
	h.command("/theme nope")
	contains(t, h.screen(), `unknown theme "nope"`)
	h.command("/theme")
	contains(t, h.screen(), "theme: light · available: dark, high-contrast, light, solarized, auto")
	h.command("/theme auto")
	if h.m.look.theme.Name != "dark" {
		t.Errorf("auto on an unknown background = %s, want dark", h.m.look.theme.Name)
	}
}

func TestThemeUnderNoColor(t *testing.T) {
	h := newHarness(t)
	h.command("/theme light")
	if !h.m.look.theme.NoColor {
		t.Error("NO_COLOR lost after /theme")
	}
	contains(t, h.screen(), "NO_COLOR is set")
}

func TestUsageCommand(t *testing.T) {
	h := newHarness(t)
	h.size(120, 24)
	h.events(turnStarted(1, "x"),
		&loop.TurnFinished{Header: hdr(loop.TypeTurnFinished, 1, 0), Completed: true,
			Usage: providers.Usage{InputTokens: 12000, OutputTokens: 3400, CacheReadTokens: 800, ReasoningTokens: 50}},
	)
	h.command("/usage")
	contains(t, h.screen(), "usage · input 12.0k · output 3.4k · cache read 800 · cache write 0 · reasoning 50")
}

func TestExternalCommandsUnavailable(t *testing.T) {
	h := newHarness(t)
	h.size(80, 40)
	for _, c := range []string{"/new", "/resume abc", "/sessions", "/model gpt-5", "/compress"} {
		h.command(c)
		name, _, _ := strings.Cut(c, " ")
		contains(t, h.screen(), name+" is not available yet")
	}
}

func TestExternalCommands(t *testing.T) {
	var resumed string
	h := newHarness(t, func(o *Options) {
		p := fake(o)
		p.OnNew = func(context.Context) (Session, error) {
			return Session{ID: "ffff0000aaaa", Provider: "openai", Model: "gpt-4.1"}, nil
		}
		p.OnResume = func(_ context.Context, id string) (Session, error) {
			resumed = id
			return Session{ID: id, History: []providers.Message{{Role: providers.RoleUser, Content: "old question"}}}, nil
		}
		p.OnSessions = func(context.Context) ([]SessionInfo, error) {
			return []SessionInfo{{ID: "abcdef123456", Title: "fix parser", Updated: t0, Messages: 12}}, nil
		}
		p.OnModel = func(_ context.Context, spec string) (string, string, error) {
			p, n, _ := strings.Cut(spec, "/")
			return p, n, nil
		}
		p.OnCompress = func(context.Context) error { return errors.New("nothing to compress") }
	})
	h.size(80, 40)
	h.command("/sessions")
	contains(t, h.screen(), "Resume a session · 1 of 1", "abcdef12  fix parser")
	h.key("esc")
	if h.m.modal.picker != nil {
		t.Fatal("esc did not close the picker")
	}
	h.command("/model anthropic/claude-sonnet-4-5")
	contains(t, h.m.statusView, "anthropic/claude-sonnet-4-5")
	h.command("/compress")
	contains(t, h.screen(), "/compress: nothing to compress")
	h.command("/resume abcdef")
	if resumed != "abcdef" {
		t.Errorf("resume got id %q", resumed)
	}
	contains(t, h.screen(), "› old question")
	if strings.Contains(h.screen(), "fix parser") {
		t.Error("transcript not replaced on resume")
	}
	h.command("/new")
	if h.m.ses.id != "ffff0000aaaa" {
		t.Error("/new did not switch the session id")
	}
	contains(t, h.screen(), "new session ffff0000")

	h.typeText("go")
	h.key("enter")
	h.command("/model x/y")
	contains(t, h.screen(), "/model refused: a turn is running")
	wantCalls(t, h, "run:go")
}

func TestPopupCompletionEnter(t *testing.T) {
	h := newHarness(t)
	h.size(80, 40)
	h.typeText("/s")
	contains(t, h.m.popupView, "/stop", "/steer TEXT", "/sessions")
	h.key("down")
	h.key("down")
	contains(t, plain(h.m.popupView), "/sessions")
	h.settle(keyMsg("enter"))
	contains(t, h.screen(), "/sessions is not available yet")
	if h.m.comp.value() != "" {
		t.Errorf("input after running a completion: %q", h.m.comp.value())
	}
}

func TestPopupHiddenForMessages(t *testing.T) {
	h := newHarness(t)
	h.typeText("/usr/bin/env is missing")
	if h.m.popupView != "" {
		t.Errorf("popup shown for a path: %q", h.m.popupView)
	}
}

func TestHintExpires(t *testing.T) {
	h := newHarness(t)
	h.key("ctrl+c")
	contains(t, h.screen(), "ctrl+c again to quit")
	h.clk.advance(3 * time.Second)
	h.send(frameMsg{})
	if strings.Contains(h.screen(), "again to quit") {
		t.Error("hint did not expire")
	}
	if h.m.ui.ticking {
		t.Error("frame tick still running with nothing moving")
	}
}
