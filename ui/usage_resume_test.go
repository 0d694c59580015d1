package ui

import (
	"testing"

	"talaria/providers"
)

// TestResumedUsageInFooterAndUsage: a resumed session's footer and /usage
// count from the tokens the store has (issue 24 defect 6: ↑0 ↓0 after
// -c), and a session switched to in place (a rewind, /undo, /resume)
// keeps its own, so the cost does not vanish.
func TestResumedUsageInFooterAndUsage(t *testing.T) {
	h := newHarness(t, func(o *Options) {
		o.Model = "gpt-4.1"
		o.History = []providers.Message{{Role: providers.RoleUser, Content: "hi"}, {Role: providers.RoleAssistant, Content: "hello"}}
		o.Usage = providers.Usage{InputTokens: 45_200, OutputTokens: 1_300}
	})
	h.size(100, 20)
	contains(t, h.screen(), "↑45.2k ↓1.3k", "~$")
	contains(t, h.m.usageText(), "input 45.2k", "output 1.3k")
	h.m.switchSession(Session{ID: "s2", Model: "gpt-4.1", History: []providers.Message{{Role: providers.RoleUser, Content: "hi"}},
		Usage: providers.Usage{InputTokens: 45_200, OutputTokens: 1_300}})
	contains(t, h.screen(), "↑45.2k ↓1.3k", "~$")
}
