package app

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"talaria/loop"
	"talaria/loop/config"
	pt "talaria/providers/providertest"
)

// events collects what the sessions of a switcher emit.
type events struct {
	mu  sync.Mutex
	all []loop.Event
	fin chan *loop.TurnFinished
}

func newEvents() *events { return &events{fin: make(chan *loop.TurnFinished, 16)} }

func (e *events) sink(ev loop.Event) {
	e.mu.Lock()
	e.all = append(e.all, ev)
	e.mu.Unlock()
	if f, ok := ev.(*loop.TurnFinished); ok {
		e.fin <- f
	}
}

// turn starts input on the switcher and waits for its turn.finished.
func (e *events) turn(t *testing.T, w *Switcher, input string) *loop.TurnFinished {
	t.Helper()
	if err := w.Start(context.Background(), input); err != nil {
		t.Fatal(err)
	}
	select {
	case f := <-e.fin:
		return f
	case <-time.After(30 * time.Second):
		t.Fatal("turn.finished did not come")
		return nil
	}
}

// switcherFixture is a switcher on an OpenAI-compatible test server, with
// tools approved (yolo), in a temporary home and directory.
func switcherFixture(t *testing.T) (*Switcher, *events, *pt.Server) {
	t.Helper()
	srv := pt.New(t)
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("OPENAI_BASE_URL", srv.URL())
	home, cwd := t.TempDir(), t.TempDir()
	ev := newEvents()
	f := Flags{Home: home, Cwd: cwd, Overrides: config.Overrides{Provider: "openai", Model: "gpt-4.1", Yolo: true}}
	w := NewSwitcher(context.Background(), f, ev.sink)
	if _, err := w.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	return w, ev, srv
}

// /model changes the backend of the running session in place: the same
// agent, history and tools; a background process the user started lives
// on; the next request names the new model and the system prompt's
// runtime lines follow, in the request and in the store.
func TestSetModelKeepsBackgroundProcesses(t *testing.T) {
	w, ev, srv := switcherFixture(t)
	s := w.Current()
	srv.Push(pt.ToolCalls(pt.Call{Name: "terminal", Args: `{"command":"sleep 60","background":true}`}), pt.Text("started it"))
	if f := ev.turn(t, w, "start a server"); !f.Completed {
		t.Fatalf("first turn: %+v", f)
	}
	procs := s.tools.env.Processes
	if procs.Running() != 1 {
		t.Fatalf("background processes running: %d, want 1", procs.Running())
	}
	before := len(s.Agent.History())

	b, err := w.SetModel(context.Background(), "openai/gpt-4.1-mini")
	if err != nil || b.Model != "gpt-4.1-mini" || b.Provider != "openai" {
		t.Fatalf("SetModel = %+v, %v", b, err)
	}
	if w.Current() != s || procs.Running() != 1 || len(s.Agent.History()) != before {
		t.Fatalf("/model replaced the session: same %v, running %d, history %d→%d",
			w.Current() == s, procs.Running(), before, len(s.Agent.History()))
	}
	if p := s.parts.childOptions(context.Background(), nil); p.Model != "gpt-4.1-mini" || !strings.HasSuffix(p.SystemPrompt, "Model: gpt-4.1-mini\nProvider: openai") {
		t.Error("subagents would still be made for the old model")
	}
	srv.Push(pt.Text("still here"))
	if f := ev.turn(t, w, "and now?"); f.FinalResponse != "still here" {
		t.Fatalf("second turn: %+v", f)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	if last["model"] != "gpt-4.1-mini" {
		t.Errorf("the next request went to %v", last["model"])
	}
	msgs := last["messages"].([]any)
	sys := msgs[0].(map[string]any)["content"].(string)
	if !strings.HasSuffix(sys, "Model: gpt-4.1-mini\nProvider: openai") {
		t.Errorf("system prompt runtime lines: %q", sys[max(0, len(sys)-60):])
	}
	if len(msgs) != before+2 { // system + history + the new user message
		t.Errorf("request carried %d messages, want %d (the history kept)", len(msgs), before+2)
	}
	rec, err := s.Store.GetSession(s.Record.ID)
	if err != nil || rec.Model != "gpt-4.1-mini" {
		t.Errorf("stored session model = %q, %v", rec.Model, err)
	}
	stored, _, _ := s.Store.SystemPrompt(s.Record.ID)
	if stored == nil || *stored != sys {
		t.Error("the stored system prompt is not the one sent")
	}
	// Closing the switcher (quitting) ends the session's processes.
	w.Close()
	if procs.Running() != 0 {
		t.Errorf("background processes after close: %d", procs.Running())
	}
}

// /model is refused while a turn runs: the agent's backend must not
// change under a turn.
func TestSetModelRefusedWhileBusy(t *testing.T) {
	w, ev, srv := switcherFixture(t)
	hold := make(chan struct{})
	srv.Push(pt.Reply{Chunks: pt.TextChunks("slow answer", "stop"), Hold: hold})
	if err := w.Start(context.Background(), "hi"); err != nil {
		t.Fatal(err)
	}
	_, err := w.SetModel(context.Background(), "gpt-4.1-mini")
	if err == nil || !strings.Contains(err.Error(), "a turn is running") {
		t.Errorf("SetModel during a turn: %v", err)
	}
	close(hold)
	if f := <-ev.fin; f.FinalResponse != "slow answer" {
		t.Errorf("the turn: %+v", f)
	}
}

// The session is read (picker search, listing) from one goroutine while
// another switches it (Enter in the picker, /model): run under -race.
func TestSwitcherConcurrentReadsAndSwitches(t *testing.T) {
	w, _, _ := switcherFixture(t)
	first := w.Current().Record.ID
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if s := w.Current(); s != nil && s.Store != nil {
				_, _ = s.Store.SearchSessions(context.Background(), "hello*", 10, "")
			}
			_ = w.Backend()
		}
	}()
	for i := 0; i < 5; i++ {
		if _, err := w.New(); err != nil {
			t.Error(err)
		}
		if _, err := w.Resume(first); err != nil {
			t.Error(err)
		}
		if _, err := w.SetModel(context.Background(), "gpt-4.1-mini"); err != nil {
			t.Error(err)
		}
	}
	close(stop)
	wg.Wait()
	if w.Current().Record.ID != first {
		t.Errorf("current session %s, want %s", w.Current().Record.ID, first)
	}
}
