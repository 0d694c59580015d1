package ui

import (
	"context"
	"strings"
	"sync"
	"testing"
)

// setupRecorder is a fake wiring for the setup dialog.
type setupRecorder struct {
	mu      sync.Mutex
	listed  []SetupRequest
	applied []SetupRequest
}

// fill offers the setup dialog on p.
func (r *setupRecorder) fill(p *fakePort) {
	p.OnSetupOffer = func() SetupOffer {
		return SetupOffer{KeyFile: "/home/u/.talaria/credentials", Providers: []SetupProvider{
			{Name: "openai", Description: "OpenAI", KeyEnv: "OPENAI_API_KEY", DefaultModel: "gpt-4.1"},
			{Name: "anthropic", Description: "Anthropic", KeyEnv: "ANTHROPIC_API_KEY", DefaultModel: "claude-sonnet-4-5"},
			{Name: "ollama", Description: "a local Ollama", KeyOptional: true, DefaultModel: ""},
			{Name: "custom", Description: "any OpenAI-compatible server", KeyOptional: true, AskBaseURL: true, BaseURL: "http://127.0.0.1:8080/v1"},
		}}
	}
	p.OnSetupModels = func(_ context.Context, req SetupRequest) (ModelList, error) {
		r.mu.Lock()
		r.listed = append(r.listed, req)
		r.mu.Unlock()
		return ModelList{Provider: req.Provider, Listed: []string{"gpt-4o", "gpt-4o-mini", "o3"}}, nil
	}
	p.OnSetupApply = func(_ context.Context, req SetupRequest) (SetupResult, error) {
		r.mu.Lock()
		r.applied = append(r.applied, req)
		r.mu.Unlock()
		return SetupResult{Session: Session{ID: "5e55105e0001", Provider: req.Provider, Model: req.Model},
			Notice: "wrote /home/u/.talaria/config.yaml"}, nil
	}
}

// setupHarness is a screen opened without a provider, with the setup
// dialog wired.
func setupHarness(t *testing.T) (*harness, *setupRecorder) {
	rec := &setupRecorder{}
	h := newHarness(t, func(o *Options) {
		o.Provider, o.Model, o.SessionID = "", "", ""
		o.Notice = "no model provider configured"
		rec.fill(fake(o))
	})
	return h, rec
}

// TestSetupDialogFirstRunStoresTypedKey: a screen without a provider
// opens the setup dialog at once; a typed key never shows on the screen
// and reaches Apply with the provider's variable name and the chosen
// model; the screen then switches to the session opened.
func TestSetupDialogFirstRunStoresTypedKey(t *testing.T) {
	h, rec := setupHarness(t)
	if h.m.modal.picker == nil || h.m.modal.picker.setup == nil {
		t.Fatal("the setup dialog did not open at start")
	}
	contains(t, h.screen(), "Set up a model provider · step 1 of 3", "1. openai", "4. custom")
	h.key("enter") // openai
	contains(t, h.screen(), "step 2 of 3", "The key for openai", "/home/u/.talaria/credentials", "(mode 0600)", "$OPENAI_API_KEY is not set")
	h.key("enter") // empty: the variable is not set
	contains(t, h.screen(), "paste a key, or type $NAME")
	h.typeText("sk-proj-SECRETVALUE1234")
	if s := h.screen(); strings.Contains(s, "SECRETVALUE") || !strings.Contains(s, "*****") {
		t.Fatalf("the typed key shows on the screen:\n%s", s)
	}
	h.settle(keyMsg("enter"))
	contains(t, h.screen(), "Set up: pick a model (step 3 of 3) · openai", "gpt-4.1", "gpt-4o-mini")
	h.typeText("mini")
	h.settle(keyMsg("enter"))
	want := SetupRequest{Provider: "openai", KeyEnv: "OPENAI_API_KEY", Key: "sk-proj-SECRETVALUE1234", Model: "gpt-4o-mini"}
	if len(rec.applied) != 1 || rec.applied[0] != want {
		t.Fatalf("Apply got %+v, want %+v", rec.applied, want)
	}
	if len(rec.listed) != 1 || rec.listed[0].Key != want.Key {
		t.Fatalf("the model list was not asked with the key: %+v", rec.listed)
	}
	if h.m.modal.picker != nil {
		t.Fatal("the dialog is still open")
	}
	if h.m.ses.provider != "openai" || h.m.ses.model != "gpt-4o-mini" || h.m.ses.id != "5e55105e0001" {
		t.Fatalf("screen session: %+v", h.m.ses)
	}
	contains(t, h.screen(), "wrote /home/u/.talaria/config.yaml")
	if strings.Contains(h.screen(), "SECRETVALUE") {
		t.Fatal("the key reached the transcript")
	}
}

// TestSetupDialogEnvVarAndFirstMessage: the message that failed with "no
// session is open" before is held while the dialog runs and sent once a
// session is open; a $NAME answer names the key's variable and no key
// is passed.
func TestSetupDialogEnvVarAndFirstMessage(t *testing.T) {
	h, rec := setupHarness(t)
	h.key("esc") // skip it: the screen stays
	if h.m.modal.picker != nil {
		t.Fatal("esc did not close the dialog")
	}
	contains(t, h.screen(), "setup skipped")
	h.typeText("hello there")
	h.settle(keyMsg("enter"))
	if h.m.modal.picker == nil || h.m.modal.picker.setup == nil {
		t.Fatal("sending without a provider did not open the setup dialog")
	}
	if got := h.agent.got(); len(got) != 0 {
		t.Fatalf("the message went to the agent without a session: %q", got)
	}
	h.key("down") // anthropic
	h.key("enter")
	h.typeText("$MY_CLAUDE_KEY")
	contains(t, h.screen(), "$MY_CLAUDE_KEY")
	h.settle(keyMsg("enter"))
	h.settle(keyMsg("enter")) // the default model, first
	want := SetupRequest{Provider: "anthropic", KeyEnv: "MY_CLAUDE_KEY", Model: "claude-sonnet-4-5"}
	if len(rec.applied) != 1 || rec.applied[0] != want {
		t.Fatalf("Apply got %+v, want %+v", rec.applied, want)
	}
	if got := h.agent.got(); len(got) != 1 || got[0] != "run:hello there" {
		t.Fatalf("agent got %q, want the held message", got)
	}
}

// TestSetupDialogStepsBack: Esc walks back through the steps; leaving the
// dialog puts a held message back in the composer. A custom server asks
// for its URL; a local one asks for no key.
func TestSetupDialogStepsBack(t *testing.T) {
	h, rec := setupHarness(t)
	h.key("esc")
	h.typeText("draft")
	h.settle(keyMsg("enter"))
	h.key("4") // custom: straight to its URL
	contains(t, h.screen(), "step 2 of 3", "URL: http://127.0.0.1:8080/v1")
	for range len("http://127.0.0.1:8080/v1") {
		h.key("backspace")
	}
	h.typeText("ftp://x")
	h.key("enter")
	contains(t, h.screen(), "must start with http")
	h.key("esc")
	contains(t, h.screen(), "step 1 of 3")
	h.press("3") // ollama: no key step
	contains(t, h.screen(), "pick a model (step 2 of 2) · ollama")
	h.key("esc")
	contains(t, h.screen(), "step 1 of 2")
	h.key("esc")
	if h.m.modal.picker != nil || h.m.comp.value() != "draft" {
		t.Fatalf("leaving: picker %v, composer %q", h.m.modal.picker, h.m.comp.value())
	}
	if len(rec.applied) != 0 {
		t.Fatalf("applied: %+v", rec.applied)
	}
}
