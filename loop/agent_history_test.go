package loop

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"talaria/providers"
	"talaria/providers/providertest"
)

// storedHistory is n earlier messages, alternating question and answer.
func storedHistory(n int) []providers.Message {
	out := make([]providers.Message, n)
	for i := range out {
		out[i] = providers.Message{Role: providers.RoleUser, Content: fmt.Sprintf("question %d", i), Timestamp: 1}
		if i%2 == 1 {
			out[i] = providers.Message{Role: providers.RoleAssistant, Content: fmt.Sprintf("answer %d", i), Timestamp: 1}
		}
	}
	return out
}

// A session opened with a loader holds nothing until a turn needs the
// history; the turn then sends all of it, read once.
func TestLazyHistoryIsReadOnceAtTheFirstTurn(t *testing.T) {
	var reads atomic.Int32
	f := newFixture(t, func(o *Options) {
		o.LoadHistory = func() ([]providers.Message, error) {
			reads.Add(1)
			return storedHistory(1000), nil
		}
		o.Turns = 500
	})
	if !f.agent.HistoryPending() || reads.Load() != 0 {
		t.Fatalf("opened: pending %v, reads %d", f.agent.HistoryPending(), reads.Load())
	}
	f.srv.Push(providertest.Text("one"), providertest.Text("two"))
	f.run(t, "go on")
	if msgs := messages(t, f.srv, 0); len(msgs) != 1+1000+1 || msgs[1]["content"] != "question 0" || msgs[1001]["content"] != "go on" {
		t.Fatalf("the first turn sent %d messages", len(msgs))
	}
	f.run(t, "and again")
	if n := len(messages(t, f.srv, 1)); n != 1+1000+3 {
		t.Fatalf("the second turn sent %d messages", n)
	}
	if reads.Load() != 1 || f.agent.HistoryPending() || len(f.agent.History()) != 1004 {
		t.Fatalf("reads %d, pending %v, history %d", reads.Load(), f.agent.HistoryPending(), len(f.agent.History()))
	}
}

// A history that cannot be read fails the turn that needed it, clearly,
// before anything is sent; the next need reads it again.
func TestLazyHistoryReadErrorFailsTheTurn(t *testing.T) {
	fail := atomic.Bool{}
	fail.Store(true)
	f := newFixture(t, func(o *Options) {
		o.LoadHistory = func() ([]providers.Message, error) {
			if fail.Load() {
				return nil, errors.New("disk on fire")
			}
			return storedHistory(4), nil
		}
	})
	err := f.agent.Start(context.Background(), "hello")
	var he *HistoryError
	if !errors.As(err, &he) || f.agent.Busy() {
		t.Fatalf("Start: %v (busy %v)", err, f.agent.Busy())
	}
	if _, err := f.agent.Run(context.Background(), "hello"); !errors.As(err, &he) {
		t.Fatalf("Run: %v", err)
	}
	if err := f.agent.Compress(context.Background(), ""); !errors.As(err, &he) {
		t.Fatalf("Compress: %v", err)
	}
	if h, err := f.agent.LoadedHistory(); !errors.As(err, &he) || h != nil {
		t.Fatalf("LoadedHistory: %d messages, %v", len(h), err)
	}
	if len(f.srv.Requests()) != 0 || len(f.rec.all()) != 0 {
		t.Fatalf("something ran: %d requests, events %v", len(f.srv.Requests()), f.rec.types())
	}
	fail.Store(false)
	f.srv.Push(providertest.Text("ok"))
	f.run(t, "hello")
	if n := len(messages(t, f.srv, 0)); n != 1+4+1 {
		t.Fatalf("sent %d messages after the retry", n)
	}
}

// A rewind replaces a history not read yet without reading it.
func TestLazyHistoryReplacedUnread(t *testing.T) {
	f := newFixture(t, func(o *Options) {
		o.LoadHistory = func() ([]providers.Message, error) { return nil, errors.New("must not be read") }
	})
	if err := f.agent.ReplaceHistory(storedHistory(2), 1); err != nil {
		t.Fatal(err)
	}
	if f.agent.HistoryPending() {
		t.Fatal("still pending after the rewind")
	}
	f.srv.Push(providertest.Text("ok"))
	f.run(t, "next")
	if n := len(messages(t, f.srv, 0)); n != 1+2+1 {
		t.Fatalf("sent %d messages", n)
	}
}
