package ui

import (
	"context"
	"testing"

	"talaria/providers"
)

// TestRenameAndForkCommands: /rename stores the title through the
// callback and shows it in /status; /fork switches the screen to the copy
// and says how to go back; both say how to use them when they cannot run.
func TestRenameAndForkCommands(t *testing.T) {
	var renamed, forked []string
	h := newHarness(t, func(o *Options) {
		fake(o).OnRename = func(_ context.Context, title string) (string, error) {
			renamed = append(renamed, title)
			return title, nil
		}
		fake(o).OnFork = func(_ context.Context, title string) (Session, error) {
			forked = append(forked, title)
			return Session{ID: "f0f0f0f0f0f0", Provider: "openai", Model: "gpt-4.1",
				History: []providers.Message{{Role: providers.RoleUser, Content: "the old question"}, {Role: providers.RoleAssistant, Content: "the old answer"}}}, nil
		}
	})
	h.command("/rename")
	contains(t, h.screen(), "usage: /rename TITLE")
	h.command("/rename   release   checklist ")
	if len(renamed) != 1 || renamed[0] != "release checklist" {
		t.Fatalf("Rename got %q", renamed)
	}
	h.command("/status")
	contains(t, h.screen(), "renamed: release checklist", "0a1b2c3d4e5f · release checklist")
	h.command("/fork")
	if len(forked) != 1 || h.m.ses.id != "f0f0f0f0f0f0" {
		t.Fatalf("Fork got %q, screen session %q", forked, h.m.ses.id)
	}
	contains(t, h.screen(), "the old answer", "forked: this is session f0f0f0f0f0f0", "/resume 0a1b2c3d4e5f goes back")
	h.startBusy()
	h.command("/fork")
	contains(t, h.screen(), "/fork refused: a turn is running")
	if len(forked) != 1 {
		t.Fatalf("forked while busy: %q", forked)
	}
	bare := newHarness(t)
	bare.command("/fork")
	bare.command("/rename x")
	contains(t, bare.screen(), "/fork is not available here", "/rename is not available here")
}
