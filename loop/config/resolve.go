package config

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"talaria/tools"
)

// ProviderDefaults are the built-in settings of one provider name.
type ProviderDefaults struct {
	BaseURL     string
	BaseURLEnv  string // env var that overrides BaseURL
	APIKeyEnv   string
	APIMode     string
	Model       string
	KeyOptional bool // local servers need no key
}

// Defaults returns the built-in defaults of a provider.
func Defaults(provider string) ProviderDefaults {
	switch provider {
	case "openai":
		return ProviderDefaults{BaseURL: "https://api.openai.com/v1", BaseURLEnv: "OPENAI_BASE_URL", APIKeyEnv: "OPENAI_API_KEY", APIMode: "chat_completions", Model: "gpt-4.1"}
	case "openai-responses":
		return ProviderDefaults{BaseURL: "https://api.openai.com/v1", BaseURLEnv: "OPENAI_BASE_URL", APIKeyEnv: "OPENAI_API_KEY", APIMode: "codex_responses", Model: "gpt-4.1"}
	case "anthropic":
		return ProviderDefaults{BaseURL: "https://api.anthropic.com", BaseURLEnv: "ANTHROPIC_BASE_URL", APIKeyEnv: "ANTHROPIC_API_KEY", APIMode: "anthropic_messages", Model: "claude-sonnet-4-5"}
	case "openrouter":
		return ProviderDefaults{BaseURL: "https://openrouter.ai/api/v1", APIKeyEnv: "OPENROUTER_API_KEY", APIMode: "chat_completions", Model: "openai/gpt-4.1"}
	case "gemini":
		return ProviderDefaults{BaseURL: "https://generativelanguage.googleapis.com/v1beta", APIKeyEnv: "GEMINI_API_KEY", APIMode: "gemini_native", Model: "gemini-2.5-flash"}
	case "bedrock":
		return ProviderDefaults{BaseURLEnv: "BEDROCK_BASE_URL", APIKeyEnv: "AWS_BEARER_TOKEN_BEDROCK", APIMode: "bedrock_converse", Model: "anthropic.claude-sonnet-4-5-v1:0"}
	case "ollama":
		return ProviderDefaults{BaseURL: "http://127.0.0.1:11434/v1", APIMode: "chat_completions", KeyOptional: true}
	default: // custom
		return ProviderDefaults{APIMode: "chat_completions", KeyOptional: true}
	}
}

// Backend is a fully resolved provider endpoint.
type Backend struct {
	Provider      string
	Model         string
	BaseURL       string
	APIMode       string
	APIKeys       []string // the pool, in order; may be empty for local servers
	APIKeyEnvs    []string // the variables APIKeys came from, for messages
	ContextLength int
	MaxTokens     int
	// ReasoningEffort is model.reasoning_effort ("" off).
	ReasoningEffort string
	// OllamaNumCtx is model.ollama_num_ctx (0 unset).
	OllamaNumCtx int
}

// Overrides are the command-line flags that take precedence over the file.
type Overrides struct {
	Provider      string
	Model         string
	BaseURL       string
	MaxIterations int
	Theme         string
	Yolo          bool
	// Sandbox is --sandbox MODE ("" leaves sandbox.mode as configured).
	Sandbox string
	// Approvals is --permission-mode MODE ("" leaves approvals as configured).
	Approvals string
	// AllowedTools and DisallowedTools are --allowedTools and
	// --disallowedTools: permission rules added to permissions.allow and
	// permissions.deny for this run.
	AllowedTools, DisallowedTools []string
}

// Apply merges flag overrides into cfg and validates the result.
func (o Overrides) Apply(cfg *Config) error {
	if o.Provider != "" {
		if !slices.Contains(Providers(), o.Provider) {
			return fmt.Errorf("--provider: %q is not one of %s", o.Provider, strings.Join(Providers(), " | "))
		}
		if o.Provider != cfg.Model.Provider {
			// A different provider invalidates the file's provider-specific settings.
			cfg.Model = Model{Provider: o.Provider, MaxTokens: cfg.Model.MaxTokens}
		}
	}
	if o.Model != "" {
		cfg.Model.Name = o.Model
	}
	if o.BaseURL != "" {
		if !strings.HasPrefix(o.BaseURL, "http://") && !strings.HasPrefix(o.BaseURL, "https://") {
			return fmt.Errorf("--base-url: must start with http:// or https://, got %q", o.BaseURL)
		}
		cfg.Model.BaseURL = o.BaseURL
		if cfg.Model.Provider == "" {
			cfg.Model.Provider = "custom"
		}
	}
	if o.MaxIterations != 0 {
		if o.MaxIterations < 1 {
			return fmt.Errorf("--max-iterations: must be at least 1, got %d", o.MaxIterations)
		}
		cfg.Agent.MaxIterations = o.MaxIterations
	}
	if o.Theme != "" {
		cfg.Display.Theme = o.Theme
	}
	if o.Approvals != "" {
		if modes := []string{"ask", "auto-edit", "read-only", "yolo"}; !slices.Contains(modes, o.Approvals) {
			return fmt.Errorf("--permission-mode: %q is not one of %s", o.Approvals, strings.Join(modes, " | "))
		}
		cfg.Approvals = o.Approvals
	}
	if o.Yolo {
		cfg.Approvals = "yolo"
	}
	for _, l := range []struct {
		flag string
		in   []string
		to   *[]string
	}{{"--allowedTools", o.AllowedTools, &cfg.Permissions.Allow}, {"--disallowedTools", o.DisallowedTools, &cfg.Permissions.Deny}} {
		for _, r := range l.in {
			if _, err := tools.ParseRule(r); err != nil {
				return fmt.Errorf("%s: %q: %v", l.flag, r, err)
			}
			*l.to = append(*l.to, r)
		}
	}
	if o.Sandbox != "" {
		if !slices.Contains(SandboxModes(), o.Sandbox) {
			return fmt.Errorf("--sandbox: %q is not one of %s", o.Sandbox, strings.Join(SandboxModes(), " | "))
		}
		cfg.Sandbox.Mode = o.Sandbox
	}
	return nil
}

// ErrNoProvider means no provider is configured and no key is set.
var ErrNoProvider = fmt.Errorf("no model provider configured: set OPENAI_API_KEY (or ANTHROPIC_API_KEY, OPENROUTER_API_KEY, GEMINI_API_KEY), or write model.provider in $TALARIA_HOME/config.yaml, or start a local server (Ollama, llama.cpp, LM Studio, vLLM); try `talaria --demo` for an offline tour")

// Resolve turns a Model entry into a Backend using provider defaults and the
// environment. With no provider named it picks the first provider whose key
// is set; with none it returns ErrNoProvider.
func Resolve(m Model, getenv func(string) string) (Backend, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if m.Provider == "" {
		for _, p := range []string{"openai", "anthropic", "openrouter", "gemini"} { // env keys pick a provider in this order
			if getenv(Defaults(p).APIKeyEnv) != "" {
				m.Provider = p
				break
			}
		}
		if m.Provider == "" {
			return Backend{}, ErrNoProvider
		}
	}
	d := Defaults(m.Provider)
	b := Backend{Provider: m.Provider, Model: m.Name, BaseURL: m.BaseURL, APIMode: m.APIMode, ContextLength: m.ContextLength, MaxTokens: m.MaxTokens, ReasoningEffort: m.ReasoningEffort, OllamaNumCtx: m.OllamaNumCtx}
	if b.Model == "" {
		b.Model = d.Model
	}
	if b.BaseURL == "" && d.BaseURLEnv != "" {
		b.BaseURL = getenv(d.BaseURLEnv)
	}
	if b.BaseURL == "" {
		b.BaseURL = d.BaseURL
	}
	if b.APIMode == "" {
		b.APIMode = d.APIMode
	}
	envs := m.APIKeysEnv
	if len(envs) == 0 {
		env := m.APIKeyEnv
		if env == "" {
			env = d.APIKeyEnv
		}
		if env != "" {
			envs = []string{env}
		}
	}
	b.APIKeyEnvs = envs
	var missing []string
	for _, e := range envs {
		if v := getenv(e); v != "" {
			b.APIKeys = append(b.APIKeys, v)
		} else {
			missing = append(missing, e)
		}
	}
	if len(b.APIKeys) == 0 && !d.KeyOptional && m.Provider != "custom" {
		return b, fmt.Errorf("provider %s: no API key: set %s", m.Provider, strings.Join(missing, " or "))
	}
	if b.Model == "" {
		return b, fmt.Errorf("provider %s: no model name: set model.name in config.yaml or pass --model", m.Provider)
	}
	return b, nil
}
