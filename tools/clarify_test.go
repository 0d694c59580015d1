package tools

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestClarify(t *testing.T) {
	ctx := context.Background()
	// Headless: no Ask.
	out := mustOK(t, runWith(t, ctx, ClarifyTool{}, &Env{}, map[string]any{"question": "Which DB?"}))
	if out != clarifyHeadless {
		t.Errorf("headless = %q", out)
	}
	var gotQ string
	var gotChoices []string
	env := &Env{Ask: func(_ context.Context, q string, choices []string) (string, error) {
		gotQ, gotChoices = q, choices
		return " Postgres ", nil
	}}
	out = mustOK(t, runWith(t, ctx, ClarifyTool{}, env, map[string]any{"question": " Which DB? ", "choices": []string{"Postgres", " ", "SQLite"}}))
	if out != "The user answered: Postgres" {
		t.Errorf("answer = %q", out)
	}
	if gotQ != "Which DB?" || strings.Join(gotChoices, "|") != "Postgres|SQLite" {
		t.Errorf("asked %q %q", gotQ, gotChoices)
	}
	// Open question: nil choices.
	mustOK(t, runWith(t, ctx, ClarifyTool{}, env, map[string]any{"question": "Name?"}))
	if gotChoices != nil {
		t.Errorf("open question got choices %q", gotChoices)
	}
	mustErr(t, runWith(t, ctx, ClarifyTool{}, env, map[string]any{"question": "Q", "choices": []string{"a", "b", "c", "d", "e"}}), "at most 4 choices")
	mustErr(t, runWith(t, ctx, ClarifyTool{}, env, map[string]any{"question": "  "}), "required")
	// An empty answer and a failing Ask.
	env.Ask = func(context.Context, string, []string) (string, error) { return "", nil }
	out = mustOK(t, runWith(t, ctx, ClarifyTool{}, env, map[string]any{"question": "Q"}))
	if !strings.Contains(out, "no answer") {
		t.Errorf("empty answer = %q", out)
	}
	env.Ask = func(context.Context, string, []string) (string, error) { return "", errors.New("dialog closed") }
	mustErr(t, runWith(t, ctx, ClarifyTool{}, env, map[string]any{"question": "Q"}), "dialog closed", "Decide yourself")
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	env.Ask = func(ctx context.Context, _ string, _ []string) (string, error) { return "", ctx.Err() }
	mustErr(t, runWith(t, cctx, ClarifyTool{}, env, map[string]any{"question": "Q"}), "cancelled")
}
