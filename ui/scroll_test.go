package ui

import (
	"fmt"
	"strings"
	"testing"
)

// TestSendScrollsToBottom: scrolled up, a command's output, a sent message
// and the turn it starts all show at the bottom.
func TestSendScrollsToBottom(t *testing.T) {
	h := newHarness(t)
	for i := range 60 {
		h.m.notice(noticeInfo, fmt.Sprintf("old line %02d", i))
	}
	h.send(frameMsg{})
	h.key("pgup")
	h.key("pgup")
	if strings.Contains(h.screen(), "old line 59") {
		t.Fatal("pgup did not scroll away from the bottom")
	}
	h.command("/usage")
	contains(t, h.screen(), "usage · input")
	h.key("pgup")
	h.key("pgup")
	if strings.Contains(h.screen(), "usage · input") {
		t.Fatal("pgup did not scroll away from the bottom")
	}
	h.typeText("a new question")
	h.key("enter")
	contains(t, h.screen(), "› a new question")
	// Scrolling again during the turn is respected.
	h.key("pgup")
	h.key("pgup")
	h.m.notice(noticeMuted, "a late notice")
	h.send(frameMsg{})
	if strings.Contains(h.screen(), "a late notice") {
		t.Fatal("a notice pulled the screen down while the user had scrolled up")
	}
}
