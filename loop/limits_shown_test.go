package loop

import (
	"context"
	"strings"
	"testing"

	"talaria/providers"
)

// bufferedTransport streams all of its deltas whatever happens to ctx,
// like a wire handing over what it had read before a cancel reached it,
// and then reports the cancel.
type bufferedTransport struct{ deltas []providers.Delta }

func (b bufferedTransport) Stream(ctx context.Context, _ providers.Request, onDelta func(providers.Delta)) (*providers.Response, error) {
	var text, reasoning strings.Builder
	for _, d := range b.deltas {
		onDelta(d)
		switch d.Kind {
		case providers.DeltaText:
			text.WriteString(d.Text)
		case providers.DeltaReasoning:
			reasoning.WriteString(d.Text)
		}
	}
	resp := &providers.Response{Content: text.String(), Reasoning: reasoning.String(), FinishReason: providers.FinishStop}
	return resp, ctx.Err()
}

// TestMaxResponseBytesCutsWhatIsShown: with agent.max_response_bytes at
// 2,000, the streamed deltas (message.delta and reasoning.delta, what the
// TUI and the JSON Lines show) stop at 2,000 bytes of text and reasoning
// together, the delta that passes it cut on a character boundary, even
// when the wire still hands over 6,600 characters after the cut (issue
// 24: they were all shown though only 2,000 were kept); what is shown
// of the text is what is kept.
func TestMaxResponseBytesCutsWhatIsShown(t *testing.T) {
	var deltas []providers.Delta
	deltas = append(deltas, providers.Delta{Kind: providers.DeltaReasoning, Text: strings.Repeat("r", 300)})
	for range 660 {
		deltas = append(deltas, providers.Delta{Kind: providers.DeltaText, Text: "ééééé"}) // 10 bytes, 5 characters
	}
	f := newFixture(t, func(o *Options) {
		o.MaxResponseBytes = 2000
		o.Transport = bufferedTransport{deltas: deltas}
	})
	res := f.run(t, "write a lot")
	if res.ExitReason.Kind != ExitResponseTooLarge {
		t.Fatalf("exit %q", res.ExitReason)
	}
	var text, reasoning strings.Builder
	for _, d := range ofType[*MessageDelta](f.rec) {
		text.WriteString(d.Text)
	}
	for _, d := range ofType[*ReasoningDelta](f.rec) {
		reasoning.WriteString(d.Text)
	}
	if n := text.Len() + reasoning.Len(); n > 2000 || n < 1990 {
		t.Fatalf("shown %d bytes of text and reasoning (%d of text), want at most 2,000 and not far under", n, text.Len())
	}
	if !strings.HasSuffix(text.String(), "é") || strings.Trim(text.String(), "é") != "" {
		t.Fatalf("the shown text was cut inside a character: %.20q…", text.String())
	}
	if res.FinalResponse != text.String() {
		t.Fatalf("kept %d bytes, shown %d", len(res.FinalResponse), text.Len())
	}
}
