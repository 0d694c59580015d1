// Package openaichat is the chat_completions transport: the OpenAI Chat
// Completions wire format as spoken by OpenAI and by the compatible servers
// (OpenRouter, Gemini's OpenAI endpoint, DeepSeek, Ollama, llama.cpp, vLLM,
// LM Studio). It is built on github.com/sashabaranov/go-openai for the HTTP
// exchange and decodes each streamed chunk itself, so that fields the SDK
// does not model (reasoning, extra_content, in-chunk errors) are kept.
package openaichat

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"talaria/providers"
)

// APIMode is the registry key of this transport.
const APIMode = "chat_completions"

// emptyLineLimit is go-openai's EmptyMessagesLimit: how many non-data lines
// in a row it tolerates before giving up on a stream. SSE comments and blank
// lines are already removed by sseFilter, so only stray event:/id: lines or
// a non-SSE body count; the limit is only a guard against garbage.
const emptyLineLimit = 1 << 20

// chatTransport implements providers.Transport for chat_completions.
type chatTransport struct {
	ep      providers.Endpoint
	baseURL string
	client  *openai.Client
	// replayExtra is true for endpoints that need tool-call extra_content
	// (Gemini thought signatures) echoed back.
	replayExtra bool
}

// The wire implements providers.Transport.
var _ providers.Transport = (*chatTransport)(nil)

// New builds a chat_completions transport for ep. It is a providers.Factory.
// An empty ep.BaseURL means the OpenAI API; ep.HTTPClient (or a default
// client without timeout, so long streams are not cut) carries every request.
// go-openai performs no retries of its own: retrying is the caller's job.
func New(ep providers.Endpoint) (providers.Transport, error) {
	cfg := openai.DefaultConfig(ep.APIKey)
	if ep.BaseURL != "" {
		u, err := url.Parse(ep.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("%s: base_url %q is not an http(s) URL; set model.base_url to something like http://localhost:11434/v1", ep.Provider, ep.BaseURL)
		}
		cfg.BaseURL = strings.TrimRight(ep.BaseURL, "/")
	}
	base := ep.HTTPClient
	if base == nil {
		base = &http.Client{}
	}
	hc := *base
	next := base.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	hc.Transport = &recorder{next: next}
	cfg.HTTPClient = &hc
	cfg.EmptyMessagesLimit = emptyLineLimit
	return &chatTransport{
		ep:          ep,
		baseURL:     cfg.BaseURL,
		client:      openai.NewClientWithConfig(cfg),
		replayExtra: wantsExtraContent(ep, cfg.BaseURL),
	}, nil
}

// APIMode returns "chat_completions".
func (t *chatTransport) APIMode() string { return APIMode }

// wantsExtraContent reports whether the endpoint is Gemini's OpenAI-compatible
// API, the one server known to need tool-call extra_content replayed. Other
// servers (OpenAI itself) reject unknown fields inside messages.
func wantsExtraContent(ep providers.Endpoint, baseURL string) bool {
	if strings.EqualFold(ep.Provider, "gemini") {
		return true
	}
	u, err := url.Parse(baseURL)
	if err != nil {
		return false
	}
	return strings.HasSuffix(strings.ToLower(u.Hostname()), "googleapis.com")
}
