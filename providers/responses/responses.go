// Package responses is the codex_responses transport: the OpenAI Responses
// API (POST {base}/responses with "stream": true), spoken with net/http and
// a small server-sent-events reader of its own (go-openai has no Responses
// support). Requests are stateless ("store": false): the whole conversation
// goes out every call, system messages as "instructions", the rest as input
// items (messages, function_call, function_call_output), and the encrypted
// reasoning items of reasoning models come back through
// Message.ReasoningReplay.
//
// Finish reasons: a completed response is tool_calls when it holds function
// calls, else stop (content_filter for a refusal); an incomplete one maps
// incomplete_details.reason: max_output_tokens → length, content_filter →
// content_filter. Errors sent as events (an "error" event, including the
// nested {"error":{…,"code":"context_length_exceeded"}} shape, and
// response.failed) are mid-stream *providers.APIError values.
package responses

import (
	"net/http"

	"talaria/providers"
)

// APIMode is the registry key of this transport.
const APIMode = "codex_responses"

// ReplayFormat tags the ReasoningReplay this transport writes, so that replay
// data written by another transport is never sent as input items.
const ReplayFormat = "codex_responses"

// defaultBaseURL is the OpenAI API, used when the endpoint names none.
const defaultBaseURL = "https://api.openai.com/v1"

// transport implements providers.Transport for codex_responses.
type transport struct {
	ep     providers.Endpoint
	url    string // {base}/responses
	client *http.Client
}

// The wire implements providers.Transport.
var _ providers.Transport = (*transport)(nil)

// New builds a codex_responses transport for ep. It is a providers.Factory.
// An empty ep.BaseURL means the OpenAI API (https://api.openai.com/v1);
// requests go to {base}/responses. ep.HTTPClient (or a client without
// timeout, so long streams are not cut) carries every request; nothing is
// retried here, retrying is the caller's job. An empty ep.APIKey sends no
// Authorization header (local servers).
func New(ep providers.Endpoint) (providers.Transport, error) {
	base, _, err := ep.Base(defaultBaseURL, "https://api.openai.com/v1")
	if err != nil {
		return nil, err
	}
	return &transport{ep: ep, url: base + "/responses", client: ep.Client()}, nil
}
