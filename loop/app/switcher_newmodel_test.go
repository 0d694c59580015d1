package app

import (
	"context"
	"testing"

	pt "talaria/providers/providertest"
)

// TestNewKeepsModelChosenWithModel: after /model, /new opens the next
// session on the chosen model, and its first request goes there (the
// request went to the old model).
func TestNewKeepsModelChosenWithModel(t *testing.T) {
	w, ev, srv := switcherFixture(t)
	if _, err := w.SetModel(context.Background(), "openai/gpt-4.1-mini"); err != nil {
		t.Fatal(err)
	}
	s, err := w.New()
	if err != nil {
		t.Fatal(err)
	}
	if s.Backend.Model != "gpt-4.1-mini" || s.Record.Model != "gpt-4.1-mini" {
		t.Fatalf("the new session is on %s/%s (record %q)", s.Backend.Provider, s.Backend.Model, s.Record.Model)
	}
	srv.Push(pt.Text("hi"))
	ev.turn(t, w, "hello")
	reqs := srv.Requests()
	if got := reqs[len(reqs)-1]["model"]; got != "gpt-4.1-mini" {
		t.Errorf("the first request of the new session went to %v", got)
	}
}
