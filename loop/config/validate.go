package config

import (
	"fmt"
	"slices"
	"strings"
)

// Providers lists the provider names config.yaml accepts.
func Providers() []string {
	return []string{"openai", "anthropic", "openai-responses", "bedrock", "gemini", "openrouter", "ollama", "custom"}
}

// APIModes lists the api_mode values config.yaml accepts.
func APIModes() []string {
	return []string{"chat_completions", "anthropic_messages", "codex_responses", "bedrock_converse", "gemini_native"}
}

// Validate checks value ranges and enumerations, naming the first bad key.
func Validate(cfg *Config, file string) error {
	bad := func(key, msg string) error { return &Error{File: file, Key: key, Msg: msg} }
	if err := validateModel(cfg.Model, "model", bad); err != nil {
		return err
	}
	for i, fb := range cfg.FallbackProviders {
		key := fmt.Sprintf("fallback_providers[%d]", i)
		if fb.Provider == "" {
			return bad(key+".provider", "required for a fallback entry")
		}
		if err := validateModel(fb, key, bad); err != nil {
			return err
		}
	}
	a := cfg.Agent
	switch {
	case a.MaxIterations < 1:
		return bad("agent.max_iterations", fmt.Sprintf("must be at least 1, got %d", a.MaxIterations))
	case a.APIMaxRetries < 0:
		return bad("agent.api_max_retries", fmt.Sprintf("must be 0 or more, got %d", a.APIMaxRetries))
	case a.RetryBaseDelay <= 0:
		return bad("agent.retry_base_delay", "must be a positive duration such as 2s")
	case a.RetryMaxDelay < a.RetryBaseDelay:
		return bad("agent.retry_max_delay", "must be a duration at least retry_base_delay")
	case a.RetryAfterCap < 0:
		return bad("agent.retry_after_cap", "must be a duration such as 600s")
	case a.RequestTimeout < 0:
		return bad("agent.request_timeout", "must be a duration such as 120s (0 disables it)")
	case a.StreamReadTimeout < 0:
		return bad("agent.stream_read_timeout", "must be a duration such as 120s (0 disables it)")
	case a.StreamStaleTimeout < 0:
		return bad("agent.stream_stale_timeout", "must be a duration such as 300s (0 disables it)")
	case a.MaxResponseBytes < 0:
		return bad("agent.max_response_bytes", "must be a byte count such as 8388608 (0 disables the cap)")
	}
	if err := oneOf("approvals", cfg.Approvals, []string{"ask", "auto-edit", "read-only", "yolo"}, bad); err != nil {
		return err
	}
	if err := oneOf("sandbox.mode", cfg.Sandbox.Mode, SandboxModes(), bad); err != nil {
		return err
	}
	if err := cfg.LSP.validate(bad); err != nil {
		return err
	}
	if err := cfg.Checkpoints.validate(bad); err != nil {
		return err
	}
	if err := cfg.Tools.validate(bad); err != nil {
		return err
	}
	if err := validateContain(cfg, bad); err != nil {
		return err
	}
	if err := validateExtensions(cfg, bad); err != nil {
		return err
	}
	if err := validatePermissions(cfg.Permissions, bad); err != nil {
		return err
	}
	if err := validateThresholds(cfg.ToolLoopGuardrails, bad); err != nil {
		return err
	}
	if cfg.Delegation.MaxIterations < 1 {
		return bad("delegation.max_iterations", "must be at least 1")
	}
	if t := cfg.Compression.Threshold; t <= 0 || t > 1 {
		return bad("compression.threshold", fmt.Sprintf("must be in (0, 1], got %g", t))
	}
	if err := oneOf("display.busy_input_mode", cfg.Display.BusyInputMode, []string{"steer", "queue", "interrupt"}, bad); err != nil {
		return err
	}
	if n := cfg.Display.LiveLines; n < 0 || n > 64 {
		return bad("display.live_lines", fmt.Sprintf("must be between 0 and 64, got %d", n))
	}
	if err := oneOf("display.print_on_exit", cfg.Display.PrintOnExit, []string{"last", "all", "none"}, bad); err != nil {
		return err
	}
	if err := validateNotifications(cfg.Notifications, bad); err != nil {
		return err
	}
	for name, s := range cfg.MCPServers {
		key := "mcp_servers." + name
		if (s.Command == "") == (s.URL == "") {
			return bad(key, "needs exactly one of command (stdio) or url (streamable HTTP)")
		}
		if strings.Contains(name, "__") {
			return bad(key, "server names may not contain two underscores")
		}
		if s.StartupTimeout < 0 {
			return bad(key+".startup_timeout", "must be a positive duration such as 30s")
		}
		if s.ToolTimeout < 0 {
			return bad(key+".tool_timeout", "must be a positive duration such as 10m")
		}
	}
	return nil
}

func validateModel(m Model, key string, bad func(string, string) error) error {
	if m.Provider != "" {
		if err := oneOf(key+".provider", m.Provider, Providers(), bad); err != nil {
			return err
		}
	}
	if m.APIMode != "" {
		if err := oneOf(key+".api_mode", m.APIMode, APIModes(), bad); err != nil {
			return err
		}
	}
	if m.ContextLength < 0 {
		return bad(key+".context_length", "must be positive")
	}
	if m.MaxTokens < 0 {
		return bad(key+".max_tokens", "must be positive")
	}
	if m.OllamaNumCtx != 0 && (m.OllamaNumCtx < 256 || m.OllamaNumCtx > 1<<24) {
		return bad(key+".ollama_num_ctx", fmt.Sprintf("must be a context size in tokens between 256 and 16777216, such as 65536, got %d", m.OllamaNumCtx))
	}
	if m.ReasoningEffort != "" {
		if err := oneOf(key+".reasoning_effort", m.ReasoningEffort, ReasoningEfforts(), bad); err != nil {
			return err
		}
	}
	if m.BaseURL != "" && !strings.HasPrefix(m.BaseURL, "http://") && !strings.HasPrefix(m.BaseURL, "https://") {
		return bad(key+".base_url", fmt.Sprintf("must start with http:// or https://, got %q", m.BaseURL))
	}
	if m.Provider == "custom" && m.BaseURL == "" {
		return bad(key+".base_url", "required for provider custom")
	}
	return nil
}

func validateThresholds(g Guardrails, bad func(string, string) error) error {
	check := func(prefix string, t Thresholds) error {
		for k, v := range map[string]int{"exact_failure": t.ExactFailure, "same_tool_failure": t.SameToolFailure, "idempotent_no_progress": t.IdempotentNoProgress} {
			if v < 1 {
				return bad("tool_loop_guardrails."+prefix+"."+k, fmt.Sprintf("must be at least 1, got %d", v))
			}
		}
		return nil
	}
	if err := check("warn_after", g.WarnAfter); err != nil {
		return err
	}
	return check("hard_stop_after", g.HardStopAfter)
}

// ReasoningEfforts are the values of model.reasoning_effort.
func ReasoningEfforts() []string { return []string{"low", "medium", "high"} }

func oneOf(key, val string, allowed []string, bad func(string, string) error) error {
	if slices.Contains(allowed, val) {
		return nil
	}
	return bad(key, fmt.Sprintf("%q is not one of %s", val, strings.Join(allowed, " | ")))
}

// validateNotifications checks the notifications section.
func validateNotifications(n Notifications, bad func(string, string) error) error {
	for _, w := range n.When {
		if err := oneOf("notifications.when", w, []string{"turn_end", "approval", "clarify"}, bad); err != nil {
			return err
		}
	}
	if err := oneOf("notifications.mode", n.Mode, []string{"unfocused", "always", "never"}, bad); err != nil {
		return err
	}
	if n.MinSeconds < 0 {
		return bad("notifications.min_seconds", fmt.Sprintf("must be 0 or more, got %d", n.MinSeconds))
	}
	if len(n.Command) > 0 && n.Command[0] == "" {
		return bad("notifications.command", "the program name is empty")
	}
	return nil
}
