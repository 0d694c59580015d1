package compress

import "testing"

// BenchmarkPlan5000 measures a compression's planning without the model
// call: pruning and planning over a 5,000-message history (1,000 turns of a
// user message, a two-call tool group with 1–2 KB outputs and an answer).
func BenchmarkPlan5000(b *testing.B) {
	msgs := session(1000)
	if len(msgs) != 5000 {
		b.Fatalf("%d messages", len(msgs))
	}
	opts := Options{ContextLength: 128_000, MaxTokens: 4096}
	b.ReportAllocs()
	for b.Loop() {
		pruned, _ := PruneToolOutputs(msgs, PruneBoundary(msgs, opts))
		if p := PlanCompression(pruned, opts); p.Noop {
			b.Fatal("nothing to compress")
		}
	}
}

// BenchmarkEstimate5000 measures a preflight estimate of the same history.
func BenchmarkEstimate5000(b *testing.B) {
	msgs := session(1000)
	b.ReportAllocs()
	for b.Loop() {
		Estimate(msgs, nil)
	}
}
