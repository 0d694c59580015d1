package app

import (
	"context"
	"fmt"
	"time"

	"talaria/loop"
)

// demoSteerSeconds is how long the tour waits for a steer: long enough to
// read the invitation, type a few words and press Enter.
const demoSteerSeconds = 10

// steerWindow is the tour's pause for a steer: a countdown streamed into
// the answer, cut short as soon as a steer is queued.
type steerWindow struct {
	tick    time.Duration // one step of the countdown (a second; less in tests)
	steered chan struct{} // one token once a steer was queued
}

func newSteerWindow(tick time.Duration) *steerWindow {
	return &steerWindow{tick: tick, steered: make(chan struct{}, 1)}
}

// watch passes events on to sink, noting the first steer.queued.
func (w *steerWindow) watch(sink loop.Sink) loop.Sink {
	return func(e loop.Event) {
		if _, ok := e.(*loop.SteerQueued); ok {
			select {
			case w.steered <- struct{}{}:
			default:
			}
		}
		if sink != nil {
			sink(e)
		}
	}
}

// countdown streams "10 … 9 … 8" one step per tick until a steer arrives
// (then it says so and returns at once) or the time is up.
func (w *steerWindow) countdown(ctx context.Context, emit func(string)) error {
	emit("\n\nWaiting for your steer:")
	t := time.NewTicker(w.tick)
	defer t.Stop()
	for left := demoSteerSeconds; left > 0; left-- {
		emit(fmt.Sprintf(" %d…", left))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-w.steered:
			w.steered <- struct{}{} // still true for later checks
			emit(" steer received, carrying on.")
			return nil
		case <-t.C:
		}
	}
	emit(" no steer this time, carrying on.")
	return nil
}
