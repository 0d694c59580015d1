// Package anthropic is the anthropic_messages transport: the Anthropic
// Messages API (POST /v1/messages, stream: true) as spoken by Anthropic and by
// the servers that copy it (llama.cpp, LiteLLM, OpenRouter's Anthropic
// endpoint), spoken over net/http without the Anthropic SDK: the request is
// this package's own wire types, the event stream is read with providers/sse
// and decoded here, so that a final event cut off by a closed connection, a
// mid-stream error event, unknown event names and new block types are all
// handled the same way. Nothing is retried here: the loop retries.
//
// Finish reasons: end_turn and stop_sequence → stop, max_tokens and
// model_context_window_exceeded → length, tool_use → tool_calls, refusal →
// content_filter, and pause_turn → FinishPauseTurn ("pause_turn"): the server
// paused a long turn and the conversation should be sent back as it is so the
// model can continue.
package anthropic

import (
	"net/http"
	"strings"

	"talaria/providers"
)

// APIMode is the registry key of this transport.
const APIMode = "anthropic_messages"

// FinishPauseTurn is the normalized finish reason of stop_reason
// "pause_turn": the server paused a long-running turn; sending the
// conversation back unchanged (with this assistant message) lets the model
// continue where it stopped. It is neither an error nor a final answer.
const FinishPauseTurn = "pause_turn"

// ReplayFormat tags the ReasoningReplay this transport writes, so that replay
// data written by another transport is never sent to Anthropic.
const ReplayFormat = "anthropic_messages"

// defaultBaseURL is the Anthropic API, used when the endpoint names none.
const defaultBaseURL = "https://api.anthropic.com"

// apiVersion is the anthropic-version header every request carries.
const apiVersion = "2023-06-01"

// transport is the anthropic_messages wire.
type transport struct {
	ep      providers.Endpoint
	baseURL string
	client  *http.Client
}

// New builds an anthropic_messages transport for ep. It is a
// providers.Factory. An empty ep.BaseURL means the Anthropic API; a base URL
// ending in /v1 is accepted too. ep.HTTPClient (or a client without timeout,
// so long streams are not cut) carries every request. Nothing is read from
// the environment: the key is ep.APIKey, sent as x-api-key, and an empty key
// sends no credential (local servers).
func New(ep providers.Endpoint) (providers.Transport, error) {
	base, err := normalizeBaseURL(ep)
	if err != nil {
		return nil, err
	}
	return &transport{ep: ep, baseURL: base, client: ep.Client()}, nil
}

// normalizeBaseURL checks ep.BaseURL and trims a trailing slash and /v1.
func normalizeBaseURL(ep providers.Endpoint) (string, error) {
	base, _, err := ep.Base(defaultBaseURL, defaultBaseURL)
	return strings.TrimSuffix(base, "/v1"), err
}
