package ui

import "testing"

// TestAltEnterAndBackslashEnterInsertNewlines: Alt+Enter inserts a line
// break; Enter after a trailing backslash replaces it with one; neither
// sends. Enter then sends the two lines.
func TestAltEnterAndBackslashEnterInsertNewlines(t *testing.T) {
	h := newHarness(t)
	h.typeText("one")
	h.key("alt+enter")
	h.typeText(`two\`)
	h.key("enter")
	h.typeText("three")
	if got := h.agent.got(); len(got) != 0 {
		t.Fatalf("sent %q", got)
	}
	if v := h.m.comp.value(); v != "one\ntwo\nthree" {
		t.Fatalf("composer holds %q", v)
	}
	h.key("enter")
	if got := h.agent.got(); len(got) != 1 || got[0] != "run:one\ntwo\nthree" {
		t.Fatalf("sent %q", got)
	}
}
