package openaichat

import (
	"context"
	"net/http"

	"talaria/providers"
)

// httpError converts a non-2xx answer into a *providers.APIError with the
// status, headers, raw body and the message, type and code of the error
// body (a one-line summary of the page when it is not one).
func (t *chatTransport) httpError(ctx context.Context, res *http.Response) *providers.APIError {
	e, body := providers.ReadHTTPError(t.ep.Provider, res)
	e.Err = providers.WithContext(ctx, e.Err)
	if f, ok := parseErrorBody(body); ok {
		e.Message, e.Type, e.Code = f.Message, f.Type, f.Code
	}
	if e.Message == "" {
		e.Message = providers.SummarizePage(res.StatusCode, body)
	}
	return e
}

// chunkError converts an error object found in a data chunk: the plain
// {"error":{…}} line (OpenAI, vLLM, llama.cpp), OpenRouter's chunk with
// both "error" and choices, and old vLLM's {"object":"error",…}.
func (t *chatTransport) chunkError(h http.Header, raw []byte) *providers.APIError {
	e := &providers.APIError{Provider: t.ep.Provider, Headers: h, MidStream: true, Body: string(raw)}
	if f, ok := parseErrorBody(raw); ok {
		e.Message, e.Type, e.Code = f.Message, f.Type, f.Code
	}
	if e.Message == "" {
		e.Message = "the server sent an error inside the stream; retry the request"
	}
	return e
}
