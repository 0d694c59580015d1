package app

import (
	"context"
	"testing"

	"talaria/persist"
	"talaria/providers"
	pt "talaria/providers/providertest"
)

// TestSwitcherForkAndRename: /rename stores the title; /fork makes a
// copy with the history and checkpoint records current, and the original
// is left as it was.
func TestSwitcherForkAndRename(t *testing.T) {
	srv := pt.New(t)
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("OPENAI_BASE_URL", srv.URL())
	w := NewSwitcher(context.Background(), Flags{Home: t.TempDir(), Cwd: t.TempDir()}, nil)
	defer w.Close()
	s, err := w.Open()
	if err != nil {
		t.Fatal(err)
	}
	orig := s.Record.ID
	if err := s.Store.AppendTurnMessages(orig, 1, providers.Message{Role: providers.RoleUser, Content: "q"}, providers.Message{Role: providers.RoleAssistant, Content: "a"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Store.AddCheckpoint(orig, persist.CheckpointRecord{Turn: 1, Kind: persist.CheckpointBefore, ID: "cp1"}); err != nil {
		t.Fatal(err)
	}
	if got, err := w.Rename("  the plan  "); err != nil || got != "the plan" {
		t.Fatalf("rename: %q %v", got, err)
	}
	f, err := w.Fork("")
	if err != nil {
		t.Fatal(err)
	}
	if w.Current() != f || f.Record.ID == orig || f.Record.ParentID != orig || f.Record.Title != "the plan (fork)" {
		t.Fatalf("fork: %+v", f.Record)
	}
	if h := f.Agent.History(); len(h) != 2 || h[1].Content != "a" {
		t.Fatalf("fork history: %+v", h)
	}
	if cps, _ := f.Store.Checkpoints(f.Record.ID); len(cps) != 1 || cps[0].ID != "cp1" {
		t.Fatalf("fork checkpoints: %+v", cps)
	}
	old, err := f.Store.GetSession(orig)
	if err != nil || old.Title != "the plan" || old.MessageCount != 2 {
		t.Fatalf("original: %+v %v", old, err)
	}
}
