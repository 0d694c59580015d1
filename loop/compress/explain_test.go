package compress

import (
	"strings"
	"testing"

	"talaria/providers"
)

// TestNoopReasonSaysWhyAndWhatItNeeds: 61 short turns in a 128k window
// all fit in the kept tail, so the explanation gives the sizes and how
// much more conversation a compression needs.
func TestNoopReasonSaysWhyAndWhatItNeeds(t *testing.T) {
	var msgs []providers.Message
	for i := 0; i < 61; i++ {
		msgs = append(msgs, user(words(20)), asst(words(30)))
	}
	o := Options{ContextLength: 128_000}
	if p := PlanCompression(msgs, o); !p.Noop {
		t.Fatalf("plan is not a no-op: middle %d", len(p.Middle))
	}
	got := NoopReason(msgs, o)
	for _, want := range []string{"122 messages", "kept verbatim", "first 3 messages", "up to ~19.2k tokens", "at least 8 messages",
		"/compress needs older turns beyond that tail, about", "Automatic compression starts at ~96.0k tokens of the 128.0k window"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in %q", want, got)
		}
	}

	if got := NoopReason(msgs[:6], o); !strings.Contains(got, "6 messages") {
		t.Errorf("short: %q", got)
	}
	if got := NoopReason(nil, o); got != "the conversation is empty" {
		t.Errorf("empty: %q", got)
	}
}
