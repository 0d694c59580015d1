package openaichat

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"talaria/providers"
)

// maxSummary bounds the message made from a non-JSON error body.
const maxSummary = 200

// requestError converts an error from opening the stream (an HTTP error
// status, a network failure, a request go-openai refused to build) into a
// *providers.APIError, using what the recorder saw of the response.
func (t *chatTransport) requestError(ctx context.Context, st *callState, err error) *providers.APIError {
	e := &providers.APIError{Provider: t.ep.Provider, Err: err}
	var oe *openai.APIError
	var re *openai.RequestError
	switch {
	case errors.As(err, &oe):
		e.Status = oe.HTTPStatusCode
		e.Message, e.Type, e.Code = oe.Message, oe.Type, codeString(anyCode(oe.Code))
	case errors.As(err, &re):
		e.Status = re.HTTPStatusCode
		e.Body = string(re.Body)
	case errors.Is(err, openai.ErrReasoningToolsRequireResponses),
		errors.Is(err, openai.ErrReasoningModelMaxTokensDeprecated):
		e.Message = err.Error() + "; use api_mode: codex_responses for this model"
	case st.status == 0 && ctx.Err() == nil && errors.As(err, new(*url.Error)):
		e.Message = fmt.Sprintf("cannot reach %s: %v; check that the server is running and base_url is right", t.baseURL, err)
	}
	if st.status != 0 {
		e.Status = st.status
		e.Headers = st.headers
		e.Body = string(st.errBody)
		if f, ok := parseErrorBody(st.errBody); ok {
			e.Message, e.Type, e.Code = f.Message, f.Type, f.Code
		} else if e.Message == "" {
			e.Message = summarizeBody(e.Status, st.errBody)
		}
	}
	if e.Status != 0 && e.Message == "" {
		e.Message = summarizeBody(e.Status, []byte(e.Body))
	}
	e.Err = providers.WithContext(ctx, err)
	return e
}

// streamError converts an error met while reading an open stream into a
// mid-stream *providers.APIError. go-openai no longer sees error lines (see
// sseFilter), so these are read failures: a reset connection, a cancelled
// context, a stream of noise.
func (t *chatTransport) streamError(ctx context.Context, st *callState, err error) *providers.APIError {
	e := &providers.APIError{Provider: t.ep.Provider, Headers: st.headers, MidStream: true, Err: providers.WithContext(ctx, err)}
	var oe *openai.APIError
	switch {
	case errors.As(err, &oe):
		e.Message, e.Type, e.Code = oe.Message, oe.Type, codeString(anyCode(oe.Code))
	case errors.Is(err, openai.ErrTooManyEmptyStreamMessages):
		e.Message = "the server sent no data events, only noise; check that base_url points at an OpenAI-compatible /v1 endpoint"
	}
	return e
}

// chunkError converts an error object found in a data chunk: the plain
// {"error":{…}} line (OpenAI, vLLM, llama.cpp), OpenRouter's chunk with
// both "error" and choices, and old vLLM's {"object":"error",…}.
func (t *chatTransport) chunkError(st *callState, raw []byte) *providers.APIError {
	raw = unpatchError(raw)
	e := &providers.APIError{Provider: t.ep.Provider, Headers: st.headers, MidStream: true, Body: string(raw)}
	if f, ok := parseErrorBody(raw); ok {
		e.Message, e.Type, e.Code = f.Message, f.Type, f.Code
	}
	if e.Message == "" {
		e.Message = "the server sent an error inside the stream; retry the request"
	}
	return e
}

// anyCode re-encodes go-openai's Code (string, int or nil) as JSON.
func anyCode(c any) []byte {
	switch v := c.(type) {
	case nil:
		return nil
	case string:
		return []byte(fmt.Sprintf("%q", v))
	default:
		return []byte(fmt.Sprint(v))
	}
}

// summarizeBody makes a one-line message from a non-JSON error body: the
// HTML <title> if any, else the start of the text without tags.
func summarizeBody(status int, body []byte) string {
	text := string(body)
	if title, ok := htmlTitle(text); ok {
		text = title
	} else {
		text = stripTags(text)
	}
	text = strings.Join(strings.Fields(html.UnescapeString(text)), " ")
	if len(text) > maxSummary {
		text = strings.ToValidUTF8(text[:maxSummary], "") + "…"
	}
	if text == "" {
		text = http.StatusText(status)
	}
	if text == "" {
		return fmt.Sprintf("HTTP %d with an empty body", status)
	}
	if bytes.HasPrefix(bytes.TrimSpace(body), []byte("<")) {
		text += " (non-JSON error page; check base_url and any proxy in between)"
	}
	return text
}

// htmlTitle returns the text of the first <title> element.
func htmlTitle(s string) (string, bool) {
	lower := strings.ToLower(s)
	i := strings.Index(lower, "<title")
	if i < 0 {
		return "", false
	}
	open := strings.IndexByte(lower[i:], '>')
	if open < 0 {
		return "", false
	}
	start := i + open + 1
	end := strings.Index(lower[start:], "</title")
	if end < 0 {
		return "", false
	}
	return s[start : start+end], true
}

// stripTags replaces every <…> tag with a space.
func stripTags(s string) string {
	var sb strings.Builder
	inTag := false
	for _, r := range s {
		switch {
		case r == '<':
			inTag = true
			sb.WriteByte(' ')
		case r == '>' && inTag:
			inTag = false
		case !inTag:
			sb.WriteRune(r)
		}
	}
	return sb.String()
}
