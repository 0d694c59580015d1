package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"talaria/tools"
)

// withDialogs gives the harness's model a Dialogs.
func withDialogs(d *Dialogs) func(*Options) { return func(o *Options) { o.Dialogs = d } }

// showNext takes the next request an Approve or Ask call put in the
// channel and shows it, the way the re-armed wait would, then lets its
// arming delay pass (see arm). The wait itself is not re-armed (like
// h.events): an abandoned waiter would steal the next request.
func (h *harness) showNext(d *Dialogs) *dialogRequest {
	h.t.Helper()
	r := h.showNextUnarmed(d)
	h.arm()
	return r
}

// showNextUnarmed is showNext without waiting: the dialog ignores
// answering keys for now.
func (h *harness) showNextUnarmed(d *Dialogs) *dialogRequest {
	h.t.Helper()
	select {
	case r := <-d.reqs:
		h.send(dialogMsg{req: r})
		return r
	case <-time.After(5 * time.Second):
		h.t.Fatal("no dialog request arrived")
		return nil
	}
}

// arm lets the arming delay of the question on screen pass: the clock
// moves on and a frame tick redraws it.
func (h *harness) arm() {
	h.clk.advance(dialogArmDelay)
	h.send(frameMsg{})
}

type approveResult struct {
	d   tools.ApprovalDecision
	err error
}

type askResult struct {
	text string
	err  error
}

// approveAsync calls Approve in a goroutine, as a tool worker does.
func approveAsync(ctx context.Context, d *Dialogs, req tools.ApprovalRequest) <-chan approveResult {
	out := make(chan approveResult, 1)
	go func() {
		dec, err := d.Approve(ctx, req)
		out <- approveResult{dec, err}
	}()
	return out
}

// askAsync calls Ask in a goroutine.
func askAsync(ctx context.Context, d *Dialogs, q string, choices ...string) <-chan askResult {
	out := make(chan askResult, 1)
	go func() {
		text, err := d.Ask(ctx, q, choices)
		out <- askResult{text, err}
	}()
	return out
}

// result waits for a call's result.
func result[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(5 * time.Second):
		t.Fatal("the call did not return")
		var zero T
		return zero
	}
}

// callCtx is a context that ends with the test.
func callCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return ctx
}

var (
	patchReq = tools.ApprovalRequest{Tool: "patch", Summary: "Edit: parser/parser.go",
		Args: `{"mode":"replace","path":"parser/parser.go","old_string":"if t == comma {","new_string":"if t == comma && next != end {\n\treturn skip\n}"}`}
	rmReq = tools.ApprovalRequest{Tool: "terminal", Summary: "Run: rm -rf build/ [destructive: recursive delete]", Destructive: true,
		Args: `{"command":"rm -rf build/","timeout":60}`}
)

func TestApprovalAnswers(t *testing.T) {
	once := tools.ApprovalDecision{Allow: true, Scope: tools.ScopeOnce}
	cases := []struct {
		name string
		keys []string
		text string // typed after the keys, then enter
		want tools.ApprovalDecision
	}{
		{"y", []string{"y"}, "", once},
		{"Y", []string{"Y"}, "", once},
		{"enter", []string{"enter"}, "", once},
		{"number", []string{"1"}, "", once},
		{"a", []string{"a"}, "", tools.ApprovalDecision{Allow: true, Scope: tools.ScopeSession}},
		{"arrows", []string{"down", "enter"}, "", tools.ApprovalDecision{Allow: true, Scope: tools.ScopeSession}},
		{"n with reason", []string{"n"}, "use make test instead", deny("use make test instead")},
		{"n then esc", []string{"n", "esc"}, "", deny("")},
		{"n then empty enter", []string{"n", "enter"}, "", deny("")},
		{"esc", []string{"esc"}, "", deny("")},
		{"wrapped up to no", []string{"up", "enter", "enter"}, "", deny("")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := NewDialogs()
			h := newHarness(t, withDialogs(d))
			res := approveAsync(callCtx(t), d, patchReq)
			h.showNext(d)
			for _, k := range c.keys {
				h.key(k)
			}
			if c.text != "" {
				contains(t, h.screen(), "Tell the model why not")
				h.typeText(c.text)
				h.key("enter")
			}
			got := result(t, res)
			if got.err != nil || got.d != c.want {
				t.Errorf("Approve = %+v, %v; want %+v", got.d, got.err, c.want)
			}
			if h.m.modalOpen() {
				t.Error("the dialog is still open")
			}
			contains(t, h.screen(), "Ask anything")
		})
	}
}

func TestDestructiveOffersNoSessionApproval(t *testing.T) {
	d := NewDialogs()
	h := newHarness(t, withDialogs(d))
	res := approveAsync(callCtx(t), d, rmReq)
	h.showNext(d)
	screen := h.screen()
	contains(t, screen, "⚠ destructive: recursive delete", "Run: rm -rf build/", "1. Yes, allow once (y)", "2. No, and tell the model why (n)")
	if strings.Contains(screen, "(a)") || strings.Contains(screen, "[destructive") {
		t.Errorf("session option or raw note shown:\n%s", screen)
	}
	h.key("a")
	if h.m.dialog() == nil {
		t.Fatal("a answered a destructive command")
	}
	h.key("y")
	if got := result(t, res); !got.d.Allow || got.d.Scope != tools.ScopeOnce {
		t.Errorf("got %+v", got.d)
	}
}

func TestDialogsShownOneAtATimeInOrder(t *testing.T) {
	d := NewDialogs()
	h := newHarness(t, withDialogs(d))
	h.size(100, 30)
	ctx := callCtx(t)
	results := map[string]<-chan approveResult{}
	for _, cmd := range []string{"make a", "make b", "make c"} {
		results[cmd] = approveAsync(ctx, d, tools.ApprovalRequest{Tool: "terminal", Summary: "Run: " + cmd, Args: `{"command":"` + cmd + `"}`})
	}
	var order []string
	for range 3 {
		order = append(order, strings.TrimPrefix(h.showNext(d).approval.Summary, "Run: "))
	}
	for i, cmd := range order {
		screen := h.screen()
		contains(t, screen, "Run: "+cmd)
		if n := 2 - i; n > 0 {
			contains(t, screen, fmt.Sprintf("%d more waiting", n))
		}
		for _, other := range order {
			if other != cmd && strings.Contains(screen, "Run: "+other) {
				t.Errorf("%q shown while %q is asked", other, cmd)
			}
		}
		key := []string{"y", "a", "esc"}[i]
		h.arm() // each question waits its own delay
		h.key(key)
		got := result(t, results[cmd])
		if want := key != "esc"; got.d.Allow != want || got.err != nil {
			t.Errorf("%s after %s: %+v %v", cmd, key, got.d, got.err)
		}
	}
	if h.m.modalOpen() {
		t.Error("a dialog is left open")
	}
}

func TestDialogClosesWhenContextEnds(t *testing.T) {
	d := NewDialogs()
	h := newHarness(t, withDialogs(d))
	h.size(100, 30)
	ctx1, cancel1 := context.WithCancel(context.Background())
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	ctx3 := callCtx(t)
	res1 := approveAsync(ctx1, d, tools.ApprovalRequest{Tool: "terminal", Summary: "Run: one"})
	r1 := h.showNext(d)
	res2 := approveAsync(ctx2, d, tools.ApprovalRequest{Tool: "terminal", Summary: "Run: two"})
	r2 := h.showNext(d)
	res3 := askAsync(ctx3, d, "three?")
	h.showNext(d)

	// A queued request whose context ends leaves the queue; the one on
	// screen stays.
	cancel2()
	if got := result(t, res2); !errors.Is(got.err, context.Canceled) {
		t.Errorf("queued Approve returned %v", got.err)
	}
	h.send(watchDialog(r2)()) // the settled notice, delivered at once
	if len(h.m.modal.queue) != 2 || h.m.dialog() != r1 {
		t.Fatalf("queue after cancelling the queued one: %d", len(h.m.modal.queue))
	}
	contains(t, h.screen(), "Run: one", "1 more waiting")

	// The one on screen: its modal closes and the next shows.
	cancel1()
	if got := result(t, res1); !errors.Is(got.err, context.Canceled) {
		t.Errorf("Approve returned %v, want context.Canceled", got.err)
	}
	h.send(watchDialog(r1)())
	h.arm()
	contains(t, h.screen(), "three?")
	if strings.Contains(h.screen(), "Run: one") {
		t.Error("the cancelled dialog is still shown")
	}
	h.typeText("fine")
	h.key("enter")
	if got := result(t, res3); got.text != "fine" || got.err != nil {
		t.Errorf("Ask = %q, %v", got.text, got.err)
	}
	// A late settled notice for an answered request changes nothing.
	h.send(dialogSettledMsg{req: r1})
	if h.m.modalOpen() {
		t.Error("modal open after everything was settled")
	}
}

func TestDialogContextAlreadyDone(t *testing.T) {
	d := NewDialogs()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := d.Approve(ctx, patchReq); !errors.Is(err, context.Canceled) {
		t.Errorf("Approve = %v", err)
	}
	if _, err := d.Ask(ctx, "q", nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Ask = %v", err)
	}
}

func TestDialogsClose(t *testing.T) {
	d := NewDialogs()
	res := approveAsync(callCtx(t), d, patchReq)
	h := newHarness(t, withDialogs(d))
	h.showNext(d)
	d.Close()
	d.Close()
	if got := result(t, res); !errors.Is(got.err, ErrDialogsClosed) {
		t.Errorf("pending Approve = %v", got.err)
	}
	if _, err := d.Ask(callCtx(t), "q", nil); !errors.Is(err, ErrDialogsClosed) {
		t.Errorf("Ask after Close = %v", err)
	}
	if msg := waitDialogs(d)(); msg != nil {
		t.Errorf("wait after Close = %#v", msg)
	}
	var none *Dialogs
	if _, err := none.Approve(callCtx(t), patchReq); !errors.Is(err, ErrDialogsClosed) {
		t.Errorf("nil Dialogs = %v", err)
	}
}

func TestDialogCtrlCDeniesAndInterrupts(t *testing.T) {
	d := NewDialogs()
	h := newHarness(t, withDialogs(d))
	h.startBusy()
	h.typeText("draft")
	ctx := callCtx(t)
	res1 := approveAsync(ctx, d, patchReq)
	h.showNext(d)
	res2 := askAsync(ctx, d, "which?", "a", "b")
	h.showNext(d)
	h.key("ctrl+c")
	if got := result(t, res1); got.d.Allow || got.err != nil {
		t.Errorf("Approve after ctrl+c = %+v, %v", got.d, got.err)
	}
	if got := result(t, res2); got.text != "" || got.err != nil {
		t.Errorf("Ask after ctrl+c = %q, %v", got.text, got.err)
	}
	wantCalls(t, h, "run:first", "interrupt")
	if h.m.modalOpen() || h.m.comp.value() != "draft" {
		t.Errorf("modal open %v, draft %q", h.m.modalOpen(), h.m.comp.value())
	}
	if !hasQuit(h.key("ctrl+c")) {
		t.Error("a second ctrl+c did not quit")
	}
}

func TestDialogEscAnswersInsteadOfInterrupting(t *testing.T) {
	d := NewDialogs()
	h := newHarness(t, withDialogs(d))
	h.startBusy()
	res := approveAsync(callCtx(t), d, patchReq)
	h.showNext(d)
	h.key("esc")
	if got := result(t, res); got.d != deny("") {
		t.Errorf("esc gave %+v", got.d)
	}
	wantCalls(t, h, "run:first")
	h.key("esc")
	wantCalls(t, h, "run:first", "interrupt")
}

func TestDialogKeysDoNotReachTheComposer(t *testing.T) {
	d := NewDialogs()
	h := newHarness(t, withDialogs(d))
	h.typeText("keep")
	res := approveAsync(callCtx(t), d, patchReq)
	h.showNext(d)
	h.key("x")
	h.key("pgup")
	h.key("n")
	h.send(tea.PasteMsg{Content: "too\nlong"})
	h.key("enter")
	if got := result(t, res); got.d != deny("too long") {
		t.Errorf("got %+v", got.d)
	}
	if v := h.m.comp.value(); v != "keep" {
		t.Errorf("composer = %q", v)
	}
}

func TestClarifyDialog(t *testing.T) {
	cases := []struct {
		name    string
		choices []string
		keys    []string
		text    string
		want    string
	}{
		{"number", []string{"Postgres", "SQLite"}, []string{"2"}, "", "SQLite"},
		{"arrows", []string{"Postgres", "SQLite"}, []string{"down", "enter"}, "", "SQLite"},
		{"arrows wrap", []string{"Postgres", "SQLite"}, []string{"up", "up", "enter"}, "", "SQLite"},
		{"other", []string{"Postgres", "SQLite"}, []string{"3"}, "MySQL 8", "MySQL 8"},
		{"other by arrows", []string{"Postgres", "SQLite"}, []string{"up", "enter"}, "DuckDB", "DuckDB"},
		{"other then back", []string{"Postgres", "SQLite"}, []string{"3", "x", "esc", "1"}, "", "Postgres"},
		{"esc skips", []string{"Postgres"}, []string{"esc"}, "", ""},
		{"free text", nil, nil, "use tabs", "use tabs"},
		{"free text empty enter waits", nil, []string{"enter"}, "ok", "ok"},
		{"free text esc", nil, []string{"esc"}, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := NewDialogs()
			h := newHarness(t, withDialogs(d))
			res := askAsync(callCtx(t), d, "Which database?", c.choices...)
			h.showNext(d)
			for _, k := range c.keys {
				h.key(k)
			}
			if c.text != "" {
				h.typeText(c.text)
				h.key("enter")
			}
			if got := result(t, res); got.text != c.want || got.err != nil {
				t.Errorf("Ask = %q, %v; want %q", got.text, got.err, c.want)
			}
			if h.m.modalOpen() {
				t.Error("the dialog is still open")
			}
		})
	}
}

// observed reports the question on screen after every Update of the real
// program.
type observed struct {
	*Model
	heads chan string
	last  string
}

func (o *observed) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := o.Model.Update(msg)
	head := ""
	if r := o.dialog(); r != nil {
		head = r.approval.Summary + r.question
	}
	if head != o.last {
		o.last = head
		o.heads <- head
	}
	return o, cmd
}

// TestProgramDialogs runs the real program: three questions asked at once
// from worker goroutines arrive through the re-armed wait and show one at
// a time; one is allowed, one's context ends (its modal closes), one is
// answered by typing.
func TestProgramDialogs(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d := NewDialogs()
	defer d.Close()
	clk := &clock{now: t0}
	o := &observed{Model: New(Options{Port: portOf(&fakeAgent{}), Dialogs: d, NoColor: true, Now: clk.Now}), heads: make(chan string, 16)}
	defer o.Model.shutdown()
	p := tea.NewProgram(o, tea.WithInput(nil), tea.WithOutput(&strings.Builder{}), tea.WithWindowSize(80, 24),
		tea.WithoutSignals(), tea.WithContext(ctx))
	done := make(chan error, 1)
	go func() { _, err := p.Run(); done <- err }()
	defer func() {
		p.Quit()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("program: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("the program did not quit")
		}
	}()
	ctxB, cancelB := context.WithCancel(ctx)
	defer cancelB()
	resA := approveAsync(ctx, d, tools.ApprovalRequest{Tool: "terminal", Summary: "Run: make a"})
	resB := approveAsync(ctxB, d, tools.ApprovalRequest{Tool: "terminal", Summary: "Run: make b"})
	resC := askAsync(ctx, d, "which c?")
	seen := map[string]int{}
	for {
		var head string
		select {
		case head = <-o.heads:
		case <-time.After(5 * time.Second):
			t.Fatalf("no dialog change; seen %v", seen)
		}
		if head == "" {
			if len(seen) == 3 {
				break // every question was shown and settled
			}
			continue // the next one is still on its way
		}
		seen[head]++
		clk.advance(dialogArmDelay) // the question takes answers from now on
		switch head {
		case "Run: make a":
			p.Send(keyMsg("y"))
		case "Run: make b":
			cancelB()
		case "which c?":
			for _, k := range []string{"o", "k", "enter"} {
				p.Send(keyMsg(k))
			}
		}
	}
	if len(seen) != 3 || seen["Run: make a"] != 1 || seen["Run: make b"] != 1 || seen["which c?"] != 1 {
		t.Errorf("dialogs shown: %v", seen)
	}
	if got := result(t, resA); !got.d.Allow || got.err != nil {
		t.Errorf("a: %+v %v", got.d, got.err)
	}
	if got := result(t, resB); !errors.Is(got.err, context.Canceled) {
		t.Errorf("b: %+v %v", got.d, got.err)
	}
	if got := result(t, resC); got.text != "ok" || got.err != nil {
		t.Errorf("c: %q %v", got.text, got.err)
	}
}
