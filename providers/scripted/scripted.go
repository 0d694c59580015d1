// Package scripted is a Transport that plays a script instead of calling a
// model: each model call asks the script for the next reply, which is then
// streamed word by word with a delay. It drives the offline tour (--demo)
// through the real loop, tools and UI.
package scripted

import (
	"context"
	"strings"
	"sync"
	"time"

	"talaria/providers"
)

// Reply is one scripted model answer, or an error.
type Reply struct {
	// Err, when set, is returned instead of a response (e.g. a 429).
	Err       *providers.APIError
	Reasoning string
	Text      string
	Calls     []providers.ToolCall
	// Finish defaults to stop, or tool_calls when Calls is set.
	Finish string
	// After, when set, runs once Text has streamed; the text it emits is
	// streamed at once as more of the answer (a countdown, say). It returns
	// when ctx ends or it is done.
	After func(ctx context.Context, emit func(text string)) error
}

// Script decides the reply to call n (1-based) given the request.
type Script func(n int, req providers.Request) Reply

// Transport plays a Script.
type Transport struct {
	script Script
	// Delay is the pause between streamed words.
	delay time.Duration

	mu sync.Mutex
	n  int
}

// New returns a scripted transport streaming one word per delay.
func New(script Script, delay time.Duration) *Transport {
	return &Transport{script: script, delay: delay}
}

// Stream asks the script for the next reply and streams it.
func (t *Transport) Stream(ctx context.Context, req providers.Request, onDelta func(providers.Delta)) (*providers.Response, error) {
	t.mu.Lock()
	t.n++
	n := t.n
	t.mu.Unlock()
	rep := t.script(n, req)
	if rep.Err != nil {
		if !providers.Sleep(ctx, t.delay*4) {
			return nil, ctx.Err()
		}
		return nil, rep.Err
	}
	resp := &providers.Response{Model: req.Model, FinishReason: rep.Finish}
	if err := t.play(ctx, rep.Reasoning, providers.DeltaReasoning, onDelta, &resp.Reasoning); err != nil {
		return resp, err
	}
	if err := t.play(ctx, rep.Text, providers.DeltaText, onDelta, &resp.Content); err != nil {
		return resp, err
	}
	if rep.After != nil {
		emit := func(s string) {
			resp.Content += s
			if onDelta != nil {
				onDelta(providers.Delta{Kind: providers.DeltaText, Text: s})
			}
		}
		if err := rep.After(ctx, emit); err != nil {
			return resp, err
		}
	}
	for i, c := range rep.Calls {
		if onDelta != nil {
			onDelta(providers.Delta{Kind: providers.DeltaToolCall, ToolIndex: i, ToolName: c.Name})
		}
	}
	resp.ToolCalls = rep.Calls
	if resp.FinishReason == "" {
		resp.FinishReason = providers.FinishStop
		if len(rep.Calls) > 0 {
			resp.FinishReason = providers.FinishToolCalls
		}
	}
	words := len(strings.Fields(rep.Text + " " + rep.Reasoning))
	resp.Usage = providers.Usage{InputTokens: 400 * n, OutputTokens: words + 20*len(rep.Calls)}
	return resp, nil
}

// play streams text word by word into dst.
func (t *Transport) play(ctx context.Context, text string, kind providers.DeltaKind, onDelta func(providers.Delta), dst *string) error {
	for _, w := range strings.SplitAfter(text, " ") {
		if w == "" {
			continue
		}
		if !providers.Sleep(ctx, t.delay) {
			return ctx.Err()
		}
		*dst += w
		if onDelta != nil {
			onDelta(providers.Delta{Kind: kind, Text: w})
		}
	}
	return nil
}
