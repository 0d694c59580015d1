package providers

import (
	"strings"
	"testing"
	"time"
)

func TestChainDedupeAndSkip(t *testing.T) {
	primary := Backend{Provider: "openai", Model: "gpt-4.1", BaseURL: "https://api.openai.com/v1", APIKeys: []string{"a"}}
	c := NewFallbackChain(primary, []Backend{
		{Provider: "OpenAI", Model: "gpt-4.1", BaseURL: "https://api.openai.com/v1/"}, // = primary
		{Provider: "anthropic", Model: "claude-sonnet-4-5"},
		{Provider: "anthropic", Model: "claude-sonnet-4-5"}, // duplicate
		{}, // empty
		{Provider: "anthropic", Model: "claude-sonnet-4-5", BaseURL: "http://proxy:8080"},
		{Provider: "ollama", Model: "qwen3"},
	})
	var got []string
	for _, b := range c.Backends() {
		got = append(got, b.Provider+"/"+b.Model+"@"+b.BaseURL)
	}
	want := "openai/gpt-4.1@https://api.openai.com/v1 anthropic/claude-sonnet-4-5@ anthropic/claude-sonnet-4-5@http://proxy:8080 ollama/qwen3@"
	if strings.Join(got, " ") != want {
		t.Fatalf("chain = %v", got)
	}
	if c.Len() != 4 || c.Primary().Model != "gpt-4.1" {
		t.Errorf("Len %d Primary %+v", c.Len(), c.Primary())
	}
}

func TestChainAdvanceExhaustCooldownReset(t *testing.T) {
	clk := newFakeClock()
	primary := Backend{Provider: "openai", Model: "gpt-4.1", APIKeys: []string{"p1"}}
	c := NewFallbackChain(primary, []Backend{
		{Provider: "anthropic", Model: "claude", APIKeys: []string{"a1"}},
		{Provider: "ollama", Model: "qwen3"},
	}).WithClock(clk.Now)
	if c.Active() || c.Current().Provider != "openai" || c.Index() != 0 {
		t.Fatal("starts on the primary")
	}
	if k, _ := c.Pool().Current(); k != "p1" {
		t.Fatalf("primary pool key %q", k)
	}
	b, ok := c.Advance()
	if !ok || b.Provider != "anthropic" || !c.Active() {
		t.Fatalf("Advance → %+v %v", b, ok)
	}
	if k, _ := c.Pool().Current(); k != "a1" {
		t.Fatalf("fallback pool key %q", k)
	}
	b, ok = c.Advance()
	if !ok || b.Provider != "ollama" {
		t.Fatalf("Advance → %+v %v", b, ok)
	}
	b, ok = c.Advance()
	if ok || b.Provider != "ollama" {
		t.Fatalf("exhausted chain: %+v %v", b, ok)
	}
	c.Cooldown(time.Minute)
	if !c.InCooldown(clk.Now()) {
		t.Error("cooling down")
	}
	c.Reset()
	if c.Active() || c.Current().Provider != "openai" {
		t.Fatal("Reset restores the primary")
	}
	if _, ok := c.Advance(); ok {
		t.Error("no advance during a cooldown, even after Reset")
	}
	clk.Advance(time.Minute)
	if c.InCooldown(clk.Now()) {
		t.Error("cooldown over")
	}
	if b, ok := c.Advance(); !ok || b.Provider != "anthropic" {
		t.Errorf("after cooldown: %+v %v", b, ok)
	}
}

func TestChainSkipsFallbackWithoutUsableKeys(t *testing.T) {
	clk := newFakeClock()
	c := NewFallbackChain(Backend{Provider: "openai", Model: "a", APIKeys: []string{"p"}}, []Backend{
		{Provider: "anthropic", Model: "b", APIKeys: []string{"x"}},
		{Provider: "gemini", Model: "c", APIKeys: []string{"y"}},
	}).WithClock(clk.Now)
	c.Advance()
	c.Pool().Report("x", newClassified(ReasonBilling), time.Time{})
	c.Reset()
	// Next turn: the primary fails again; anthropic's only key still rests.
	if b, ok := c.Advance(); !ok || b.Provider != "gemini" {
		t.Fatalf("should skip the exhausted backend: %+v %v", b, ok)
	}
	// Pools keep their state across Reset (the primary's key too).
	c.Reset()
	c.Pool().Report("p", newClassified(ReasonRateLimit), time.Time{})
	c.Reset()
	if _, ok := c.Pool().Current(); ok {
		t.Error("the primary's exhausted key stays exhausted across turns until its reset")
	}
}

func TestShouldFallbackNow(t *testing.T) {
	cls := func(r FailoverReason) Classified { return newClassified(r) }
	cases := []struct {
		reason  FailoverReason
		retries int
		rotate  bool
		want    bool
	}{
		{ReasonRateLimit, 0, false, true},
		{ReasonRateLimit, 0, true, false},
		{ReasonBilling, 0, false, true},
		{ReasonBilling, 0, true, false},
		{ReasonUpstreamRateLimit, 0, true, true},
		{ReasonUpstreamRateLimit, 0, false, true},
		{ReasonAuth, 0, false, true},
		{ReasonAuth, 0, true, false},
		{ReasonAuthPermanent, 0, false, true},
		{ReasonTimeout, 1, false, false},
		{ReasonTimeout, 2, false, true},
		{ReasonOverloaded, 0, false, false},
		{ReasonOverloaded, 2, false, true},
		{ReasonServerError, 5, false, false},
		{ReasonUnknown, 5, false, false},
		{ReasonModelNotFound, 0, false, true},
		{ReasonFormatError, 0, false, true},
		{ReasonContextOverflow, 0, false, false},
		{ReasonPayloadTooLarge, 0, false, false},
		{ReasonLongContextTier, 0, false, false},
		{ReasonContentPolicyBlocked, 0, false, false},
		{ReasonProviderPolicyBlocked, 0, false, false},
		{ReasonLocalError, 0, false, false},
		{ReasonInterrupted, 0, false, false},
		{ReasonSSLCertVerification, 0, false, false},
		{ReasonThinkingSignature, 0, false, false},
		{ReasonLlamaCppGrammar, 0, false, false},
	}
	for _, tc := range cases {
		if got := ShouldFallbackNow(cls(tc.reason), tc.retries, tc.rotate); got != tc.want {
			t.Errorf("ShouldFallbackNow(%s, retries=%d, rotate=%v) = %v, want %v", tc.reason, tc.retries, tc.rotate, got, tc.want)
		}
	}
	// The bare 404 (unknown, deliberately no fallback).
	if ShouldFallbackNow(Classify(&APIError{Status: 404, Body: "404 page not found"}), 3, false) {
		t.Error("a bare 404 never falls back")
	}
}

func TestRewriteRuntimeLines(t *testing.T) {
	prompt := "You are talaria.\nModel: gpt-4.1 is mentioned here\nProvider: openai earlier\n\nRules...\nModel: gpt-4.1\nProvider: openai"
	got := RewriteRuntimeLines(prompt, "anthropic", "claude-sonnet-4-5")
	want := "You are talaria.\nModel: gpt-4.1 is mentioned here\nProvider: openai earlier\n\nRules...\nModel: claude-sonnet-4-5\nProvider: anthropic"
	if got != want {
		t.Fatalf("got\n%s", got)
	}
	if again := RewriteRuntimeLines(got, "anthropic", "claude-sonnet-4-5"); again != got {
		t.Error("not idempotent")
	}
	if back := RewriteRuntimeLines(got, "openai", "gpt-4.1"); back != prompt {
		t.Error("round trip")
	}
	cases := []struct{ name, in, want string }{
		{"trailing newline kept", "x\nModel: a\nProvider: b\n", "x\nModel: m\nProvider: p\n"},
		{"only the pair", "Model: a\nProvider: b", "Model: m\nProvider: p"},
		{"reversed order", "x\nProvider: b\nModel: a", "x\nProvider: p\nModel: m"},
		{"crlf", "x\r\nModel: a\r\nProvider: b\r\n", "x\r\nModel: m\r\nProvider: p\r\n"},
		{"no runtime lines", "just a prompt", "just a prompt"},
		{"not at the end", "Model: a\nProvider: b\nmore text", "Model: a\nProvider: b\nmore text"},
		{"only provider", "x\nProvider: b", "x\nProvider: b"},
		{"empty", "", ""},
	}
	for _, tc := range cases {
		if got := RewriteRuntimeLines(tc.in, "p", "m"); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	if got := RewriteRuntimeLines("Model: a\nProvider: b", "p\nInjected: x", "m"); got != "Model: m\nProvider: p Injected: x" {
		t.Errorf("newlines in names must not add lines: %q", got)
	}
}
