package compress

import "testing"

func TestWindow(t *testing.T) {
	for _, c := range []struct{ ctx, max, want int }{
		{128_000, 4096, 123_904},
		{128_000, 0, 128_000},
		{8192, 8192, 4096}, // a cap that does not fit: half the context
		{8192, 20_000, 4096},
		{0, 100, 0},
	} {
		if got := Window(c.ctx, c.max); got != c.want {
			t.Errorf("Window(%d, %d) = %d, want %d", c.ctx, c.max, got, c.want)
		}
	}
}

func TestThreshold(t *testing.T) {
	for _, c := range []struct {
		name     string
		ctx, max int
		pct      float64
		want     int
	}{
		{"128k raises pct to 0.75", 128_000, 4096, 0.50, 92_928},
		{"1M keeps pct", 1_047_576, 32_768, 0.50, 507_404},
		{"1M exact", 1_048_576, 0, 0.50, 524_288},
		{"512K is not raised", 512_000, 0, 0.50, 256_000},
		{"just under 512K is raised", 400_000, 128_000, 0.50, 204_000},
		{"raise only: 0.9 stays", 200_000, 8192, 0.90, 172_627},
		{"64k floor", 80_000, 0, 0.50, 64_000},
		{"64k floor at 75k", 75_000, 0, 0.50, 64_000},
		{"floor reaches window: 85%", 8192, 0, 0.50, 6963},
		{"floor equals window: 85%", 64_000, 0, 0.50, 54_400},
		{"pct 1 reaches window: 85%", 70_000, 0, 1.0, 59_500},
		{"pct 0 is the default", 1_048_576, 0, 0, 524_288},
		{"pct over 1 is capped", 1_048_576, 0, 3, 891_289},
		{"unknown context", 0, 0, 0.5, 0},
	} {
		if got := Threshold(c.ctx, c.max, c.pct); got != c.want {
			t.Errorf("%s: Threshold(%d, %d, %g) = %d, want %d", c.name, c.ctx, c.max, c.pct, got, c.want)
		}
	}
}

func TestContextLength(t *testing.T) {
	for _, c := range []struct {
		provider, model string
		configured      int
		want            int
	}{
		{"openai", "gpt-4.1", 0, 1_047_576},
		{"openai", "gpt-4.1-mini", 0, 1_047_576},
		{"openai", "gpt-4o", 0, 128_000},
		{"openai", "gpt-4o-mini", 0, 128_000},
		{"openai", "o3", 0, 200_000},
		{"openai", "o3-mini", 0, 200_000},
		{"openai", "o4-mini", 0, 200_000},
		{"openai", "gpt-5", 0, 400_000},
		{"openai-responses", "gpt-5-codex", 0, 400_000},
		{"anthropic", "claude-sonnet-4-5", 0, 200_000},
		{"anthropic", "claude-opus-4-1-20250805", 0, 200_000},
		{"bedrock", "us.anthropic.claude-sonnet-4-20250514-v1:0", 0, 200_000},
		{"gemini", "gemini-2.5-pro", 0, 1_048_576},
		{"openrouter", "google/gemini-2.5-flash", 0, 1_048_576},
		{"custom", "deepseek-chat", 0, 128_000},
		{"openrouter", "deepseek/deepseek-r1", 0, 128_000},
		{"ollama", "qwen3:8b", 0, 40_960},
		{"openrouter", "qwen/qwen3-235b-a22b", 0, 131_072},
		{"ollama", "llama3.1:8b", 0, 131_072},
		{"ollama", "mystery-model", 0, DefaultLocalContext},
		{"llamacpp", "", 0, DefaultLocalContext},
		{"custom", "mystery-model", 0, DefaultContext},
		{"openai", "gpt-4o", 50_000, 50_000}, // configured wins
		{"ollama", "qwen3:8b", 16_384, 16_384},
	} {
		if got := ContextLength(c.provider, c.model, c.configured); got != c.want {
			t.Errorf("ContextLength(%q, %q, %d) = %d, want %d", c.provider, c.model, c.configured, got, c.want)
		}
	}
}
