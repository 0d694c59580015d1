package trace

import (
	"encoding/json"
	"time"

	"talaria/providers"
	"talaria/tools"
)

// Header is the first line of a recording: what the run was and the config
// that matters to replay it.
type Header struct {
	Type          string    `json:"type"` // "header"
	Version       int       `json:"version"`
	Talaria       string    `json:"talaria"`
	Created       time.Time `json:"created"`
	SessionID     string    `json:"session_id"`
	Provider      string    `json:"provider"`
	Model         string    `json:"model"`
	APIMode       string    `json:"api_mode"`
	BaseURL       string    `json:"base_url,omitempty"`
	Approvals     string    `json:"approvals,omitempty"`
	Sandbox       string    `json:"sandbox,omitempty"`
	MaxIterations int       `json:"max_iterations,omitempty"`
	MaxTokens     int       `json:"max_tokens,omitempty"`
	Retry         Retry     `json:"retry"`
	// Guardrails is the tool-loop guardrail's config (nil: the default).
	Guardrails *tools.GuardrailConfig `json:"guardrails,omitempty"`
	// Compression and CompressionThreshold are the automatic context
	// compression settings.
	Compression          bool    `json:"compression,omitempty"`
	CompressionThreshold float64 `json:"compression_threshold,omitempty"`
	// Chain is the primary backend and its fallbacks (keys left out).
	Chain []ChainEntry `json:"chain"`
	// SystemPrompt and History are what the first request was built from.
	SystemPrompt string              `json:"system_prompt"`
	History      []providers.Message `json:"history,omitempty"`
	Turns        int                 `json:"turns,omitempty"`
	// Tools are the tools offered to the model, as the model saw them.
	Tools []ToolDef `json:"tools"`
}

// Retry is the inner retry loop's timing, in milliseconds.
type Retry struct {
	MaxRetries      int   `json:"max_retries"`
	BaseDelayMS     int64 `json:"base_delay_ms"`
	MaxDelayMS      int64 `json:"max_delay_ms"`
	RetryAfterCapMS int64 `json:"retry_after_cap_ms"`
}

// RetryOf converts a retry policy for the header.
func RetryOf(p providers.RetryPolicy) Retry {
	return Retry{MaxRetries: p.MaxRetries, BaseDelayMS: p.BaseDelay.Milliseconds(), MaxDelayMS: p.MaxDelay.Milliseconds(),
		RetryAfterCapMS: p.RetryAfterCap.Milliseconds()}
}

// Policy converts back.
func (r Retry) Policy() providers.RetryPolicy {
	ms := func(v int64) time.Duration { return time.Duration(v) * time.Millisecond }
	return providers.RetryPolicy{MaxRetries: r.MaxRetries, BaseDelay: ms(r.BaseDelayMS), MaxDelay: ms(r.MaxDelayMS), RetryAfterCap: ms(r.RetryAfterCapMS)}
}

// ChainEntry is one backend of the fallback chain, without its keys.
type ChainEntry struct {
	Provider        string `json:"provider"`
	Model           string `json:"model"`
	APIMode         string `json:"api_mode"`
	BaseURL         string `json:"base_url,omitempty"`
	MaxTokens       int    `json:"max_tokens,omitempty"`
	ContextLength   int    `json:"context_length,omitempty"`
	ReasoningEffort string `json:"reasoning_effort,omitempty"`
	Keys            int    `json:"keys"`
}

// ToolDef is one tool offered to the model.
type ToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
}

// Line is any line after the header; Type says which fields are set.
type Line struct {
	Type string `json:"type"` // turn | request | response | tool | finished
	Turn int    `json:"turn,omitempty"`
	// turn
	Input string `json:"input,omitempty"`
	// request / response
	Seq     int               `json:"seq,omitempty"`
	TMS     float64           `json:"t_ms,omitempty"`
	Method  string            `json:"method,omitempty"`
	URL     string            `json:"url,omitempty"`
	Wire    string            `json:"wire,omitempty"`
	Model   string            `json:"model,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    json.RawMessage   `json:"body,omitempty"`
	// BodyText holds a body that is not JSON.
	BodyText  string  `json:"body_text,omitempty"`
	Status    int     `json:"status,omitempty"`
	Chunks    []Chunk `json:"chunks,omitempty"`
	Error     string  `json:"error,omitempty"`
	Truncated bool    `json:"truncated,omitempty"`
	// Agent names the subagent (a delegate_task child, by its session
	// id) whose request or response this is; empty for the session's own
	// agent. A replay serves a child's work from the delegate_task call's
	// recorded result, so it leaves these lines out.
	Agent string `json:"agent,omitempty"`
	// tool
	ID        string `json:"id,omitempty"`
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments,omitempty"`
	Output    string `json:"output,omitempty"`
	IsError   bool   `json:"is_error,omitempty"`
	// finished
	ExitReason string `json:"exit_reason,omitempty"`
}

// Chunk is one read of a response body, at TMS milliseconds after the
// request was sent.
type Chunk struct {
	TMS  float64 `json:"t_ms"`
	Data string  `json:"data"`
}
