package openaichat

import (
	"net/http"

	"talaria/providers"
)

// fillError reads the error bodies of the OpenAI-compatible servers into
// e: {"error":{…}} (OpenAI, OpenRouter, vLLM, llama.cpp, Ollama /v1),
// {"error":"msg"} (Ollama native), a JSON array of those (Gemini, whose
// "status" stands in for the type), {"object":"error","message":…} (old
// vLLM) and {"type":"error","error":{…}} (Anthropic-style proxies).
// OpenRouter's metadata.raw (the upstream provider's own message) is
// appended to the message with the provider's name. It reports whether
// body was an error body.
func fillError(e *providers.APIError, body []byte) bool {
	eb, ok := e.ParseBody(body)
	if !ok {
		return false
	}
	e.Message, e.Type, e.Code = eb.Message, eb.Type, eb.Code
	if e.Type == "" {
		e.Type = eb.Status
	}
	if eb.Raw != "" && eb.Raw != "null" {
		if eb.Upstream != "" {
			e.Message += " (" + eb.Upstream + ")"
		}
		e.Message += ": " + eb.Raw
	}
	return true
}

// chunkError converts an error object found in a data chunk: the plain
// {"error":{…}} line (OpenAI, vLLM, llama.cpp), OpenRouter's chunk with
// both "error" and choices, and old vLLM's {"object":"error",…}.
func (t *chatTransport) chunkError(h http.Header, raw []byte) *providers.APIError {
	return providers.EventError(t.ep.Provider, h, raw, fillError, "the server sent an error inside the stream; retry the request")
}
