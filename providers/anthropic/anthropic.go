// Package anthropic is the anthropic_messages transport: the Anthropic
// Messages API (POST /v1/messages, stream: true) as spoken by Anthropic and by
// the servers that copy it (llama.cpp, LiteLLM, OpenRouter's Anthropic
// endpoint). It is built on github.com/anthropics/anthropic-sdk-go/v2: the
// SDK's param types make the request and its client sends it (base URL,
// credentials, anthropic-version), with the SDK's own retries off because the
// loop retries. The event stream is read and decoded here, so that a final
// event cut off by a closed connection, a mid-stream error event, unknown
// event names and blocks the SDK does not model are all handled the same way.
//
// Finish reasons: end_turn and stop_sequence → stop, max_tokens and
// model_context_window_exceeded → length, tool_use → tool_calls, refusal →
// content_filter, and pause_turn → FinishPauseTurn ("pause_turn"): the server
// paused a long turn and the conversation should be sent back as it is so the
// model can continue.
package anthropic

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

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

// transport implements providers.Transport for anthropic_messages.
type transport struct {
	ep      providers.Endpoint
	baseURL string
	client  sdk.Client
}

// Compile-time checks of the optional interfaces.
var (
	_ providers.Transport           = (*transport)(nil)
	_ providers.ResponseValidator   = (*transport)(nil)
	_ providers.FinishReasonMapper  = (*transport)(nil)
	_ providers.CacheStatsExtractor = (*transport)(nil)
)

// New builds an anthropic_messages transport for ep. It is a
// providers.Factory. An empty ep.BaseURL means the Anthropic API; a base URL
// ending in /v1 is accepted too (the /v1 is the SDK's). ep.HTTPClient (or a
// client without timeout, so long streams are not cut) carries every request.
// Nothing is read from the environment: the key is ep.APIKey, and an empty
// key sends no credential (local servers). The SDK makes exactly one attempt
// per call.
func New(ep providers.Endpoint) (providers.Transport, error) {
	base, err := normalizeBaseURL(ep)
	if err != nil {
		return nil, err
	}
	hc := ep.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithBaseURL(base + "/"),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0),
	}
	if ep.APIKey != "" {
		// Anthropic documents x-api-key; this SDK version sends the key as a
		// bearer token, so send the documented header instead.
		opts = append(opts, option.WithHeader("x-api-key", ep.APIKey))
	}
	return &transport{ep: ep, baseURL: base, client: sdk.NewClient(opts...)}, nil
}

// normalizeBaseURL checks ep.BaseURL and trims a trailing slash and /v1.
func normalizeBaseURL(ep providers.Endpoint) (string, error) {
	if ep.BaseURL == "" {
		return defaultBaseURL, nil
	}
	u, err := url.Parse(ep.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%s: base_url %q is not an http(s) URL; set model.base_url to something like https://api.anthropic.com", ep.Provider, ep.BaseURL)
	}
	base := strings.TrimRight(ep.BaseURL, "/")
	base = strings.TrimSuffix(base, "/v1")
	return base, nil
}

// APIMode returns "anthropic_messages".
func (t *transport) APIMode() string { return APIMode }
