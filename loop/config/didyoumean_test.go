package config

import (
	"strings"
	"testing"
)

// TestUnknownKeyDidYouMean: a misspelt key names the key it probably
// meant (issue 24 defect 13); a key far from every known one does not
// get a guess.
func TestUnknownKeyDidYouMean(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"model:\n  provder: openai\n", "model.provder: unknown key (did you mean provider?"},
		{"agnt:\n  max_iterations: 3\n", "agnt: unknown key (did you mean agent?"},
		{"agent:\n  max_iteration: 3\n", "agent.max_iteration: unknown key (did you mean max_iterations?"},
		{"Model:\n  name: x\n", "Model: unknown key (did you mean model?"},
		{"mcp_servers:\n  a: {comand: x}\n", "mcp_servers.a.comand: unknown key (did you mean command?"},
	} {
		var cfg Config
		err := Parse([]byte(c.yaml), "config.yaml", &cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.yaml, err, c.want)
		}
	}
	var cfg Config
	err := Parse([]byte("zzzzqqq: 1\n"), "config.yaml", &cfg)
	if err == nil || strings.Contains(err.Error(), "did you mean") {
		t.Errorf("a key like no other got a guess: %v", err)
	}
}
