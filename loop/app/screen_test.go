package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"talaria/loop"
	"talaria/loop/config"
	"talaria/loop/ext"
	"talaria/loop/port"
	pt "talaria/providers/providertest"
)

// The session picker searches as the user types (Screen.Search, from
// one command goroutine) while Enter resumes the chosen session
// (Screen.Resume, from another): run with -race, this is the path that
// raced on the current session before the switcher owned it.
func TestPickerSearchWhileEnterResumes(t *testing.T) {
	srv := pt.New(t)
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("OPENAI_BASE_URL", srv.URL())
	f := Flags{Home: t.TempDir(), Cwd: t.TempDir(), Overrides: config.Overrides{Provider: "openai", Model: "gpt-4.1"}}
	w := NewSwitcher(context.Background(), f, func(loop.Event) {})
	defer w.Close()
	first, err := w.Open()
	if err != nil {
		t.Fatal(err)
	}
	scr := w.Screen(ScreenOptions{})
	if _, err := scr.New(context.Background()); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() { // typing in the picker
		defer wg.Done()
		for q := "a"; ; q += "b" {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := scr.Search(context.Background(), q); err != nil {
				t.Error(err)
				return
			}
			if _, err := scr.Sessions(context.Background()); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for i := 0; i < 4; i++ { // Enter on a row, back and forth
		s, err := scr.Resume(context.Background(), first.Record.ID)
		if err != nil || s.ID != first.Record.ID {
			t.Errorf("resume: %+v, %v", s, err)
		}
		if _, err := scr.New(context.Background()); err != nil {
			t.Error(err)
		}
	}
	close(stop)
	wg.Wait()
}

// TestScreenCustomCommandsList: the screen's list holds the commands and
// the skills /NAME runs, by name, with argument hint, description and
// file; a command or skill named like a built-in is not listed (the
// built-in runs).
func TestScreenCustomCommandsList(t *testing.T) {
	proj := t.TempDir()
	write := func(rel, s string) {
		t.Helper()
		p := filepath.Join(proj, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".git/HEAD", "ref: refs/heads/main\n")
	write(".claude/commands/review.md", "---\ndescription: Review a file\nargument-hint: FILE\n---\nReview $0\n")
	write(".claude/commands/help.md", "shadow\n")
	write(".claude/commands/git/commit.md", "Commit $ARGUMENTS\n")
	write(".claude/skills/pdf/SKILL.md", "---\nname: pdf\ndescription: PDF work\n---\nbody\n")
	write(".claude/skills/usage/SKILL.md", "---\nname: usage\ndescription: shadowed by /usage\n---\nbody\n")
	set := ext.Load(ext.Options{Cwd: proj, ClaudeDirs: true, Builtins: []string{"help", "usage"}})
	got := customCommands(set)
	var names []string
	for _, c := range got {
		names = append(names, c.Name)
	}
	if len(got) != 3 || names[0] != "git:commit" || names[1] != "pdf" || names[2] != "review" {
		t.Fatalf("listed %v", names)
	}
	if r := got[2]; r.ArgumentHint != "FILE" || r.Description != "Review a file" || r.Path != filepath.Join(proj, ".claude/commands/review.md") || r.Skill {
		t.Fatalf("review: %+v", r)
	}
	if !got[1].Skill {
		t.Fatalf("pdf is a skill: %+v", got[1])
	}
}

// TestScreenOffersSetupOnlyWhenAsked: the setup dialog is offered only
// when the wiring found no provider; otherwise its methods answer
// ErrNotAvailable and offer no provider. When offered, the providers come
// in the dialog's order, the custom server with its suggested URL, and a
// typed key goes under the home's keys file.
func TestScreenOffersSetupOnlyWhenAsked(t *testing.T) {
	home := t.TempDir()
	w := NewSwitcher(context.Background(), Flags{Home: home, Cwd: t.TempDir()}, func(loop.Event) {})
	defer w.Close()
	off := w.Screen(ScreenOptions{})
	if a := off.Abilities(); a.Setup || !a.Rewind || !a.Shell || !a.Extensions {
		t.Fatalf("abilities without setup: %+v", a)
	}
	if o := off.SetupOffer(); len(o.Providers) != 0 || o.KeyFile != "" {
		t.Fatalf("offer without setup: %+v", o)
	}
	if _, err := off.SetupApply(context.Background(), port.SetupRequest{Provider: "openai", Model: "gpt-4.1"}); !errors.Is(err, port.ErrNotAvailable) {
		t.Fatalf("apply without setup: %v", err)
	}
	if _, err := off.SetupModels(context.Background(), port.SetupRequest{Provider: "openai"}); !errors.Is(err, port.ErrNotAvailable) {
		t.Fatalf("models without setup: %v", err)
	}
	on := w.Screen(ScreenOptions{Setup: true})
	if !on.Abilities().Setup {
		t.Fatal("setup not offered")
	}
	o := on.SetupOffer()
	var names []string
	for _, p := range o.Providers {
		names = append(names, p.Name)
		if p.Name == "custom" && (!p.AskBaseURL || p.BaseURL != setupBaseURL) {
			t.Errorf("custom: %+v", p)
		}
	}
	if len(names) < 2 || names[0] != "openai" || names[1] != "anthropic" {
		t.Errorf("providers %v", names)
	}
	if o.KeyFile != filepath.Join(home, KeysFile) {
		t.Errorf("key file %q", o.KeyFile)
	}
	// With no session open, the session commands say so instead of failing
	// on a nil session.
	if _, err := on.RewindPoints(context.Background()); err == nil {
		t.Error("rewind points without a session")
	}
	if tr := on.Trust(); tr != nil {
		t.Errorf("trust without a session: %+v", tr)
	}
	if cs := on.CustomCommands(); len(cs) != 0 {
		t.Errorf("custom commands without a session: %+v", cs)
	}
}
