// Package gemini is the gemini_native transport: Google's Gemini API in its
// own REST format (not the OpenAI-compatible endpoint), spoken over net/http
// without the Google SDK, behind the same providers.Transport as the others.
//
// A call is POST {base}/models/{model}:streamGenerateContent?alt=sse with
// the key in the x-goog-api-key header; the answer is an SSE stream of
// GenerateContentResponse chunks. Gemini gives tool calls no ids, so they
// get call_<n> (n counting calls within the response); thought signatures
// are kept for replay (see convertMessages). Vertex AI endpoints (OAuth,
// projects/…/locations/… paths) are not supported.
package gemini

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"

	"talaria/providers"
)

// APIMode is the registry key of this transport.
const APIMode = "gemini_native"

// DefaultBaseURL is the Gemini API used when the endpoint names none.
const DefaultBaseURL = "https://generativelanguage.googleapis.com/v1beta"

// Environment variables read when ep.APIKey is empty.
const (
	// EnvAPIKey holds a Gemini API key.
	EnvAPIKey = "GEMINI_API_KEY"
	// EnvGoogleAPIKey is read when EnvAPIKey is not set.
	EnvGoogleAPIKey = "GOOGLE_API_KEY"
)

// geminiTransport implements providers.Transport for gemini_native.
type geminiTransport struct {
	ep      providers.Endpoint
	baseURL string
	apiKey  string
	client  *http.Client
}

// The wire implements providers.Transport.
var _ providers.Transport = (*geminiTransport)(nil)

// New builds a gemini_native transport for ep. It is a providers.Factory.
// An empty ep.BaseURL means DefaultBaseURL; a base URL ending in /openai
// (the OpenAI-compatible endpoint, the gemini provider's chat_completions
// default) has that suffix dropped. An empty ep.APIKey is read from
// GEMINI_API_KEY, then GOOGLE_API_KEY; a key is required for a
// googleapis.com host. ep.HTTPClient, or a default client without timeout,
// carries every request; nothing is retried here.
func New(ep providers.Endpoint) (providers.Transport, error) {
	return newTransport(ep, os.Getenv)
}

// newTransport is New with the environment lookup passed in, for tests.
func newTransport(ep providers.Endpoint, getenv func(string) string) (*geminiTransport, error) {
	base, u, err := ep.Base(DefaultBaseURL, DefaultBaseURL)
	if err != nil {
		return nil, err
	}
	base = strings.TrimRight(strings.TrimSuffix(base, "/openai"), "/")
	key := strings.TrimSpace(ep.APIKey)
	for _, name := range []string{EnvAPIKey, EnvGoogleAPIKey} {
		if key == "" {
			key = strings.TrimSpace(getenv(name))
		}
	}
	if key == "" && strings.HasSuffix(strings.ToLower(u.Hostname()), "googleapis.com") {
		return nil, fmt.Errorf("%s: no Gemini API key: set %s (get one at https://aistudio.google.com/apikey)", ep.Provider, EnvAPIKey)
	}
	return &geminiTransport{ep: ep, baseURL: base, apiKey: key, client: ep.Client()}, nil
}

// model returns the model id of req, else of the endpoint, without a
// "models/" prefix.
func (t *geminiTransport) model(req providers.Request) (string, error) {
	m, err := t.ep.ModelFor(req, "set model.name to a Gemini model (e.g. gemini-2.5-flash)")
	return strings.TrimPrefix(m, "models/"), err
}

// streamURL is {base}/models/{model}:streamGenerateContent?alt=sse.
func (t *geminiTransport) streamURL(model string) string {
	return t.baseURL + "/models/" + url.PathEscape(model) + ":streamGenerateContent?alt=sse"
}

// thinks reports the model families that accept thinkingConfig; for them
// the request asks for thought summaries (shown as reasoning).
func thinks(model string) bool {
	for _, p := range []string{"gemini-2.5", "gemini-3", "gemini-flash-latest", "gemini-pro-latest"} {
		if strings.HasPrefix(model, p) {
			return true
		}
	}
	return strings.Contains(model, "thinking")
}
