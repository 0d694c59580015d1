package ui

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
)

// modelRecorder records /model's switches.
type modelRecorder struct {
	mu    sync.Mutex
	specs []string
}

func (r *modelRecorder) model(_ context.Context, spec string) (string, string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.specs = append(r.specs, spec)
	p, name, ok := strings.Cut(spec, "/")
	if !ok {
		p, name = "openai", spec
	}
	return p, name, nil
}

func (r *modelRecorder) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.specs...)
}

// modelHarness is a screen on openai/gpt-4.1 whose /model lists list.
func modelHarness(t *testing.T, list ModelList, err error) (*harness, *modelRecorder, *int) {
	rec, calls := &modelRecorder{}, new(int)
	h := newHarness(t, func(o *Options) {
		fake(o).OnModel = rec.model
		fake(o).OnModels = func(context.Context) (ModelList, error) { *calls++; return list, err }
	})
	return h, rec, calls
}

// TestModelPickerConfiguredFirstFilterSwitch: /model with no argument
// opens a picker of the provider's models, the one in use and the
// configured ones first (marked), then the listed ones, each once;
// typing filters; Enter switches as /model NAME does.
func TestModelPickerConfiguredFirstFilterSwitch(t *testing.T) {
	h, rec, calls := modelHarness(t, ModelList{Provider: "openai", Configured: []string{"gpt-4.1", "gpt-4o-mini"},
		Listed: []string{"gpt-4o", "gpt-4.1", "o3", "gpt-4o-mini", "o4-mini"}}, nil)
	h.command("/model")
	if h.m.modal.picker == nil || h.m.modal.picker.models == nil {
		t.Fatal("/model did not open the model picker")
	}
	if *calls != 1 {
		t.Fatalf("Models called %d times", *calls)
	}
	s := h.screen()
	contains(t, s, "Switch the model · openai · 5 of 5", "gpt-4.1", "current", "configured")
	order := []string{"› gpt-4.1", "gpt-4o-mini", "gpt-4o ", "o3", "o4-mini"}
	last := -1
	for _, n := range order {
		i := strings.Index(s, n)
		if i < 0 || i < last {
			t.Fatalf("%q missing or out of order in:\n%s", n, s)
		}
		last = i
	}
	h.typeText("4O")
	s = h.screen()
	contains(t, s, "· 2 of 5", "gpt-4o-mini", "gpt-4o")
	if strings.Contains(s, "o3") {
		t.Errorf("the filter kept o3:\n%s", s)
	}
	h.key("down")
	h.settle(keyMsg("enter"))
	if got := rec.got(); len(got) != 1 || got[0] != "gpt-4o" {
		t.Fatalf("Model got %q, want [gpt-4o]", got)
	}
	if h.m.modal.picker != nil {
		t.Error("the picker is still open after switching")
	}
	if h.m.ses.model != "gpt-4o" {
		t.Errorf("the status line's model is %q", h.m.ses.model)
	}
}

// TestModelPickerEndpointFailed: when the models endpoint fails the
// picker still lists the configured models, with the reason on one line.
func TestModelPickerEndpointFailed(t *testing.T) {
	h, rec, _ := modelHarness(t, ModelList{Provider: "openai", Configured: []string{"gpt-4.1", "gpt-4o-mini"},
		Note: "GET https://api.openai.com/v1/models: 401 Unauthorized"}, nil)
	h.command("/model")
	contains(t, h.screen(), "2 of 2", "gpt-4o-mini", "401 Unauthorized")
	h.key("down")
	h.settle(keyMsg("enter"))
	if got := rec.got(); len(got) != 1 || got[0] != "gpt-4o-mini" {
		t.Fatalf("Model got %q", got)
	}
	// A callback error is shown the same way, over the model in use.
	h2, _, _ := modelHarness(t, ModelList{}, errors.New("boom"))
	h2.command("/model")
	contains(t, h2.screen(), "1 of 1", "gpt-4.1", "listing the models failed: boom")
}

// TestModelPickerEscTypedAndSlashNames: Esc closes without switching; a
// name the endpoint does not list is taken as typed; a listed name with a
// slash (OpenRouter's) goes with its provider, so it is not read as
// PROVIDER/NAME.
func TestModelPickerEscTypedAndSlashNames(t *testing.T) {
	h, rec, _ := modelHarness(t, ModelList{Provider: "openrouter", Listed: []string{"openai/gpt-4.1", "anthropic/claude-sonnet-4.5"}}, nil)
	h.m.ses.provider = "openrouter"
	h.command("/model")
	h.key("esc")
	if h.m.modal.picker != nil || len(rec.got()) != 0 {
		t.Fatalf("esc: picker %v, switches %q", h.m.modal.picker, rec.got())
	}
	h.command("/model")
	h.typeText("claude")
	h.settle(keyMsg("enter"))
	h.command("/model")
	h.typeText("my-finetune")
	contains(t, h.screen(), "enter uses my-finetune as typed")
	h.settle(keyMsg("enter"))
	want := []string{"openrouter/anthropic/claude-sonnet-4.5", "my-finetune"}
	if got := rec.got(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("Model got %q, want %q", got, want)
	}
}

// TestModelPickerFitsSmallScreens: at 60×20 and 50×12 the picker keeps
// its title, filter and highlighted row inside the screen.
func TestModelPickerFitsSmallScreens(t *testing.T) {
	listed := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima",
		"a-very-long-model-name-that-does-not-fit-in-sixty-columns-at-all"}
	for _, size := range [][2]int{{60, 20}, {50, 12}} {
		h, _, _ := modelHarness(t, ModelList{Provider: "openai", Listed: listed}, nil)
		h.size(size[0], size[1])
		h.command("/model")
		for range 3 {
			h.key("pgdown")
		}
		s := h.screen()
		lines := strings.Split(s, "\n")
		if len(lines) > size[1] {
			t.Errorf("%v: %d lines", size, len(lines))
		}
		for _, l := range lines {
			if w := len([]rune(l)); w > size[0] {
				t.Errorf("%v: a line of %d columns: %q", size, w, l)
			}
		}
		contains(t, s, "Switch the model", "Filter:", "› a-very-long")
	}
}
