package providers

import (
	"math"
	"testing"
)

func TestEstimateCost(t *testing.T) {
	cases := []struct {
		model string
		u     Usage
		want  float64
		ok    bool
	}{
		{"gpt-4.1", Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000}, 10.00, true},
		{"gpt-4.1-mini-2025-04-14", Usage{InputTokens: 1_000_000}, 0.40, true}, // the longer prefix wins
		{"openai/gpt-4o", Usage{OutputTokens: 500_000}, 5.00, true},
		{"claude-sonnet-4-5", Usage{CacheReadTokens: 1_000_000, CacheWriteTokens: 1_000_000}, 0.30 + 3.75, true},
		{"anthropic.claude-haiku-4-5-v1:0", Usage{InputTokens: 2_000_000}, 2.00, true},
		{"qwen3:8b", Usage{InputTokens: 1000}, 0, false},
	}
	for _, c := range cases {
		got, ok := EstimateCost(c.model, c.u)
		if ok != c.ok || math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: got %v %v, want %v %v", c.model, got, ok, c.want, c.ok)
		}
	}
}
