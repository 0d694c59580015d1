package app

import (
	"context"
	"errors"
	"strings"
	"testing"

	"talaria/loop/config"
	"talaria/persist"
	pt "talaria/providers/providertest"
)

// TestNoProviderStillBrowsesAndPicks: with no provider configured the
// session store still lists past sessions, and /model PROVIDER/NAME
// opens a session on that provider once its key is there.
func TestNoProviderStillBrowsesAndPicks(t *testing.T) {
	for _, k := range []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY", "GEMINI_API_KEY", "AWS_BEARER_TOKEN_BEDROCK", "OPENAI_BASE_URL"} {
		t.Setenv(k, "")
	}
	home, cwd := t.TempDir(), t.TempDir()
	st, err := OpenStore(home)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.CreateSession(&persist.Session{Title: "an old session", Cwd: cwd}); err != nil {
		t.Fatal(err)
	}
	w := NewSwitcher(context.Background(), Flags{Home: home, Cwd: cwd}, nil)
	defer w.Close()
	if _, err := w.Open(); !errors.Is(err, config.ErrNoProvider) {
		t.Fatalf("open without a provider: %v", err)
	}
	s, err := w.Store()
	if err != nil {
		t.Fatal(err)
	}
	list, err := s.ListSessions()
	if err != nil || len(list) != 1 || list[0].Title != "an old session" {
		t.Fatalf("sessions without a provider: %+v %v", list, err)
	}
	if _, err := w.ChooseModel(context.Background(), "openai/gpt-4.1"); err == nil {
		t.Fatal("a provider without its key opened")
	}
	srv := pt.New(t)
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("OPENAI_BASE_URL", srv.URL())
	b, err := w.ChooseModel(context.Background(), "openai/gpt-4.1")
	if err != nil || b.Provider != "openai" || b.Model != "gpt-4.1" || w.Current() == nil {
		t.Fatalf("picking a provider: %+v %v", b, err)
	}
}

// TestResumeErrorHasAScreenText: a reference /resume cannot match names
// --resume on the command line but not on the screen.
func TestResumeErrorHasAScreenText(t *testing.T) {
	srv := pt.New(t)
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("OPENAI_BASE_URL", srv.URL())
	w := NewSwitcher(context.Background(), Flags{Home: t.TempDir(), Cwd: t.TempDir()}, nil)
	defer w.Close()
	_, err := w.Resume("nope")
	var re *ResumeError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "--resume nope") || strings.Contains(re.ScreenText(), "--") {
		t.Fatalf("resume error: %v", err)
	}
}
