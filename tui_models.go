package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"

	"talaria/loop/app"
	"talaria/loop/config"
	"talaria/ui"
)

// setupProviderOrder is how the setup dialog presents each provider, in
// the order it lists them.
var setupProviderOrder = []struct{ name, desc string }{
	{"openai", "OpenAI"},
	{"anthropic", "Anthropic (Claude)"},
	{"gemini", "Google Gemini"},
	{"openrouter", "OpenRouter (many models)"},
	{"ollama", "Ollama on this machine"},
	{"custom", "an OpenAI-compatible server (llama.cpp, vLLM, LM Studio)"},
}

// moreCommands answers /model's picker, /rename, /fork and, when setup
// is true (no provider could be found at start), the setup dialog.
func moreCommands(w *app.Switcher, home string, setup bool) ui.MoreCommands {
	cat := app.NewModelCatalog(nil) // one cache for the run
	more := ui.MoreCommands{
		Models: func(ctx context.Context) (ui.ModelList, error) {
			l, err := w.Models(ctx, cat)
			return ui.ModelList(l), err
		},
		Rename: func(_ context.Context, title string) (string, error) { return w.Rename(title) },
		Fork: func(_ context.Context, title string) (ui.Session, error) {
			s, err := w.Fork(title)
			if err != nil {
				return ui.Session{}, err
			}
			return screenSession(s), nil
		},
	}
	if !setup {
		return more
	}
	more.Setup = &ui.SetupCommands{
		KeyFile: filepath.Join(home, app.KeysFile),
		Providers: func() []ui.SetupProvider {
			var out []ui.SetupProvider
			for _, p := range setupProviderOrder {
				if !slices.Contains(config.Providers(), p.name) {
					continue
				}
				d := config.Defaults(p.name)
				out = append(out, ui.SetupProvider{Name: p.name, Description: p.desc, KeyEnv: d.APIKeyEnv, KeySet: d.APIKeyEnv != "" && os.Getenv(d.APIKeyEnv) != "",
					KeyOptional: d.KeyOptional, AskBaseURL: p.name == "custom", BaseURL: "http://127.0.0.1:8080/v1", DefaultModel: d.Model})
			}
			return out
		},
		Models: func(ctx context.Context, req ui.SetupRequest) (ui.ModelList, error) {
			listed, err := app.SetupModels(ctx, cat, app.SetupRequest(req))
			l := ui.ModelList{Provider: req.Provider, Listed: listed}
			if err != nil {
				l.Note = "could not list the models: " + err.Error() + " · type a model name"
			}
			return l, nil
		},
		Apply: func(ctx context.Context, req ui.SetupRequest) (ui.SetupResult, error) {
			s, note, err := w.Setup(ctx, app.SetupRequest(req))
			if err != nil {
				return ui.SetupResult{}, err
			}
			return ui.SetupResult{Session: screenSession(s), Notice: note}, nil
		},
	}
	return more
}
