package ui

import (
	"context"
	"testing"
	"time"

	"talaria/loop"
)

// sinkWait bounds the waits of the sink tests (a hung test, not a timing
// assert).
const sinkWait = 30 * time.Second

// TestEventChannelNeverDrops: with a full buffer the sink waits for the
// screen instead of dropping: every event of a burst far larger than the
// buffer arrives, in order, the terminal turn.finished last.
func TestEventChannelNeverDrops(t *testing.T) {
	ch, sink := EventChannel(context.Background(), 2)
	const n = 1000
	go func() {
		for i := range n {
			sink(&loop.MessageDelta{Header: loop.Header{Type: loop.TypeMessageDelta, Turn: i}})
		}
		sink(&loop.TurnFinished{Header: loop.Header{Type: loop.TypeTurnFinished}})
	}()
	for i := range n + 1 {
		select {
		case ev := <-ch:
			if i == n {
				if _, ok := ev.(*loop.TurnFinished); !ok {
					t.Fatalf("event %d is %T, want the turn.finished", i, ev)
				}
				return
			}
			if d, ok := ev.(*loop.MessageDelta); !ok || d.Turn != i {
				t.Fatalf("event %d is %T %+v: one was dropped or reordered", i, ev, ev.Meta())
			}
		case <-time.After(sinkWait):
			t.Fatalf("event %d never came: the sink dropped it", i)
		}
	}
}

// TestEventChannelBlocksUntilDrainedThenStopsWithTheScreen: a sink call on
// a full buffer returns only once the screen takes an event; after the
// screen's context ends it returns at once and the agent is not held.
func TestEventChannelBlocksUntilDrainedThenStopsWithTheScreen(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	ch, sink := EventChannel(ctx, 1)
	sink(&loop.TurnStarted{})
	done := make(chan struct{})
	go func() {
		sink(&loop.TurnFinished{})
		close(done)
	}()
	<-ch // the screen takes the first
	select {
	case <-done:
	case <-time.After(sinkWait):
		t.Fatal("the sink still waits after the screen drained")
	}
	select {
	case ev := <-ch:
		if _, ok := ev.(*loop.TurnFinished); !ok {
			t.Fatalf("the second event is %T, not the turn.finished", ev)
		}
	case <-time.After(sinkWait):
		t.Fatal("the turn.finished was dropped")
	}
	sink(&loop.TurnStarted{}) // fills the buffer again
	cancel()
	returned := make(chan struct{})
	go func() {
		sink(&loop.TurnFinished{}) // the screen has gone: discarded
		close(returned)
	}()
	select {
	case <-returned:
	case <-time.After(sinkWait):
		t.Fatal("the sink blocks the agent after the screen has gone")
	}
}
