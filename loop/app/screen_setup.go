package app

import (
	"context"
	"os"
	"path/filepath"
	"slices"

	"talaria/loop/config"
	"talaria/loop/port"
)

// setupProviders is how the setup dialog presents each provider, in the
// order it lists them.
var setupProviders = [...]struct{ name, desc string }{
	{"openai", "OpenAI"},
	{"anthropic", "Anthropic (Claude)"},
	{"gemini", "Google Gemini"},
	{"openrouter", "OpenRouter (many models)"},
	{"ollama", "Ollama on this machine"},
	{"custom", "an OpenAI-compatible server (llama.cpp, vLLM, LM Studio)"},
}

// setupBaseURL is the base URL the dialog suggests for a custom server.
const setupBaseURL = "http://127.0.0.1:8080/v1"

// SetupOffer lists the providers the setup dialog offers (each key
// variable looked up now) and where a typed key is stored; empty when
// the setup is not offered.
func (p *Screen) SetupOffer() port.SetupOffer {
	if !p.setup {
		return port.SetupOffer{}
	}
	o := port.SetupOffer{KeyFile: filepath.Join(Home(p.w.flags.Home), KeysFile)}
	for _, sp := range setupProviders {
		if !slices.Contains(config.Providers(), sp.name) {
			continue
		}
		d := config.Defaults(sp.name)
		o.Providers = append(o.Providers, port.SetupProvider{
			Name: sp.name, Description: sp.desc, KeyEnv: d.APIKeyEnv, KeySet: d.APIKeyEnv != "" && os.Getenv(d.APIKeyEnv) != "",
			KeyOptional: d.KeyOptional, AskBaseURL: sp.name == "custom", BaseURL: setupBaseURL, DefaultModel: d.Model,
		})
	}
	return o
}

// SetupModels lists the models of the provider as req sets it up; a
// list that fails is a note (the user types a name), not an error.
func (p *Screen) SetupModels(ctx context.Context, req port.SetupRequest) (port.ModelList, error) {
	if !p.setup {
		return port.ModelList{}, port.ErrNotAvailable
	}
	listed, err := SetupModels(ctx, p.cat, req)
	l := port.ModelList{Provider: req.Provider, Listed: listed}
	if err != nil {
		l.Note = "could not list the models: " + err.Error() + " · type a model name"
	}
	return l, nil
}

// SetupApply writes the configuration (see Switcher.Setup) and makes the
// session it opens current.
func (p *Screen) SetupApply(ctx context.Context, req port.SetupRequest) (port.SetupResult, error) {
	if !p.setup {
		return port.SetupResult{}, port.ErrNotAvailable
	}
	s, note, err := p.w.Setup(ctx, req)
	if err != nil {
		return port.SetupResult{}, err
	}
	return port.SetupResult{Session: s.View(), Notice: note}, nil
}
