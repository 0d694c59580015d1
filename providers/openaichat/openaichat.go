// Package openaichat is the chat_completions transport: the OpenAI Chat
// Completions wire format as spoken by OpenAI and by the compatible servers
// (OpenRouter, Gemini's OpenAI endpoint, DeepSeek, Ollama, llama.cpp, vLLM,
// LM Studio). go-openai (github.com/sashabaranov/go-openai) gives the
// request types: each message is encoded once by its marshaller and the
// bytes are kept for the next call (see encodeRequest). The request is sent
// with net/http and the event stream read with providers/sse, like the
// other wires, so that fields go-openai does not model (reasoning, typed
// content parts, extra_content, in-chunk errors) are kept.
package openaichat

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"talaria/providers"
	"talaria/providers/ollama"
)

// APIMode is the registry key of this transport.
const APIMode = "chat_completions"

// defaultBaseURL is the OpenAI API, used when the endpoint names none.
const defaultBaseURL = "https://api.openai.com/v1"

// chatTransport is the chat_completions wire.
type chatTransport struct {
	ep      providers.Endpoint
	baseURL string
	client  *http.Client
	// replayExtra is true for endpoints that need tool-call extra_content
	// (Gemini thought signatures) echoed back.
	replayExtra bool
	// cache keeps the encoded messages of the last request.
	cache *msgCache
	// ollama asks the server, when it is Ollama, for its runtime context.
	ollama *ollama.Server
}

// The wire implements providers.Transport and can tell an Ollama
// server's runtime context.
var (
	_ providers.Transport        = (*chatTransport)(nil)
	_ providers.RuntimeContexter = (*chatTransport)(nil)
)

// New builds a chat_completions transport for ep. It is a providers.Factory.
// An empty ep.BaseURL means the OpenAI API; ep.HTTPClient (or a default
// client without timeout, so long streams are not cut) carries every
// request. The key goes in Authorization: Bearer; an empty key sends no
// credential (local servers). Nothing is retried here: that is the loop's
// job. With ep.OllamaNumCtx set the transport is Ollama's native chat
// (ollama.NewChat): Ollama's /v1 ignores num_ctx, /api/chat honours it.
func New(ep providers.Endpoint) (providers.Transport, error) {
	if ep.OllamaNumCtx > 0 {
		return ollama.NewChat(ep)
	}
	base, _, err := ep.Base(defaultBaseURL, "http://localhost:11434/v1")
	if err != nil {
		return nil, err
	}
	client := ep.Client()
	return &chatTransport{
		ep:          ep,
		baseURL:     base,
		client:      client,
		replayExtra: wantsExtraContent(ep, base),
		cache:       &msgCache{},
		ollama:      ollama.NewServer(client, base, ep.Provider, 0),
	}, nil
}

// RuntimeContext asks the server, when it is Ollama (provider ollama, or
// a local server answering /api/version), for the runtime context of
// model; ok is false for any other server, which is asked once.
func (t *chatTransport) RuntimeContext(ctx context.Context, model string) (providers.RuntimeContext, bool, error) {
	return t.ollama.RuntimeContext(ctx, model)
}

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
