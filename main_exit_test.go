package main

import "testing"

func TestResumeHintNeedsASavedConversation(t *testing.T) {
	if got := resumeHint(nil, false); got != "" {
		t.Fatalf("no session: %q", got)
	}
}
