package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// sameDaySessions share their date, as every session of one day does.
func sameDaySessions() []SessionInfo {
	return []SessionInfo{
		{ID: "20261201_153012_3fa9c1", Title: "fix the trailing comma bug", Updated: t0, Messages: 14},
		{ID: "20261201_101544_b07e22", Title: "write the changelog", Updated: t0.Add(-3 * time.Hour), Messages: 6},
	}
}

// TestGoldenSameDaySessions: the status line and the picker tell two
// sessions of the same day apart (the random suffix, not the date) and
// the status line carries the title.
func TestGoldenSameDaySessions(t *testing.T) {
	for _, w := range []int{80, 120} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			h, _ := pickerHarness(t, sameDaySessions())
			h.m.ses.id = "20261201_153012_3fa9c1"
			h.size(w, 16)
			h.typeText("fix the trailing comma bug")
			h.key("enter")
			h.endTurn(1, "")
			status := h.m.renderStatus()
			if w >= 120 {
				contains(t, plain(status), "fix the trailing comma bug · 3fa9c1")
			}
			h.command("/sessions")
			screen := h.screen()
			contains(t, screen, "3fa9c1", "b07e22")
			golden(t, h.m.View().Content)
		})
	}
}

func TestShortID(t *testing.T) {
	for id, want := range map[string]string{
		"20261201_153012_3fa9c1": "3fa9c1",
		"0a1b2c3d4e5f":           "0a1b2c3d",
		"demo":                   "demo",
	} {
		if got := shortID(id); got != want {
			t.Errorf("shortID(%q) = %q, want %q", id, got, want)
		}
	}
}

// flagErr is an error like loop/app's ResumeError: its Error names a CLI
// flag, its ScreenText does not.
type flagErr struct{}

func (flagErr) Error() string      { return "--resume 2026: ambiguous" }
func (flagErr) ScreenText() string { return "session 2026: ambiguous" }

// TestResumeErrorNamesNoFlag: /resume with a bad reference says what is
// wrong without naming --resume; /new announces the full id.
func TestResumeErrorNamesNoFlag(t *testing.T) {
	h := newHarness(t, func(o *Options) {
		fake(o).OnResume = func(context.Context, string) (Session, error) {
			return Session{}, fmt.Errorf("open: %w", flagErr{})
		}
		fake(o).OnNew = func(context.Context) (Session, error) {
			return Session{ID: "20261201_153012_3fa9c1"}, nil
		}
	})
	h.command("/resume 2026")
	s := h.screen()
	contains(t, s, "session 2026: ambiguous")
	if strings.Contains(s, "--resume") {
		t.Errorf("the screen names a CLI flag:\n%s", s)
	}
	h.command("/new")
	contains(t, h.screen(), "new session 20261201_153012_3fa9c1")
	if !errors.As(fmt.Errorf("x: %w", flagErr{}), new(screenError)) {
		t.Fatal("screenError not found through wrapping")
	}
}

// TestSessionLabelFitsNarrowScreens: at 60 columns the id still shows
// (the title is cut shorter, then left out).
func TestSessionLabelFitsNarrowScreens(t *testing.T) {
	h := newHarness(t)
	h.m.ses.id, h.m.ses.title = "20261201_153012_3fa9c1", "Give me a tour of this repository."
	for w, want := range map[int]string{60: "Give me a tour… · 3fa9c1", 36: "session 3fa9c1"} {
		h.size(w, 20)
		if got := h.m.sessionLabel(); got != want {
			t.Errorf("%d columns: %q, want %q", w, got, want)
		}
		if s := plain(h.m.renderStatus()); !strings.Contains(s, "3fa9c1") && w >= 60 {
			t.Errorf("%d columns: the status line lost the id: %q", w, s)
		}
	}
}
