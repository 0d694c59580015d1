package ui

import (
	"time"

	"talaria/loop"
)

// deltaLinger is how long the event wait goes on collecting after a
// batch that ends in a streamed delta. Deltas show only on the frame tick
// (frameInterval, see streamText), so waking the screen for each one (a
// provider may send 24 bytes a millisecond) costs an Update, a View and
// a handful of goroutine switches per delta and shows nothing sooner.
// Any other event ends the wait at once, so a completed message, a tool
// call or an approval request is applied as soon as it comes; key
// presses do not pass through here at all.
const deltaLinger = 20 * time.Millisecond

// lingerDeltas is the batch evs (taken from ch, non-empty) as the event
// wait returns it: when its last event is a delta, extended by the events
// that arrive within linger (deltaLinger), up to the first that is not a
// delta or maxEventBatch in all.
func lingerDeltas(ch <-chan loop.Event, stop <-chan struct{}, evs []loop.Event, linger time.Duration) eventsMsg {
	if !isDelta(evs[len(evs)-1]) {
		return eventsMsg{evs: evs}
	}
	t := time.NewTimer(linger)
	defer t.Stop()
	for len(evs) < maxEventBatch {
		select {
		case <-stop:
			return eventsMsg{evs: evs}
		case <-t.C:
			return eventsMsg{evs: evs}
		case ev, ok := <-ch:
			if !ok {
				return eventsMsg{evs: evs, closed: true}
			}
			evs = append(evs, ev)
			if !isDelta(ev) {
				return eventsMsg{evs: evs}
			}
		}
	}
	return eventsMsg{evs: evs}
}

// isDelta reports a streamed fragment of an answer or of reasoning.
func isDelta(ev loop.Event) bool {
	switch ev.(type) {
	case *loop.MessageDelta, *loop.ReasoningDelta:
		return true
	}
	return false
}
