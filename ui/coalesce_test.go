package ui

import (
	"testing"
	"time"

	"talaria/loop"
)

// TestDeltasCoalesceUntilAnotherEvent: a batch ending in a delta goes on
// collecting the deltas that follow, and the first event that is not a
// delta (here the completed message) ends it at once: what comes after
// it is left for the next wait.
func TestDeltasCoalesceUntilAnotherEvent(t *testing.T) {
	ch := make(chan loop.Event) // unbuffered: each send waits for its receive
	d := func(s string) loop.Event {
		return &loop.MessageDelta{Header: hdr(loop.TypeMessageDelta, 1, 0), Text: s}
	}
	done := &loop.MessageCompleted{Header: hdr(loop.TypeMessageCompleted, 1, 0), Content: "abc"}
	after := d("next turn")
	go func() {
		ch <- d("b")
		ch <- d("c")
		ch <- done
		ch <- after
	}()
	// A linger far longer than the test: only the completed message can
	// end the batch.
	got := lingerDeltas(ch, nil, []loop.Event{d("a")}, time.Hour)
	if len(got.evs) != 4 || got.evs[3] != done || got.closed {
		t.Fatalf("batch = %d events (closed %v), want the three deltas and the completed message", len(got.evs), got.closed)
	}
	select {
	case ev := <-ch:
		if ev != after {
			t.Fatalf("left for the next wait: %T", ev)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the event after the completed message was taken")
	}
	// A batch that does not end in a delta is returned as it is.
	if got := lingerDeltas(ch, nil, []loop.Event{done}, time.Hour); len(got.evs) != 1 {
		t.Fatalf("a batch ending in %T was extended", done)
	}
}
