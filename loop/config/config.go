// Package config loads and validates talaria's config.yaml and merges it
// with flags and environment defaults (flags over file over env defaults).
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"go.yaml.in/yaml/v3"
)

// Config is the whole config.yaml.
type Config struct {
	Model              Model                `yaml:"model"`
	FallbackProviders  []Model              `yaml:"fallback_providers"`
	Agent              Agent                `yaml:"agent"`
	Approvals          string               `yaml:"approvals"`
	ToolLoopGuardrails Guardrails           `yaml:"tool_loop_guardrails"`
	Delegation         Delegation           `yaml:"delegation"`
	Compression        Compression          `yaml:"compression"`
	Display            Display              `yaml:"display"`
	MCPServers         map[string]MCPServer `yaml:"mcp_servers"`
	Terminal           Terminal             `yaml:"terminal"`
	Sandbox            Sandbox              `yaml:"sandbox"`
	Telemetry          Telemetry            `yaml:"telemetry"`
	Checkpoints        Checkpoints          `yaml:"checkpoints"`
	Extensions         Extensions           `yaml:"extensions"`
	Hooks              Hooks                `yaml:"hooks"`
	Permissions        Permissions          `yaml:"permissions"`
	Tools              Tools                `yaml:"tools"`
	LSP                LSP                  `yaml:"lsp"`
	// TrustedProjects lists the project folders whose own settings apply.
	TrustedProjects []string      `yaml:"trusted_projects"`
	Notifications   Notifications `yaml:"notifications"`
}

// Model selects one provider backend (also used for each fallback entry).
type Model struct {
	Provider      string   `yaml:"provider"`
	Name          string   `yaml:"name"`
	BaseURL       string   `yaml:"base_url"`
	APIKeyEnv     string   `yaml:"api_key_env"`
	APIKeysEnv    []string `yaml:"api_keys_env"`
	APIMode       string   `yaml:"api_mode"`
	ContextLength int      `yaml:"context_length"`
	MaxTokens     int      `yaml:"max_tokens"`
	// ReasoningEffort asks for reasoning/thinking: low | medium | high;
	// empty (the default) leaves it off.
	ReasoningEffort string `yaml:"reasoning_effort"`
	// OllamaNumCtx is the runtime context (num_ctx) asked of an Ollama
	// server on every request; 0 leaves it to the server.
	OllamaNumCtx int `yaml:"ollama_num_ctx"`
}

// Agent holds loop limits and retry timing.
type Agent struct {
	MaxIterations  int           `yaml:"max_iterations"`
	APIMaxRetries  int           `yaml:"api_max_retries"`
	RetryBaseDelay time.Duration `yaml:"retry_base_delay"`
	RetryMaxDelay  time.Duration `yaml:"retry_max_delay"`
	RetryAfterCap  time.Duration `yaml:"retry_after_cap"`
	// RequestTimeout, StreamReadTimeout and StreamStaleTimeout bound a
	// provider call (headers; a byte; content between keep-alives); 0
	// disables one.
	RequestTimeout     time.Duration `yaml:"request_timeout"`
	StreamReadTimeout  time.Duration `yaml:"stream_read_timeout"`
	StreamStaleTimeout time.Duration `yaml:"stream_stale_timeout"`
	// MaxResponseBytes caps the text, reasoning and tool arguments of one
	// response; 0 disables the cap.
	MaxResponseBytes int `yaml:"max_response_bytes"`
}

// Thresholds are per-kind counts for the tool-loop guardrail.
type Thresholds struct {
	ExactFailure         int `yaml:"exact_failure"`
	SameToolFailure      int `yaml:"same_tool_failure"`
	IdempotentNoProgress int `yaml:"idempotent_no_progress"`
}

// Guardrails configures the tool-loop guardrail.
type Guardrails struct {
	WarningsEnabled bool `yaml:"warnings_enabled"`
	// HardStopEnabled nil means the mode's default: off in the TUI, on
	// headless.
	HardStopEnabled *bool      `yaml:"hard_stop_enabled"`
	WarnAfter       Thresholds `yaml:"warn_after"`
	HardStopAfter   Thresholds `yaml:"hard_stop_after"`
}

// Delegation configures subagents.
type Delegation struct {
	MaxIterations int `yaml:"max_iterations"`
}

// Compression configures context compression.
type Compression struct {
	Enabled   bool    `yaml:"enabled"`
	Threshold float64 `yaml:"threshold"`
}

// Display configures the TUI.
type Display struct {
	Theme         string `yaml:"theme"`
	BusyInputMode string `yaml:"busy_input_mode"`
	// LiveLines is how many output lines a running tool's lane shows.
	LiveLines int `yaml:"live_lines"`
	// PrintOnExit is what the TUI prints to the normal screen when it
	// quits: last (the last turn), all (the whole transcript) or none.
	PrintOnExit string `yaml:"print_on_exit"`
	// Mouse nil or true lets the TUI take the mouse (wheel, drag to
	// select and copy); false leaves it to the terminal.
	Mouse *bool `yaml:"mouse"`
}

// Notifications configures the TUI's desktop notifications: OSC 9, OSC
// 777 and BEL, and an optional command.
type Notifications struct {
	// When lists the occasions: turn_end, approval, clarify; empty means
	// all three.
	When []string `yaml:"when"`
	// Mode is unfocused (only while the terminal reports it lost focus, or
	// when it never reports focus), always, or never.
	Mode string `yaml:"mode"`
	// MinSeconds is how long a turn must have run for its end to notify.
	MinSeconds int `yaml:"min_seconds"`
	// Command, when set, runs with one JSON argument like Codex's notify.
	Command []string `yaml:"command"`
}

// MCPServer is one MCP server: a stdio command or a streamable-HTTP URL.
type MCPServer struct {
	Command string            `yaml:"command"`
	Args    []string          `yaml:"args"`
	Env     map[string]string `yaml:"env"`
	URL     string            `yaml:"url"`
	// StartupTimeout bounds starting the server (connect, initialize,
	// list tools); 0 means 30s.
	StartupTimeout time.Duration `yaml:"startup_timeout"`
	// ToolTimeout bounds one call of its tools; 0 means 10m.
	ToolTimeout time.Duration `yaml:"tool_timeout"`
}

// Default returns the built-in defaults.
func Default() Config {
	return Config{
		Agent: Agent{
			MaxIterations:  90,
			APIMaxRetries:  3,
			RetryBaseDelay: 2 * time.Second,
			RetryMaxDelay:  60 * time.Second,
			RetryAfterCap:  600 * time.Second,

			RequestTimeout:     120 * time.Second,
			StreamReadTimeout:  120 * time.Second,
			StreamStaleTimeout: 300 * time.Second,
			MaxResponseBytes:   8 << 20,
		},
		Approvals: "ask",
		ToolLoopGuardrails: Guardrails{
			WarningsEnabled: true,
			WarnAfter:       Thresholds{ExactFailure: 2, SameToolFailure: 3, IdempotentNoProgress: 2},
			HardStopAfter:   Thresholds{ExactFailure: 5, SameToolFailure: 8, IdempotentNoProgress: 5},
		},
		Delegation:    Delegation{MaxIterations: 50},
		Compression:   Compression{Enabled: true, Threshold: 0.50},
		Display:       Display{Theme: "", BusyInputMode: "steer", LiveLines: 5, PrintOnExit: "last"},
		Notifications: Notifications{Mode: "unfocused", MinSeconds: 10},
		Sandbox:       Sandbox{Mode: "off"},
		Checkpoints:   DefaultCheckpoints(),
	}
}

// Error is a config problem: it names the file and the key.
type Error struct {
	File string
	Key  string
	Line int
	Msg  string
}

// Error implements error as one line.
func (e *Error) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	if e.Key != "" {
		return fmt.Sprintf("config %s: %s: %s", loc, e.Key, e.Msg)
	}
	return fmt.Sprintf("config %s: %s", loc, e.Msg)
}

// Load reads the config file at path over the defaults. A missing file is
// not an error when optional is true (the default path); it is when the user
// named the file with --config.
func Load(path string, optional bool) (Config, error) {
	cfg := Default()
	data, err := os.ReadFile(path)
	if err != nil {
		if optional && errors.Is(err, os.ErrNotExist) {
			return cfg, nil
		}
		return cfg, &Error{File: path, Msg: fmt.Sprintf("cannot read: %v", err)}
	}
	if err := Parse(data, path, &cfg); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// Parse decodes YAML into cfg (which holds the defaults), rejecting unknown
// keys and bad values with an *Error naming the key.
func Parse(data []byte, file string, cfg *Config) error {
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return nil // empty file
		}
		return &Error{File: file, Msg: oneLine(err.Error())}
	}
	if len(root.Content) == 0 {
		return nil
	}
	if err := checkKeys(root.Content[0], schemaOf(cfg), "", file); err != nil {
		return err
	}
	if err := decodeNode(root.Content[0], cfg, file); err != nil {
		return err
	}
	return Validate(cfg, file)
}

// DefaultHome returns $TALARIA_HOME or ~/.talaria.
func DefaultHome() string {
	if h := os.Getenv("TALARIA_HOME"); h != "" {
		return h
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".talaria")
	}
	return ".talaria"
}
