package ui

import (
	"testing"

	"talaria/loop"
)

// TestPagerCopyKeys: in the pager, y copies the message under the cursor
// (the search match) and c the code block in it, as OSC 52; the status
// line says so.
func TestPagerCopyKeys(t *testing.T) {
	h := newHarness(t)
	answer := "Run this:\n\n```sh\ngo test ./...\ngo vet ./...\n```\n\nThen look."
	h.events(turnStarted(1, "how do I test"), &loop.MessageCompleted{Header: hdr(loop.TypeMessageCompleted, 1, 0), Content: answer})
	h.key("ctrl+t")
	h.key("/")
	h.typeText("Run this")
	h.key("enter")
	msgs := h.key("y")
	if got := decodeOSC52(t, rawOut(msgs)); got != answer {
		t.Errorf("y copied %q, want %q", got, answer)
	}
	h.feed(msgs)
	contains(t, h.screen(), "copied the message (8 lines) · OSC 52")
	if got := decodeOSC52(t, rawOut(h.key("c"))); got != "go test ./...\ngo vet ./..." {
		t.Errorf("c copied %q", got)
	}
	h.key("/")
	h.typeText("how do I")
	h.key("enter")
	h.send(keyMsg("c"))
	contains(t, h.screen(), "no code block here")
	if got := decodeOSC52(t, rawOut(h.key("y"))); got != "how do I test" {
		t.Errorf("y on the user message copied %q", got)
	}
}
