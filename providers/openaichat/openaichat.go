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
	"net/http"
	"net/url"
	"strings"

	"talaria/providers"
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
}

// The wire implements providers.Transport.
var _ providers.Transport = (*chatTransport)(nil)

// New builds a chat_completions transport for ep. It is a providers.Factory.
// An empty ep.BaseURL means the OpenAI API; ep.HTTPClient (or a default
// client without timeout, so long streams are not cut) carries every
// request. The key goes in Authorization: Bearer; an empty key sends no
// credential (local servers). Nothing is retried here: that is the loop's
// job.
func New(ep providers.Endpoint) (providers.Transport, error) {
	base, _, err := ep.Base(defaultBaseURL, "http://localhost:11434/v1")
	if err != nil {
		return nil, err
	}
	return &chatTransport{
		ep:          ep,
		baseURL:     base,
		client:      ep.Client(),
		replayExtra: wantsExtraContent(ep, base),
		cache:       &msgCache{},
	}, nil
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
