package ui

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"talaria/loop"
	"talaria/providers"
)

// turnStarted is a turn.started for turn n that the screen did not send.
func turnStarted(n int, input string) *loop.TurnStarted {
	return &loop.TurnStarted{Header: hdr(loop.TypeTurnStarted, n, 0), Input: input}
}

func TestBudgetGauge(t *testing.T) {
	h := newHarness(t)
	h.events(turnStarted(1, "go"),
		&loop.IterationStarted{Header: hdr(loop.TypeIterationStarted, 1, 0), Iteration: 3, BudgetUsed: 45, BudgetMax: 90},
		&loop.BudgetRefunded{Header: hdr(loop.TypeBudgetRefunded, 1, 0), Reason: "empty_response"},
		&loop.BudgetRefunded{Header: hdr(loop.TypeBudgetRefunded, 1, 0), Reason: "empty_response"},
	)
	b := h.m.live.budget
	if b.used != 45 || b.max != 90 || b.iteration != 3 || b.refunds != 2 {
		t.Errorf("budget = %+v", b)
	}
	contains(t, h.screen(), "budget ██████████░░░░░░░░░░ 45/90 iterations · 2 refunds")
}

func TestRetryCountdown(t *testing.T) {
	h := newHarness(t)
	h.typeText("go")
	h.key("enter")
	h.events(turnStarted(1, "go"),
		&loop.RetryScheduled{Header: hdr(loop.TypeRetryScheduled, 1, time.Second), Attempt: 2, MaxAttempts: 4, DelayMS: 5000, Reason: "rate_limit", Status: 429, Message: "slow down"},
	)
	h.send(frameMsg{})
	contains(t, h.screen(), "⟳ rate_limit (429) · attempt 2/4 · retrying in 6.0s · esc to cancel", "slow down")
	h.clk.advance(4500 * time.Millisecond)
	h.send(frameMsg{})
	contains(t, h.screen(), "retrying in 1.5s")
	h.clk.advance(2 * time.Second)
	h.send(frameMsg{})
	contains(t, h.screen(), "retrying now")
	h.key("esc")
	wantCalls(t, h, "run:go", "interrupt")
	h.events(&loop.MessageDelta{Header: hdr(loop.TypeMessageDelta, 1, 8*time.Second), Text: "hi"})
	if h.m.live.retry != nil || strings.Contains(h.screen(), "⟳") {
		t.Error("retry pane not cleared by the next delta")
	}
}

func TestToolLanes(t *testing.T) {
	h := newHarness(t)
	h.size(100, 40)
	h.events(turnStarted(1, "go"),
		&loop.ToolsPlanned{Header: hdr(loop.TypeToolsPlanned, 1, 0), Segments: []loop.PlannedSegment{
			{Mode: "parallel", Calls: []loop.ToolCallInfo{{ID: "a", Name: "read_file"}, {ID: "b", Name: "read_file"}}},
			{Mode: "sequential", Calls: []loop.ToolCallInfo{{ID: "c", Name: "terminal"}}},
		}},
		&loop.ToolStarted{Header: hdr(loop.TypeToolStarted, 1, time.Second), ID: "a", Name: "read_file", Arguments: `{"path":"a.go"}`},
		&loop.ToolStarted{Header: hdr(loop.TypeToolStarted, 1, time.Second), ID: "b", Name: "read_file", Arguments: `{"path":"b.go"}`},
	)
	h.clk.advance(3 * time.Second)
	h.send(frameMsg{})
	s := h.screen()
	contains(t, s, "⚙ 3 tool calls · 2 segments", "⇉ segment 1/2 · parallel", "→ segment 2/2 · sequential",
		"read_file a.go", "2.0s", "· terminal", "queued", "running tools 0/3")
	h.events(
		&loop.ToolCompleted{Header: hdr(loop.TypeToolCompleted, 1, 3*time.Second), ID: "a", Name: "read_file", OK: true, DurationMS: 1200, Output: "package a"},
		&loop.ToolCompleted{Header: hdr(loop.TypeToolCompleted, 1, 3*time.Second), ID: "b", Name: "read_file", OK: false, DurationMS: 300, Output: "no such file"},
		&loop.ToolStarted{Header: hdr(loop.TypeToolStarted, 1, 3*time.Second), ID: "c", Name: "terminal", Arguments: `{"command":"go test ./..."}`},
		&loop.ToolCompleted{Header: hdr(loop.TypeToolCompleted, 1, 4*time.Second), ID: "c", Name: "terminal", Cancelled: true},
	)
	s = h.screen()
	contains(t, s, "✓ read_file a.go", "1.2s", "│ package a", "✗ read_file b.go", "failed · 300ms", "│ no such file",
		"⊘ terminal go test ./...", "cancelled", "running tools 3/3")
}

func TestToolWithoutPlanGetsACard(t *testing.T) {
	h := newHarness(t)
	h.events(turnStarted(1, "go"),
		&loop.ToolStarted{Header: hdr(loop.TypeToolStarted, 1, 0), ID: "x", Name: "patch", Arguments: `{"path":"main.go"}`},
		&loop.ToolCompleted{Header: hdr(loop.TypeToolCompleted, 1, time.Second), ID: "x", Name: "patch", OK: true, DurationMS: 50,
			Output: "--- a/main.go\n+++ b/main.go\n@@ -1 +1 @@\n-old\n+new"},
	)
	contains(t, h.screen(), "✓ patch main.go", "│ @@ -1 +1 @@", "│ -old", "│ +new")
}

func TestUnfinishedToolsCancelledAtTurnEnd(t *testing.T) {
	h := newHarness(t)
	h.events(turnStarted(1, "go"),
		&loop.ToolStarted{Header: hdr(loop.TypeToolStarted, 1, 0), ID: "x", Name: "terminal", Arguments: `{"command":"sleep 100"}`},
		&loop.TurnFinished{Header: hdr(loop.TypeTurnFinished, 1, time.Second), ExitReason: loop.ExitInterruptedByUser.Exit(), Explanation: "Stopped by Esc."},
	)
	contains(t, h.screen(), "⊘ terminal sleep 100", "interrupted (interrupted_by_user) — Stopped by Esc.")
	if h.m.turn.busy {
		t.Error("turn started by the agent should end at turn.finished")
	}
}

func TestGuardrailPane(t *testing.T) {
	h := newHarness(t)
	h.events(turnStarted(1, "go"),
		&loop.Guardrail{Header: hdr(loop.TypeGuardrail, 1, 0), Action: "warn", Code: "exact_failure", Tool: "terminal", Count: 2, Message: "same failure twice"},
	)
	contains(t, h.screen(), "⚠ guardrail warn · terminal · exact_failure ×2 — same failure twice")
	h.events(&loop.Guardrail{Header: hdr(loop.TypeGuardrail, 1, 0), Action: "halt", Code: "exact_failure", Tool: "terminal", Count: 5, Message: "stopping"})
	contains(t, h.screen(), "guardrail halted the turn: stopping (exact_failure ×5)")
	for i := 0; i < 4; i++ {
		h.events(&loop.Guardrail{Header: hdr(loop.TypeGuardrail, 1, 0), Action: "warn", Code: "c", Tool: "t", Count: i})
	}
	if len(h.m.live.guards) != 3 {
		t.Errorf("guardrail pane keeps %d entries, want the last 3", len(h.m.live.guards))
	}
	h.events(&loop.TurnFinished{Header: hdr(loop.TypeTurnFinished, 1, 0), ExitReason: loop.ExitGuardrailHalt.Exit()})
	if len(h.m.live.guards) != 0 {
		t.Error("guardrail pane not cleared when the turn ended")
	}
}

// steerTexts lists the pending steers' texts.
func steerTexts(h *harness) []string {
	var out []string
	for _, e := range h.m.turn.pendingSteers {
		out = append(out, e.text)
	}
	return out
}

// sendingTexts lists the texts of the steers being sent.
func sendingTexts(h *harness) []string {
	var out []string
	for _, e := range h.m.turn.sending {
		out = append(out, e.text)
	}
	return out
}

// A steer shows as pending only once the agent's steer.queued says it
// took it; until then it is being sent. The agent's return value adds
// nothing, whenever it comes.
func TestSteerPendingOnlyOnceQueued(t *testing.T) {
	h := newHarness(t)
	h.startBusy()
	h.events(turnStarted(1, "first"))
	h.typeText("use tabs")
	rets := h.key("enter") // the command calls Agent.Steer; its result is fed back below
	if got := steerTexts(h); len(got) != 0 {
		t.Fatalf("pending before steer.queued: %q", got)
	}
	s := h.screen()
	contains(t, s, "↳ steer · sending… use tabs")
	if strings.Contains(s, "after the next tool call") {
		t.Fatalf("the screen says the steer is queued before the agent took it:\n%s", s)
	}
	h.events(&loop.SteerQueued{Header: hdr(loop.TypeSteerQueued, 1, 0), ID: 1, Text: "use tabs"})
	for _, m := range rets {
		h.send(m)
	}
	if got := steerTexts(h); len(got) != 1 || h.m.turn.pendingSteers[0].id != 1 || len(h.m.turn.sending) != 0 {
		t.Fatalf("pending = %+v, sending = %q; want one pending with id 1", h.m.turn.pendingSteers, sendingTexts(h))
	}
	s = h.screen()
	contains(t, s, "↳ steer · after the next tool call: use tabs")
	if strings.Contains(s, "sending…") {
		t.Errorf("still sending after steer.queued:\n%s", s)
	}
}

func TestSteerPendingThenDelivered(t *testing.T) {
	h := newHarness(t)
	h.startBusy()
	h.events(turnStarted(1, "first"))
	h.typeText("use tabs")
	h.settle(keyMsg("enter"))
	h.events(&loop.SteerQueued{Header: hdr(loop.TypeSteerQueued, 1, 0), ID: 1, Text: "use tabs"})
	h.typeText("tests")
	h.settle(keyMsg("enter"))
	h.events(&loop.SteerQueued{Header: hdr(loop.TypeSteerQueued, 1, 0), ID: 2, Text: "tests"})
	h.events(&loop.SteerQueued{Header: hdr(loop.TypeSteerQueued, 1, 0), ID: 3, Text: "from elsewhere"})
	if got := steerTexts(h); !reflect.DeepEqual(got, []string{"use tabs", "tests", "from elsewhere"}) || len(h.m.turn.sending) != 0 {
		t.Fatalf("pending steers = %q, sending %q", got, sendingTexts(h))
	}
	contains(t, h.screen(), "↳ steer · after the next tool call: use tabs", "↳ steer · after the next tool call: from elsewhere")
	// Delivering "use tabs\nfrom elsewhere" removes those two by id; the
	// steer "tests" stays, though its text is inside "run the tests"-like
	// deliveries.
	h.events(&loop.SteerDelivered{Header: hdr(loop.TypeSteerDelivered, 1, 0), Text: "use tabs\nfrom elsewhere", IDs: []int{1, 3}, Iteration: 2})
	if got := steerTexts(h); !reflect.DeepEqual(got, []string{"tests"}) {
		t.Errorf("pending after delivery: %q", got)
	}
	h.events(&loop.SteerDelivered{Header: hdr(loop.TypeSteerDelivered, 1, 0), Text: "run the tests", IDs: []int{4}, Iteration: 3})
	if got := steerTexts(h); !reflect.DeepEqual(got, []string{"tests"}) {
		t.Errorf("a delivery of another steer whose text contains it removed %q", got)
	}
	h.events(&loop.SteerDelivered{Header: hdr(loop.TypeSteerDelivered, 1, 0), Text: "tests", IDs: []int{2}, Iteration: 4})
	if len(h.m.turn.pendingSteers) != 0 {
		t.Errorf("pending after delivery: %q", steerTexts(h))
	}
	s := h.screen()
	contains(t, s, "↳ steer: use tabs")
	if strings.Contains(s, "after the next tool call") {
		t.Error("delivered steer still in the pending pane")
	}
}

// The agent may emit a steer's delivery before its steer.queued: the
// late steer.queued ends the sending state and shows nothing pending.
func TestSteerDeliveredBeforeQueued(t *testing.T) {
	h := newHarness(t)
	h.startBusy()
	h.events(turnStarted(1, "first"))
	h.typeText("be brief")
	h.settle(keyMsg("enter"))
	h.events(&loop.SteerDelivered{Header: hdr(loop.TypeSteerDelivered, 1, 0), Text: "be brief", IDs: []int{1}, Iteration: 2})
	h.events(&loop.SteerQueued{Header: hdr(loop.TypeSteerQueued, 1, 0), ID: 1, Text: "be brief"})
	if len(h.m.turn.pendingSteers) != 0 || len(h.m.turn.sending) != 0 {
		t.Errorf("pending %q, sending %q after delivery", steerTexts(h), sendingTexts(h))
	}
}

// A steer the agent refuses (Steer answers 0) stops being sent.
func TestRefusedSteerStopsSending(t *testing.T) {
	h := newHarness(t)
	h.agent.refuseSteers = true
	h.startBusy()
	h.events(turnStarted(1, "first"))
	h.typeText("too much")
	h.settle(keyMsg("enter"))
	if len(h.m.turn.sending) != 0 || len(h.m.turn.pendingSteers) != 0 {
		t.Errorf("a refused steer is still shown: sending %q, pending %q", sendingTexts(h), steerTexts(h))
	}
	if strings.Contains(h.screen(), "too much") {
		t.Errorf("a refused steer is still on screen:\n%s", h.screen())
	}
}

func TestPendingSteerBecomesNextMessage(t *testing.T) {
	h := newHarness(t)
	h.startBusy()
	h.events(turnStarted(1, "first"))
	h.endTurn(1, "and add a test")
	wantCalls(t, h, "run:first", "run:and add a test")
	contains(t, h.screen(), "› and add a test")
}

// Start returns at once; the turn stays busy until turn.finished, the one
// end signal, and then what waits is sent.
func TestTurnEndsOnlyOnTurnFinished(t *testing.T) {
	h := newHarness(t)
	h.startBusy()
	h.m.turn.queue = []string{"next"}
	if !h.m.turn.busy {
		t.Fatal("went idle before turn.finished")
	}
	h.events(turnStarted(1, "first"), &loop.MessageCompleted{Header: hdr(loop.TypeMessageCompleted, 1, 0), Content: "answer"})
	if !h.m.turn.busy {
		t.Fatal("went idle on message.completed")
	}
	h.settle(eventsMsg{closed: true, evs: []loop.Event{
		&loop.TurnFinished{Header: hdr(loop.TypeTurnFinished, 1, 0), ExitReason: loop.ExitKind("x").Exit(), Completed: true, PendingSteer: "steer back"},
	}})
	wantCalls(t, h, "run:first", "run:steer back")
	if len(h.m.turn.queue) != 1 {
		t.Errorf("queue should wait for the steer's turn: %q", h.m.turn.queue)
	}
}

// A turn that never began (Start refused: busy, or no session) is the
// one thing the command reports; the screen goes idle and says why.
func TestStartErrorShown(t *testing.T) {
	h := newHarness(t)
	h.agent.startErr = loop.ErrBusy
	h.typeText("go")
	h.settle(keyMsg("enter"))
	if h.m.turn.busy {
		t.Error("still busy after Start failed")
	}
	contains(t, h.screen(), "The turn did not start: a turn is already running")
}

func TestOldTurnEventsIgnored(t *testing.T) {
	h := newHarness(t)
	h.events(turnStarted(1, "one"), turnStarted(2, "two"))
	before := h.m.tr.len()
	h.events(
		&loop.MessageDelta{Header: hdr(loop.TypeMessageDelta, 1, 0), Text: "late"},
		&loop.ToolsPlanned{Header: hdr(loop.TypeToolsPlanned, 1, 0), Segments: []loop.PlannedSegment{{Mode: "parallel"}}},
		&loop.TurnFinished{Header: hdr(loop.TypeTurnFinished, 1, 0), ExitReason: loop.ExitInterruptedByUser.Exit()},
	)
	if h.m.tr.len() != before || h.m.live.stream != nil || !h.m.turn.busy {
		t.Errorf("events of turn 1 changed turn 2's screen (items %d→%d, busy %v)", before, h.m.tr.len(), h.m.turn.busy)
	}
	h.events(&loop.SessionStarted{Header: hdr(loop.TypeSessionStarted, 0, 0), Provider: "anthropic", Model: "claude", Cwd: "/x"})
	if h.m.ses.provider != "anthropic" {
		t.Error("turn-0 events must always apply")
	}
}

func TestStreamingFlushesOnFrame(t *testing.T) {
	h := newHarness(t)
	h.events(turnStarted(1, "go"))
	h.events(&loop.MessageDelta{Header: hdr(loop.TypeMessageDelta, 1, 0), Text: "Hello "})
	h.events(&loop.MessageDelta{Header: hdr(loop.TypeMessageDelta, 1, 0), Text: "world"})
	if strings.Contains(h.screen(), "Hello") {
		t.Error("deltas rendered before the frame tick")
	}
	h.send(frameMsg{})
	contains(t, h.screen(), "● Hello world")
	h.events(&loop.MessageCompleted{Header: hdr(loop.TypeMessageCompleted, 1, 0), Content: "Hello **world**!",
		Usage: providers.Usage{InputTokens: 1000, CacheReadTokens: 500, OutputTokens: 20}})
	contains(t, h.screen(), "● Hello world!")
	if h.m.ses.lastAnswer != "Hello **world**!" {
		t.Errorf("last answer = %q", h.m.ses.lastAnswer)
	}
	contains(t, h.m.statusView, "↑1.5k ↓20", "ctx 1%")
}

func TestEmptyAnswerWithToolsLeavesNoBlock(t *testing.T) {
	h := newHarness(t)
	h.events(turnStarted(1, "go"),
		&loop.MessageDelta{Header: hdr(loop.TypeMessageDelta, 1, 0), Text: " "},
		&loop.MessageCompleted{Header: hdr(loop.TypeMessageCompleted, 1, 0), ToolCalls: []loop.ToolCallInfo{{ID: "a", Name: "read_file"}}},
	)
	for _, e := range h.m.tr.entries {
		if _, ok := e.it.(*assistantItem); ok {
			t.Error("an empty answer block stayed in the transcript")
		}
	}
}

func TestFallbackIndicator(t *testing.T) {
	h := newHarness(t)
	h.events(turnStarted(1, "go"),
		&loop.FallbackActivated{Header: hdr(loop.TypeFallbackActivated, 1, 0),
			From: loop.Backend{Provider: "openai", Model: "gpt-4.1"}, To: loop.Backend{Provider: "anthropic", Model: "claude-sonnet-4-5"}, Reason: "overloaded"},
		&loop.CredentialRotated{Header: hdr(loop.TypeCredentialRotated, 1, 0), Provider: "openai", Reason: "rate_limit"},
	)
	contains(t, h.m.statusView, "anthropic/claude-sonnet-4-5", "⇄ fallback")
	contains(t, h.screen(), "fallback: openai/gpt-4.1 → anthropic/claude-sonnet-4-5 (overloaded)", "credential rotated for openai (rate_limit)")
	h.events(&loop.TurnFinished{Header: hdr(loop.TypeTurnFinished, 1, 0), Completed: true}, turnStarted(2, "again"))
	if strings.Contains(h.m.statusView, "fallback") {
		t.Error("fallback marker survived into the next turn")
	}
}

func TestUsageSettlesAtTurnEnd(t *testing.T) {
	h := newHarness(t)
	h.events(turnStarted(1, "go"),
		&loop.MessageCompleted{Header: hdr(loop.TypeMessageCompleted, 1, 0), Content: "a", Usage: providers.Usage{InputTokens: 100, OutputTokens: 10}},
		&loop.MessageCompleted{Header: hdr(loop.TypeMessageCompleted, 1, 0), Content: "b", Usage: providers.Usage{InputTokens: 200, OutputTokens: 20}},
		&loop.TurnFinished{Header: hdr(loop.TypeTurnFinished, 1, 0), Completed: true, APICalls: 2, Usage: providers.Usage{InputTokens: 300, OutputTokens: 30}},
	)
	if u := h.m.ses.usage; u.InputTokens != 300 || u.OutputTokens != 30 {
		t.Errorf("usage = %+v, want the turn's total once", u)
	}
	contains(t, h.screen(), "done · 2 API calls")
}

func TestCompressionNotice(t *testing.T) {
	h := newHarness(t)
	h.events(&loop.Compression{Header: hdr(loop.TypeCompression, 1, 0), Pass: 1, TokensBefore: 90000, TokensAfter: 30000})
	contains(t, h.screen(), "context compressed (pass 1): 90.0k → 30.0k tokens")
	contains(t, h.m.statusView, "ctx 23%")
}

func TestTurnStartedByAgentShowsInput(t *testing.T) {
	h := newHarness(t)
	h.events(turnStarted(1, "queued elsewhere"))
	contains(t, h.screen(), "› queued elsewhere")
	if !h.m.turn.busy {
		t.Error("turn.started did not make the screen busy")
	}
}

func TestWaitEventsDrainsInBatches(t *testing.T) {
	ch := make(chan loop.Event, 10)
	for i := range 3 {
		ch <- &loop.MessageDelta{Header: hdr(loop.TypeMessageDelta, 1, 0), Text: string(rune('a' + i))}
	}
	msg := waitEvents(ch, nil)().(eventsMsg)
	if len(msg.evs) != 3 || msg.closed {
		t.Fatalf("batch = %d events, closed %v", len(msg.evs), msg.closed)
	}
	close(ch)
	if msg := waitEvents(ch, nil)().(eventsMsg); !msg.closed {
		t.Error("closed channel not reported")
	}
	stop := make(chan struct{})
	close(stop)
	if msg := waitEvents(make(chan loop.Event), stop)(); msg != nil {
		t.Errorf("a stopped wait returned %#v", msg)
	}
	if waitEvents(nil, nil) != nil {
		t.Error("nil channel should give no command")
	}
}

func TestEventsRearm(t *testing.T) {
	h := newHarness(t)
	ch := make(chan loop.Event, 1)
	h.m.events = ch
	_, cmd := h.m.Update(eventsMsg{evs: []loop.Event{turnStarted(1, "x")}})
	if cmd == nil {
		t.Fatal("no re-armed wait after a batch")
	}
	ch <- turnStarted(2, "y")
	found := false
	for _, msg := range execCmd(cmd) {
		if em, ok := msg.(eventsMsg); ok && len(em.evs) == 1 {
			found = true
		}
	}
	if !found {
		t.Error("re-armed wait did not deliver the next event")
	}

}

func TestResumedHistory(t *testing.T) {
	h := newHarness(t, func(o *Options) {
		o.History = []providers.Message{
			{Role: providers.RoleSystem, Content: "system prompt"},
			{Role: providers.RoleUser, Content: "list files"},
			{Role: providers.RoleAssistant, Reasoning: "use search", ToolCalls: []providers.ToolCall{{ID: "1", Name: "search_files", Arguments: `{"pattern":"*.go","target":"files"}`}}},
			{Role: providers.RoleTool, ToolCallID: "1", Content: "main.go\nui.go"},
			{Role: providers.RoleAssistant, Content: "Two files."},
		}
	})
	h.size(80, 30)
	s := h.screen()
	contains(t, s, "› list files", "∴ thought · 2 words", "✓ search_files *.go", "done", "│ main.go", "● Two files.", "resumed session · 5 messages")
	if strings.Contains(s, "system prompt") {
		t.Error("system prompt shown")
	}
	h.key("up")
	if h.m.comp.value() != "list files" {
		t.Errorf("history not seeded from the resumed session: %q", h.m.comp.value())
	}
}

func TestNoAgent(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.Port = nil })
	contains(t, h.screen(), "No agent is configured")
	h.typeText("hi")
	h.key("enter")
	if h.m.turn.busy {
		t.Error("busy without an agent")
	}
}

func TestBackgroundColourPicksTheme(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.NoColor = false })
	if h.m.look.theme.Name != "dark" {
		t.Fatalf("default theme = %s, want dark before the terminal answers", h.m.look.theme.Name)
	}
	h.send(tea.BackgroundColorMsg{Color: lightGrey{}})
	if h.m.look.theme.Name != "light" {
		t.Errorf("light background gave theme %s", h.m.look.theme.Name)
	}
	h2 := newHarness(t, func(o *Options) { o.NoColor = false; o.Theme = "solarized" })
	h2.send(tea.BackgroundColorMsg{Color: lightGrey{}})
	if h2.m.look.theme.Name != "solarized" {
		t.Errorf("an explicit theme must not follow the background, got %s", h2.m.look.theme.Name)
	}
}

type lightGrey struct{}

func (lightGrey) RGBA() (r, g, b, a uint32) { return 0xeeee, 0xeeee, 0xeeee, 0xffff }

func TestUpdateNeverCallsTheAgent(t *testing.T) {
	h := newHarness(t)
	h.typeText("go")
	h.m.Update(keyMsg("enter")) // commands deliberately not run
	h.typeText("steer me")
	h.m.Update(keyMsg("enter"))
	h.m.Update(keyMsg("esc"))
	h.m.Update(keyMsg("ctrl+c"))
	if got := h.agent.got(); len(got) != 0 {
		t.Errorf("Update called the agent synchronously: %q", got)
	}
}

func TestFrameFillsTheScreenExactly(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {120, 40}, {40, 12}, {30, 8}} {
		h := goldenScene(t, sz[0])
		h.size(sz[0], sz[1])
		h.typeText("/")
		lines := strings.Split(h.m.View().Content, "\n")
		if len(lines) != sz[1] {
			t.Errorf("%dx%d: frame has %d lines", sz[0], sz[1], len(lines))
		}
		for i, l := range lines {
			if w := ansi.StringWidth(l); w > sz[0] {
				t.Errorf("%dx%d: line %d is %d wide: %q", sz[0], sz[1], i, w, ansi.Strip(l))
			}
		}
	}
}

func TestEventChannel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	ch, sink := EventChannel(ctx, 1)
	sink(turnStarted(1, "a"))
	if ev := <-ch; ev.Meta().Turn != 1 {
		t.Errorf("got %v", ev)
	}
	sink(turnStarted(2, "b")) // fills the buffer
	cancel()
	done := make(chan struct{})
	go func() { sink(turnStarted(3, "c")); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Second):
		t.Fatal("sink blocked after the screen went away")
	}
}

// ctxAgent keeps the context its turn was started with.
type ctxAgent struct {
	fakeAgent
	ctx chan context.Context
}

func (a *ctxAgent) Start(ctx context.Context, input string) error {
	a.ctx <- ctx
	return nil
}

// The context given to Run (here to the model Run builds) reaches the
// turns: cancelling it cancels a running turn's context.
func TestRunContextReachesTurns(t *testing.T) {
	parent, cancel := context.WithCancel(context.Background())
	a := &ctxAgent{ctx: make(chan context.Context, 1)}
	m := newModel(parent, Options{Port: portOf(a), NoColor: true})
	defer m.shutdown()
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	for _, r := range "go" {
		m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	_, cmd := m.Update(keyMsg("enter"))
	execCmd(cmd)
	turnCtx := <-a.ctx
	if turnCtx.Err() != nil {
		t.Fatal("the turn's context ended at once")
	}
	cancel()
	select {
	case <-turnCtx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("cancelling Run's context did not reach the turn")
	}
}
