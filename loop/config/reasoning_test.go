package config

import (
	"strings"
	"testing"
)

func TestReasoningEffortKey(t *testing.T) {
	cfg, err := parse(t, "model:\n  provider: openai\n  reasoning_effort: high\nfallback_providers:\n  - provider: anthropic\n    name: claude-sonnet-4-5\n    reasoning_effort: low\n")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Model.ReasoningEffort != "high" || cfg.FallbackProviders[0].ReasoningEffort != "low" {
		t.Fatalf("parsed %+v / %+v", cfg.Model, cfg.FallbackProviders)
	}
	b, err := Resolve(cfg.Model, func(k string) string { return map[string]string{"OPENAI_API_KEY": "sk-x"}[k] })
	if err != nil || b.ReasoningEffort != "high" {
		t.Fatalf("resolved %+v, %v", b, err)
	}
	for y, want := range map[string]string{
		"model:\n  reasoning_effort: max\n":                                          "model.reasoning_effort: \"max\" is not one of low | medium | high",
		"fallback_providers:\n  - provider: openai\n    reasoning_effort: extreme\n": "fallback_providers[0].reasoning_effort",
	} {
		if _, err := parse(t, y); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", y, err, want)
		}
	}
	// Off by default.
	if cfg, err := parse(t, "model:\n  provider: openai\n"); err != nil || cfg.Model.ReasoningEffort != "" {
		t.Fatalf("default: %q %v", cfg.Model.ReasoningEffort, err)
	}
}
