package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func parse(t *testing.T, y string) (Config, error) {
	t.Helper()
	cfg := Default()
	err := Parse([]byte(y), "config.yaml", &cfg)
	return cfg, err
}

func TestParseFullExample(t *testing.T) {
	cfg, err := parse(t, `
model:
  provider: openai
  name: gpt-4.1
  base_url: https://example.test/v1
  api_key_env: OPENAI_API_KEY
  api_keys_env: [KEY_A, KEY_B]
  api_mode: chat_completions
  context_length: 128000
  max_tokens: 4096
fallback_providers:
  - provider: anthropic
    name: claude-sonnet-4-5
    api_key_env: ANTHROPIC_API_KEY
agent:
  max_iterations: 12
  api_max_retries: 5
  retry_base_delay: 1s
  retry_max_delay: 30s
  retry_after_cap: 120s
approvals: auto-edit
tool_loop_guardrails:
  warnings_enabled: false
  hard_stop_enabled: true
  warn_after: {exact_failure: 2, same_tool_failure: 3, idempotent_no_progress: 2}
  hard_stop_after: {exact_failure: 5, same_tool_failure: 8, idempotent_no_progress: 5}
delegation:
  max_iterations: 20
compression:
  enabled: false
  threshold: 0.7
display:
  theme: light
  busy_input_mode: queue
mcp_servers:
  files: {command: some-mcp-server, args: [--root, .], env: {}, startup_timeout: 45s, tool_timeout: 5m}
  remote: {url: http://127.0.0.1:9000/mcp}
`)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Model.Name != "gpt-4.1" || cfg.Agent.MaxIterations != 12 || cfg.Agent.RetryBaseDelay != time.Second ||
		cfg.Agent.RetryAfterCap != 120*time.Second || cfg.Approvals != "auto-edit" ||
		cfg.ToolLoopGuardrails.HardStopEnabled == nil || !*cfg.ToolLoopGuardrails.HardStopEnabled ||
		cfg.Display.BusyInputMode != "queue" || len(cfg.FallbackProviders) != 1 ||
		cfg.MCPServers["remote"].URL == "" || cfg.MCPServers["files"].StartupTimeout != 45*time.Second || cfg.MCPServers["files"].ToolTimeout != 5*time.Minute || len(cfg.Model.APIKeysEnv) != 2 || cfg.Compression.Threshold != 0.7 {
		t.Fatalf("parsed wrong: %+v", cfg)
	}
}

func TestUnknownAndBadKeysAreNamed(t *testing.T) {
	cases := []struct{ yaml, want string }{
		{"model:\n  provder: openai\n", "model.provder: unknown key"},
		{"agnt:\n  max_iterations: 3\n", "agnt: unknown key"},
		{"fallback_providers:\n  - provider: openai\n    nme: x\n", "fallback_providers[0].nme: unknown key"},
		{"mcp_servers:\n  a: {comand: x}\n", "mcp_servers.a.comand: unknown key"},
		{"model:\n  provider: foo\n", "model.provider: \"foo\" is not one of"},
		{"agent:\n  max_iterations: 0\n", "agent.max_iterations: must be at least 1"},
		{"agent:\n  max_iterations: lots\n", "agent.max_iterations"},
		{"agent:\n  retry_base_delay: soon\n", "agent.retry_base_delay"},
		{"approvals: sometimes\n", "approvals:"},
		{"display:\n  busy_input_mode: shout\n", "display.busy_input_mode"},
		{"display:\n  live_lines: 100\n", "display.live_lines"},
		{"compression:\n  threshold: 1.5\n", "compression.threshold"},
		{"model:\n  provider: custom\n", "model.base_url: required"},
		{"model: [\n", "config config.yaml"},
		{"mcp_servers:\n  a: {command: x, url: http://y}\n", "mcp_servers.a: needs exactly one"},
		{"mcp_servers:\n  a: {command: x, startup_timeout: -1s}\n", "mcp_servers.a.startup_timeout"},
		{"mcp_servers:\n  a:\n    command: x\n    tool_timeout: soon\n", "mcp_servers.a.tool_timeout"},
	}
	for _, c := range cases {
		_, err := parse(t, c.yaml)
		if err == nil {
			t.Errorf("%q: no error", c.yaml)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %q does not name %q on one line", c.yaml, err, c.want)
		}
	}
}

func TestLoadMissingFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "none.yaml")
	if _, err := Load(p, true); err != nil {
		t.Fatalf("optional missing file: %v", err)
	}
	if _, err := Load(p, false); err == nil || !strings.Contains(err.Error(), p) {
		t.Fatalf("named missing file: %v", err)
	}
	if err := os.WriteFile(p, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(p, false)
	if err != nil || cfg.Agent.MaxIterations != 90 {
		t.Fatalf("empty file: %v %+v", err, cfg.Agent)
	}
}

func TestPrecedenceFlagsOverFileOverEnv(t *testing.T) {
	env := map[string]string{"OPENAI_API_KEY": "sk-env", "OPENAI_BASE_URL": "http://env.test/v1", "ANTHROPIC_API_KEY": "ak"}
	getenv := func(k string) string { return env[k] }

	// env only: first provider with a key, its env base URL.
	b, err := Resolve(Default().Model, getenv)
	if err != nil || b.Provider != "openai" || b.BaseURL != "http://env.test/v1" || b.APIKeys[0] != "sk-env" || b.Model != "gpt-4.1" {
		t.Fatalf("env defaults: %+v %v", b, err)
	}
	// file over env.
	cfg, err := parse(t, "model:\n  provider: anthropic\n  name: claude-x\n")
	if err != nil {
		t.Fatal(err)
	}
	b, _ = Resolve(cfg.Model, getenv)
	if b.Provider != "anthropic" || b.Model != "claude-x" || b.APIMode != "anthropic_messages" {
		t.Fatalf("file: %+v", b)
	}
	// flags over file.
	if err := (Overrides{Model: "claude-y", MaxIterations: 7}).Apply(&cfg); err != nil {
		t.Fatal(err)
	}
	b, _ = Resolve(cfg.Model, getenv)
	if b.Model != "claude-y" || cfg.Agent.MaxIterations != 7 {
		t.Fatalf("flags: %+v", b)
	}
	if err := (Overrides{BaseURL: "http://127.0.0.1:8080/v1", Provider: "custom", Model: "local"}).Apply(&cfg); err != nil {
		t.Fatal(err)
	}
	b, err = Resolve(cfg.Model, getenv)
	if err != nil || b.Provider != "custom" || b.BaseURL != "http://127.0.0.1:8080/v1" || len(b.APIKeys) != 0 {
		t.Fatalf("custom: %+v %v", b, err)
	}
	if err := (Overrides{Provider: "nope"}).Apply(&cfg); err == nil || !strings.Contains(err.Error(), "--provider") {
		t.Fatalf("bad flag: %v", err)
	}
}

func TestResolveErrors(t *testing.T) {
	none := func(string) string { return "" }
	if _, err := Resolve(Model{}, none); !errors.Is(err, ErrNoProvider) {
		t.Fatalf("want ErrNoProvider, got %v", err)
	}
	if _, err := Resolve(Model{Provider: "openai"}, none); err == nil || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Fatalf("missing key not named: %v", err)
	}
	pool := func(k string) string { return map[string]string{"A": "ka", "B": "kb"}[k] }
	b, err := Resolve(Model{Provider: "openai", APIKeysEnv: []string{"A", "MISSING", "B"}}, pool)
	if err != nil || len(b.APIKeys) != 2 || b.APIKeys[1] != "kb" {
		t.Fatalf("pool: %+v %v", b, err)
	}
}
