package main

import (
	"context"
	"sync"
	"testing"

	"talaria/loop"
	"talaria/loop/app"
	"talaria/loop/config"
	pt "talaria/providers/providertest"
)

// The session picker searches as the user types (Commands.Search, from
// one command goroutine) while Enter resumes the chosen session
// (Commands.Resume, from another): run with -race, this is the path that
// raced on the current session before the switcher owned it.
func TestPickerSearchWhileEnterResumes(t *testing.T) {
	srv := pt.New(t)
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("OPENAI_BASE_URL", srv.URL())
	f := app.Flags{Home: t.TempDir(), Cwd: t.TempDir(), Overrides: config.Overrides{Provider: "openai", Model: "gpt-4.1"}}
	w := app.NewSwitcher(context.Background(), f, func(loop.Event) {})
	defer w.Close()
	first, err := w.Open()
	if err != nil {
		t.Fatal(err)
	}
	cmds := tuiCommands(w)
	if _, err := cmds.New(context.Background()); err != nil {
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
			if _, err := cmds.Search(context.Background(), q); err != nil {
				t.Error(err)
				return
			}
			if _, err := cmds.Sessions(context.Background()); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for i := 0; i < 4; i++ { // Enter on a row, back and forth
		s, err := cmds.Resume(context.Background(), first.Record.ID)
		if err != nil || s.ID != first.Record.ID {
			t.Errorf("resume: %+v, %v", s, err)
		}
		if _, err := cmds.New(context.Background()); err != nil {
			t.Error(err)
		}
	}
	close(stop)
	wg.Wait()
}
