package ui

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"talaria/loop"
)

// startBusy sends a first message so a turn is running.
func (h *harness) startBusy() {
	h.t.Helper()
	h.typeText("first")
	h.key("enter")
	if !h.m.turn.busy {
		h.t.Fatal("turn not busy after enter")
	}
}

// endTurn delivers turn.finished, the one end signal.
func (h *harness) endTurn(turn int, pendingSteer string) {
	h.t.Helper()
	h.settle(eventsMsg{closed: true, evs: []loop.Event{
		&loop.TurnFinished{Header: hdr(loop.TypeTurnFinished, turn, 5*time.Second), ExitReason: loop.ExitTextResponse("stop"), Completed: true, PendingSteer: pendingSteer},
	}})
}

func wantCalls(t *testing.T, h *harness, want ...string) {
	t.Helper()
	if got := h.agent.got(); !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
		t.Errorf("agent calls = %q, want %q", got, want)
	}
}

func hasQuit(msgs []tea.Msg) bool {
	for _, m := range msgs {
		if _, ok := m.(tea.QuitMsg); ok {
			return true
		}
	}
	return false
}

func TestEnterIdleSends(t *testing.T) {
	h := newHarness(t)
	h.typeText("hello there")
	h.key("enter")
	wantCalls(t, h, "run:hello there")
	if !h.m.turn.busy || h.m.comp.value() != "" {
		t.Errorf("busy=%v input=%q after send", h.m.turn.busy, h.m.comp.value())
	}
	contains(t, h.screen(), "› hello there", "esc to interrupt")
}

func TestEnterIdleEmptyDoesNothing(t *testing.T) {
	h := newHarness(t)
	h.typeText("   ")
	h.key("enter")
	wantCalls(t, h)
	if h.m.turn.busy {
		t.Error("blank input started a turn")
	}
}

func TestEnterBusyModes(t *testing.T) {
	for _, mode := range []string{"", BusySteer, BusyQueue, BusyInterrupt} {
		t.Run(fmt.Sprintf("mode=%q", mode), func(t *testing.T) {
			h := newHarness(t, func(o *Options) { o.BusyInputMode = mode })
			h.startBusy()
			h.typeText("use tabs")
			h.key("enter")
			switch mode {
			case "", BusySteer:
				wantCalls(t, h, "run:first", "steer:use tabs")
				contains(t, h.screen(), "↳ steer · sending… use tabs") // pending once steer.queued comes
			case BusyQueue:
				wantCalls(t, h, "run:first")
				contains(t, h.screen(), "⏎ queued · next turn: use tabs")
				h.endTurn(1, "")
				wantCalls(t, h, "run:first", "run:use tabs")
			case BusyInterrupt:
				wantCalls(t, h, "run:first", "interrupt")
				h.endTurn(1, "")
				wantCalls(t, h, "run:first", "interrupt", "run:use tabs")
			}
		})
	}
}

func TestTabBusyQueuesIdleCompletes(t *testing.T) {
	h := newHarness(t)
	h.typeText("/he")
	h.key("tab")
	if got := h.m.comp.value(); got != "/help" {
		t.Errorf("tab completed to %q, want /help", got)
	}
	h.m.comp.clear()
	h.typeText("/ste")
	h.key("tab")
	if got := h.m.comp.value(); got != "/steer " {
		t.Errorf("tab completed to %q, want \"/steer \"", got)
	}
	h.m.comp.clear()

	h.startBusy()
	h.typeText("then run the linter")
	h.key("tab")
	wantCalls(t, h, "run:first")
	if !reflect.DeepEqual(h.m.turn.queue, []string{"then run the linter"}) {
		t.Errorf("queue = %q", h.m.turn.queue)
	}
	h.endTurn(1, "")
	wantCalls(t, h, "run:first", "run:then run the linter")
	if len(h.m.turn.queue) != 0 {
		t.Errorf("queue not drained: %q", h.m.turn.queue)
	}
}

func TestEsc(t *testing.T) {
	t.Run("idle clears input", func(t *testing.T) {
		h := newHarness(t)
		h.typeText("draft")
		h.key("esc")
		if h.m.comp.value() != "" {
			t.Errorf("input = %q", h.m.comp.value())
		}
		wantCalls(t, h)
	})
	t.Run("closes the popup first", func(t *testing.T) {
		h := newHarness(t)
		h.typeText("/th")
		if h.m.popupView == "" {
			t.Fatal("popup not shown for /th")
		}
		h.key("esc")
		if h.m.popupView != "" || h.m.comp.value() != "/th" {
			t.Errorf("popup=%q input=%q", h.m.popupView, h.m.comp.value())
		}
	})
	t.Run("busy interrupts", func(t *testing.T) {
		h := newHarness(t)
		h.startBusy()
		h.typeText("keep me")
		h.key("esc")
		wantCalls(t, h, "run:first", "interrupt")
		if h.m.comp.value() != "keep me" {
			t.Errorf("esc while busy lost the draft: %q", h.m.comp.value())
		}
	})
}

func TestCtrlC(t *testing.T) {
	t.Run("idle clears then quits", func(t *testing.T) {
		h := newHarness(t)
		h.typeText("draft")
		if hasQuit(h.key("ctrl+c")) {
			t.Fatal("first ctrl+c quit")
		}
		if h.m.comp.value() != "" {
			t.Errorf("input not cleared: %q", h.m.comp.value())
		}
		contains(t, h.screen(), "ctrl+c again to quit")
		h.clk.advance(time.Second)
		if !hasQuit(h.key("ctrl+c")) {
			t.Error("second ctrl+c within 2s did not quit")
		}
	})
	t.Run("idle presses far apart do not quit", func(t *testing.T) {
		h := newHarness(t)
		h.key("ctrl+c")
		h.clk.advance(3 * time.Second)
		if hasQuit(h.key("ctrl+c")) {
			t.Error("ctrl+c 3s apart quit")
		}
	})
	t.Run("another key resets the count", func(t *testing.T) {
		h := newHarness(t)
		h.key("ctrl+c")
		h.typeText("x")
		if hasQuit(h.key("ctrl+c")) {
			t.Error("ctrl+c, x, ctrl+c quit")
		}
	})
	t.Run("busy interrupts then quits", func(t *testing.T) {
		h := newHarness(t)
		h.startBusy()
		if hasQuit(h.key("ctrl+c")) {
			t.Fatal("first busy ctrl+c quit")
		}
		wantCalls(t, h, "run:first", "interrupt")
		h.clk.advance(1500 * time.Millisecond)
		if !hasQuit(h.key("ctrl+c")) {
			t.Error("second busy ctrl+c within 2s did not quit")
		}
	})
}

func TestNewlineKeys(t *testing.T) {
	for _, k := range []string{"shift+enter", "ctrl+j"} {
		h := newHarness(t)
		h.typeText("a")
		h.key(k)
		h.typeText("b")
		if got := h.m.comp.value(); got != "a\nb" {
			t.Errorf("%s: input = %q", k, got)
		}
		wantCalls(t, h)
	}
	h := newHarness(t)
	h.startBusy()
	h.typeText("x")
	h.key("ctrl+j")
	h.typeText("y")
	if got := h.m.comp.value(); got != "x\ny" {
		t.Errorf("busy newline: input = %q", got)
	}
}

func TestHistory(t *testing.T) {
	h := newHarness(t)
	for _, s := range []string{"one", "two"} {
		h.typeText(s)
		h.key("enter")
		h.endTurn(h.m.turn.number, "")
	}
	h.typeText("dra")
	h.key("up")
	if got := h.m.comp.value(); got != "two" {
		t.Fatalf("up = %q, want two", got)
	}
	h.key("up")
	if got := h.m.comp.value(); got != "one" {
		t.Fatalf("up up = %q, want one", got)
	}
	h.key("down")
	h.key("down")
	if got := h.m.comp.value(); got != "dra" {
		t.Errorf("down down = %q, want the draft back", got)
	}
}

func TestUpDownInsideMultilineInput(t *testing.T) {
	h := newHarness(t)
	h.m.comp.history = []string{"old"}
	h.m.comp.histIdx = 1
	h.typeText("a")
	h.key("ctrl+j")
	h.typeText("b")
	h.key("up") // moves to the first line, not into history
	if got := h.m.comp.value(); got != "a\nb" {
		t.Fatalf("up on second line changed input to %q", got)
	}
	h.key("up") // now on the first line: history
	if got := h.m.comp.value(); got != "old" {
		t.Errorf("up on first line = %q, want old", got)
	}
}

func TestScrollKeysAndWheel(t *testing.T) {
	h := newHarness(t)
	for i := range 40 {
		h.m.notice(noticeInfo, fmt.Sprintf("line %d", i))
	}
	h.send(frameMsg{})
	h.key("pgup")
	if h.m.tr.follow {
		t.Fatal("pgup did not stop following")
	}
	contains(t, h.screen(), "more below")
	h.key("pgdown")
	h.key("pgdown")
	if !h.m.tr.follow {
		t.Error("pgdown to the end did not resume following")
	}
	h.send(tea.MouseWheelMsg{Button: tea.MouseWheelUp})
	if h.m.tr.follow {
		t.Error("wheel up did not scroll")
	}
	for range 5 {
		h.send(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	}
	if !h.m.tr.follow {
		t.Error("wheel down to the end did not resume following")
	}
}

func TestToggles(t *testing.T) {
	h := newHarness(t)
	if h.m.View().MouseMode != tea.MouseModeCellMotion {
		t.Error("mouse capture should start on")
	}
	h.key("ctrl+s")
	if h.m.View().MouseMode != tea.MouseModeNone {
		t.Error("ctrl+s did not release the mouse")
	}
	contains(t, h.screen(), "mouse off")
	h.key("ctrl+s")
	if h.m.View().MouseMode != tea.MouseModeCellMotion {
		t.Error("ctrl+s did not capture the mouse again")
	}

	h.events(
		&loop.TurnStarted{Header: hdr(loop.TypeTurnStarted, 1, 0), Input: "q"},
		&loop.MessageCompleted{Header: hdr(loop.TypeMessageCompleted, 1, 0), Reasoning: "step one\nstep two", Content: "ok"},
	)
	contains(t, h.screen(), "∴ thought · 4 words — step one")
	h.key("ctrl+o")
	contains(t, h.screen(), "│ step two")
	h.key("ctrl+o")
	if strings.Contains(h.screen(), "│ step two") {
		t.Error("ctrl+o did not collapse reasoning again")
	}
}

func TestLongPasteCollapsedButSentWhole(t *testing.T) {
	h := newHarness(t)
	long := strings.Repeat("line\n", 30)
	h.typeText("see: ")
	h.send(tea.PasteMsg{Content: long})
	if got := h.m.comp.value(); got != "see: [pasted 30 lines]" {
		t.Fatalf("composer shows %q", got)
	}
	contains(t, h.screen(), "[pasted 30 lines]")
	h.key("enter")
	wantCalls(t, h, "run:see: "+long)

	h2 := newHarness(t)
	h2.send(tea.PasteMsg{Content: "short paste"})
	if got := h2.m.comp.value(); got != "short paste" {
		t.Errorf("short paste = %q", got)
	}
	h2.send(tea.PasteMsg{Content: strings.Repeat("x", 1200)})
	h2.send(tea.PasteMsg{Content: strings.Repeat("y", 1200)})
	if got := h2.m.comp.value(); got != "short paste[pasted 1 lines][pasted 1 lines #2]" {
		t.Errorf("two long pastes = %q", got)
	}
	if got := h2.m.comp.expanded(); got != "short paste"+strings.Repeat("x", 1200)+strings.Repeat("y", 1200) {
		t.Errorf("expanded pastes lost text (len %d)", len(got))
	}
}

func TestTabWhileBusy(t *testing.T) {
	h := newHarness(t)
	h.startBusy()
	h.typeText("/us")
	h.key("tab")
	if got := h.m.comp.value(); got != "/usage" {
		t.Fatalf("tab on a command name while busy = %q, want completion", got)
	}
	h.key("esc") // closes the popup (it does not interrupt while the popup shows)
	h.key("tab")
	if len(h.m.turn.queue) != 1 || h.m.turn.queue[0] != "/usage" {
		t.Fatalf("queue = %q", h.m.turn.queue)
	}
	h.endTurn(1, "")
	contains(t, h.screen(), "usage · input")
	wantCalls(t, h, "run:first")
}

// TestDeletedPastePlaceholderNotReused: paste A, delete its placeholder,
// paste B (same line count): Enter sends B, not A.
func TestDeletedPastePlaceholderNotReused(t *testing.T) {
	h := newHarness(t)
	a, b := strings.Repeat("secret A\n", 30), strings.Repeat("public B\n", 30)
	h.send(tea.PasteMsg{Content: a})
	h.key("ctrl+u") // deletes the placeholder
	if v := h.m.comp.value(); v != "" {
		t.Fatalf("composer = %q", v)
	}
	h.typeText("see ")
	h.send(tea.PasteMsg{Content: b})
	if len(h.m.comp.pastes) != 1 {
		t.Errorf("the deleted paste is still kept: %d pastes", len(h.m.comp.pastes))
	}
	h.key("enter")
	wantCalls(t, h, "run:see "+b)
}
