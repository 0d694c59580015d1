package ui

import (
	"context"

	"talaria/loop"
)

// DefaultEventBuffer is the channel size [EventChannel] uses for size 0:
// enough for a long streamed answer while the screen is busy drawing.
const DefaultEventBuffer = 4096

// EventChannel returns the channel to put in [Options].Events and the
// loop.Sink that feeds it. The sink never drops an event: when the buffer
// is full it waits for the screen to drain it, which slows the stream
// rather than losing a terminal event. Once ctx is done (the screen has
// gone) the sink discards events instead of blocking the agent.
func EventChannel(ctx context.Context, size int) (<-chan loop.Event, loop.Sink) {
	if size <= 0 {
		size = DefaultEventBuffer
	}
	ch := make(chan loop.Event, size)
	sink := func(ev loop.Event) {
		select {
		case ch <- ev:
		case <-ctx.Done():
		}
	}
	return ch, sink
}
