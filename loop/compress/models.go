package compress

import "strings"

// Context lengths used when neither the config nor the built-in table
// knows the model.
const (
	// DefaultLocalContext is assumed for an unknown model on a local server
	// (ollama, llama.cpp, LM Studio, vLLM): they often serve a small window
	// whatever the model could take, and a low guess compresses early rather
	// than overflowing. Set model.context_length to the server's real value.
	DefaultLocalContext = 8192
	// DefaultContext is assumed for an unknown model anywhere else.
	DefaultContext = 32768
)

// Threshold rules of the design (hermes.md §8).
const (
	// DefaultThreshold is the compression.threshold default.
	DefaultThreshold = 0.50
	// MinimumThreshold is the floor of the threshold in tokens.
	MinimumThreshold = 64_000
	// largeContext is the size below which the threshold fraction is
	// raised to at least smallContextPct.
	largeContext    = 512_000
	smallContextPct = 0.75
	// overWindowPct is used when the floor reaches the window.
	overWindowPct = 0.85
)

// ContextLength returns the context window of model on provider. A positive
// configured value (model.context_length) always wins; then the built-in
// table of common models (matched on the lower-cased id, so routed ids such
// as "openai/gpt-4o" and Bedrock ids such as "us.anthropic.claude-…" match);
// then DefaultLocalContext for local servers and DefaultContext otherwise.
// Claude models are taken at 200k: the 1M beta is not assumed.
func ContextLength(provider, model string, configured int) int {
	if configured > 0 {
		return configured
	}
	local := isLocal(provider)
	if n := knownContext(strings.ToLower(model), local); n > 0 {
		return n
	}
	if local {
		return DefaultLocalContext
	}
	return DefaultContext
}

func isLocal(provider string) bool {
	switch strings.ToLower(provider) {
	case "ollama", "llamacpp", "llama.cpp", "llama-cpp", "lmstudio", "lm-studio", "vllm", "local":
		return true
	}
	return false
}

// knownContext is the built-in table, most specific patterns first.
func knownContext(m string, local bool) int {
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	has := func(subs ...string) bool {
		for _, s := range subs {
			if strings.Contains(m, s) {
				return true
			}
		}
		return false
	}
	family := func(name string) bool { // "o3" or "o3-…" but not "o3x"
		return m == name || strings.HasPrefix(m, name+"-")
	}
	switch {
	case has("gpt-4.1"):
		return 1_047_576
	case has("gpt-5"):
		return 400_000
	case has("gpt-4o", "gpt-4.5", "gpt-4-turbo", "gpt-4-1106", "gpt-4-0125"):
		return 128_000
	case has("gpt-4-32k"):
		return 32_768
	case has("gpt-4"):
		return 8_192
	case has("gpt-3.5"):
		return 16_385
	case has("gpt-oss"):
		return 131_072
	case family("o1-mini"):
		return 128_000
	case family("o1"), family("o3"), family("o4-mini"), has("codex-mini"):
		return 200_000
	case has("claude"):
		return 200_000
	case has("gemini-1.5-pro"):
		return 2_097_152
	case has("gemini"):
		return 1_048_576
	case has("gemma3", "gemma-3"):
		return 131_072
	case has("deepseek"):
		return 128_000
	case has("qwen3-coder"):
		return 262_144
	case has("qwen3"):
		if local {
			return 40_960 // the window local builds ship with
		}
		return 131_072
	case has("qwen2.5"):
		return 32_768
	case has("llama3.1", "llama-3.1", "llama3.2", "llama-3.2", "llama3.3", "llama-3.3"):
		return 131_072
	case has("llama3", "llama-3"):
		return 8_192
	case has("mistral-large", "mistral-medium", "mistral-small"):
		return 131_072
	case has("codestral"):
		return 256_000
	case has("mixtral"):
		return 32_768
	case has("grok-4"):
		return 256_000
	case has("grok-3"):
		return 131_072
	case has("kimi-k2"):
		return 131_072
	}
	return 0
}

// Window is the effective input window: the context length minus the output
// cap. A cap of 0 (left to the provider) reserves nothing; a cap that does
// not fit the context is treated as a misconfiguration and half the context
// is kept for input.
func Window(contextLength, maxTokens int) int {
	switch {
	case contextLength <= 0:
		return 0
	case maxTokens <= 0:
		return contextLength
	case maxTokens >= contextLength:
		return contextLength / 2
	}
	return contextLength - maxTokens
}

// Threshold is the prompt size in tokens at which compression fires
// (hermes.md §8): pct (0 means DefaultThreshold, capped at 1) is raised to
// at least 0.75 for contexts under 512K; the threshold is
// max(window·pct, 64,000), and when that reaches the window, 85% of the
// window instead.
func Threshold(contextLength, maxTokens int, pct float64) int {
	w := Window(contextLength, maxTokens)
	if w <= 0 {
		return 0
	}
	switch {
	case pct <= 0:
		pct = DefaultThreshold
	case pct > 1:
		pct = 1
	}
	if contextLength < largeContext && pct < smallContextPct {
		pct = smallContextPct
	}
	t := max(int(float64(w)*pct), MinimumThreshold)
	if t >= w {
		t = int(float64(w) * overWindowPct)
	}
	return t
}
