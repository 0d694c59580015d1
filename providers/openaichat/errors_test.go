package openaichat

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"talaria/providers"
	"talaria/providers/providertest"
)

// TestHTTPErrors checks that each real error body of wire.md §4 becomes an
// APIError with status, headers, raw body, message, type and code.
func TestHTTPErrors(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		headers  map[string]string
		body     string
		msg      string // exact, or prefix when msgPrefix
		prefix   bool
		typ      string
		code     string
		header   string // a header that must come back
		hdrValue string
	}{
		{
			name: "openai 429 rate limit with retry-after", status: 429,
			headers: map[string]string{"Content-Type": "application/json", "Retry-After": "26", "X-Ratelimit-Reset-Tokens": "9ms", "X-Request-Id": "req_123"},
			body:    `{"error":{"message":"Rate limit reached for gpt-4 in organization org-********** on tokens per min (TPM): Limit 10000, Used 9348, Requested 5086. Please try again in 26.604s. Visit https://platform.openai.com/account/rate-limits to learn more.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`,
			msg:     "Rate limit reached for gpt-4", prefix: true, typ: "tokens", code: "rate_limit_exceeded",
			header: "Retry-After", hdrValue: "26",
		},
		{
			name: "openai 429 insufficient_quota", status: 429,
			headers: map[string]string{"Content-Type": "application/json"},
			body:    `{"error":{"message":"You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`,
			msg:     "You exceeded your current quota", prefix: true, typ: "insufficient_quota", code: "insufficient_quota",
		},
		{
			name: "openai 400 context length", status: 400,
			headers: map[string]string{"Content-Type": "application/json", "X-Should-Retry": "false"},
			body:    `{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 14837 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`,
			msg:     "This model's maximum context length is 8192 tokens. However, your messages resulted in 14837 tokens. Please reduce the length of the messages.",
			typ:     "invalid_request_error", code: "context_length_exceeded", header: "X-Should-Retry", hdrValue: "false",
		},
		{
			name: "502 HTML page", status: 502,
			headers: map[string]string{"Content-Type": "text/html"},
			body:    "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>cloudflare</center>\r\n</body>\r\n</html>\r\n",
			msg:     "502 Bad Gateway (non-JSON error page", prefix: true,
		},
		{
			name: "gemini array body", status: 429,
			headers: map[string]string{"Content-Type": "application/json"},
			body:    "[{\n  \"error\": {\n    \"code\": 429,\n    \"message\": \"Resource has been exhausted (e.g. check quota).\",\n    \"status\": \"RESOURCE_EXHAUSTED\"\n  }\n}\n]",
			msg:     "Resource has been exhausted (e.g. check quota).", typ: "RESOURCE_EXHAUSTED", code: "429",
		},
		{
			name: "openrouter upstream 429 with metadata.raw", status: 429,
			headers: map[string]string{"Content-Type": "application/json", "Retry-After": "3"},
			body:    `{"error":{"message":"Provider returned error","code":429,"metadata":{"raw":"z-ai/glm-5.3-flash is temporarily rate-limited upstream. Please retry shortly, or add your own key to accumulate your rate limits: ...","provider_name":"BaseTen","limit_source":"upstream_provider_shared_pool","remedy_hint":"Retry shortly, add your own provider key, or route to another provider"}}}`,
			msg:     "Provider returned error (BaseTen): z-ai/glm-5.3-flash is temporarily rate-limited upstream.", prefix: true,
			code: "429", header: "Retry-After", hdrValue: "3",
		},
		{
			name: "llama.cpp context overflow, int code", status: 400,
			headers: map[string]string{"Content-Type": "application/json"},
			body:    `{"error":{"code":400,"message":"request (17993 tokens) exceeds the available context size (16384 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":17993,"n_ctx":16384}}`,
			msg:     "request (17993 tokens) exceeds the available context size (16384 tokens), try increasing it",
			typ:     "exceed_context_size_error", code: "400",
		},
		{
			name: "ollama model not found", status: 404,
			headers: map[string]string{"Content-Type": "application/json"},
			body:    `{"error":{"message":"model \"llama3\" not found, try pulling it first","type":"not_found_error","param":null,"code":null}}`,
			msg:     `model "llama3" not found, try pulling it first`, typ: "not_found_error",
		},
		{
			name: "ollama native string error", status: 500,
			headers: map[string]string{"Content-Type": "application/json"},
			body:    `{"error":"llama runner process has terminated: exit status 2"}`,
			msg:     "llama runner process has terminated: exit status 2",
		},
		{
			name: "vllm 400 with int code", status: 400,
			headers: map[string]string{"Content-Type": "application/json"},
			body:    `{"error":{"message":"'max_tokens' or 'max_completion_tokens' is too large: 8000. This model's maximum context length is 4096 tokens and your request has 2778 input tokens (8000 > 4096 - 2778). None","type":"BadRequestError","param":null,"code":400}}`,
			msg:     "'max_tokens' or 'max_completion_tokens' is too large", prefix: true, typ: "BadRequestError", code: "400",
		},
		{
			name: "message as a list of strings", status: 400,
			headers: map[string]string{"Content-Type": "application/json"},
			body:    `{"error":{"message":["Invalid schema for function 'read'","In context=('properties', 'path')"],"type":"invalid_request_error","param":null,"code":null}}`,
			msg:     "Invalid schema for function 'read', In context=('properties', 'path')", typ: "invalid_request_error",
		},
		{
			name: "llama.cpp loading model 503", status: 503,
			headers: map[string]string{"Content-Type": "application/json"},
			body:    `{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}`,
			msg:     "Loading model", typ: "unavailable_error", code: "503",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := providertest.Serve(t, providertest.WireReply{Status: tc.status, Headers: tc.headers, Body: []byte(tc.body)})
			resp, err := newTestTransport(t, srv, "openai").Stream(context.Background(), providertest.SimpleRequest(), nil)
			if resp != nil {
				t.Errorf("response %+v on HTTP error, want nil", resp)
			}
			ae := providertest.AsAPIError(t, err)
			if ae.Status != tc.status || ae.Provider != "openai" || ae.MidStream {
				t.Errorf("status %d provider %q midstream %v", ae.Status, ae.Provider, ae.MidStream)
			}
			if ae.Body != tc.body {
				t.Errorf("body %q, want the raw body", ae.Body)
			}
			if (tc.prefix && !strings.HasPrefix(ae.Message, tc.msg)) || (!tc.prefix && ae.Message != tc.msg) {
				t.Errorf("message %q, want %q", ae.Message, tc.msg)
			}
			if ae.Type != tc.typ || ae.Code != tc.code {
				t.Errorf("type %q code %q, want %q / %q", ae.Type, ae.Code, tc.typ, tc.code)
			}
			if tc.header != "" && ae.Headers.Get(tc.header) != tc.hdrValue {
				t.Errorf("header %s = %q, want %q (headers %v)", tc.header, ae.Headers.Get(tc.header), tc.hdrValue, ae.Headers)
			}
			if !strings.Contains(ae.Error(), "HTTP ") {
				t.Errorf("Error() = %q, want the status in it", ae.Error())
			}
		})
	}
}

// TestMidStreamErrors checks error events inside a 200 stream.
func TestMidStreamErrors(t *testing.T) {
	tests := []struct {
		fixture, content, msg, typ, code, finish string
	}{
		{"midstream_error.sse", "", "The server had an error while processing your request. Sorry about that!", "server_ error", "", ""},
		{"midstream_error_after_text.sse", "Partial", "The server had an error while processing your request. Sorry about that!", "server_ error", "", ""},
		{"openrouter_error_chunk.sse", "Hello", "Provider disconnected", "", "server_error", "error"},
		{"vllm_legacy_error.sse", "Hi", "The engine loop has stopped.", "InternalServerError", "500", ""},
	}
	for _, tc := range tests {
		t.Run(tc.fixture, func(t *testing.T) {
			srv, _ := providertest.Serve(t, providertest.WireReply{Headers: map[string]string{"X-Generation-Id": "gen-1"}, Body: providertest.ReadFixture(t, tc.fixture)})
			resp, err := newTestTransport(t, srv, "openrouter").Stream(context.Background(), providertest.SimpleRequest(), nil)
			ae := providertest.AsAPIError(t, err)
			if !ae.MidStream || ae.Status != 0 || ae.Provider != "openrouter" {
				t.Errorf("midstream %v status %d provider %q", ae.MidStream, ae.Status, ae.Provider)
			}
			if ae.Message != tc.msg || ae.Type != tc.typ || ae.Code != tc.code {
				t.Errorf("message %q type %q code %q, want %q / %q / %q", ae.Message, ae.Type, ae.Code, tc.msg, tc.typ, tc.code)
			}
			if !strings.Contains(ae.Body, tc.msg) {
				t.Errorf("body %q does not hold the error JSON", ae.Body)
			}
			if tc.fixture == "midstream_error.sse" {
				fixture := string(providertest.ReadFixture(t, tc.fixture))
				if want := fixture[len("data: "):strings.Index(fixture, "\n")]; ae.Body != want {
					t.Errorf("body %q, want the verbatim error JSON %q", ae.Body, want)
				}
			}
			if ae.Headers.Get("X-Generation-Id") != "gen-1" {
				t.Errorf("headers %v, want the stream's response headers", ae.Headers)
			}
			if resp == nil || resp.Content != tc.content || resp.FinishReason != tc.finish {
				t.Errorf("partial response %+v, want content %q finish %q", resp, tc.content, tc.finish)
			}
		})
	}
}

// TestContextErrors checks that cancellation and deadlines stay visible
// through errors.Is, before and during the stream.
func TestContextErrors(t *testing.T) {
	t.Run("cancelled before the request", func(t *testing.T) {
		srv, _ := sseServer(t, "openai_text.sse")
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := newTestTransport(t, srv, "openai").Stream(ctx, providertest.SimpleRequest(), nil)
		providertest.AsAPIError(t, err)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%v: want errors.Is context.Canceled", err)
		}
	})
	t.Run("deadline passed", func(t *testing.T) {
		srv, _ := sseServer(t, "openai_text.sse")
		ctx, cancel := context.WithDeadline(context.Background(), time.Unix(0, 0))
		defer cancel()
		_, err := newTestTransport(t, srv, "openai").Stream(ctx, providertest.SimpleRequest(), nil)
		providertest.AsAPIError(t, err)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%v: want errors.Is context.DeadlineExceeded", err)
		}
	})
	t.Run("cancelled mid-stream", func(t *testing.T) {
		first := providertest.ReadFixture(t, "openai_text.sse")
		first = first[:strings.Index(string(first), "\n\n")+2]
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write(first)
			_, _ = w.Write([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"partial\"}}]}\n\n"))
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}))
		defer srv.Close()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		resp, err := newTestTransport(t, srv, "openai").Stream(ctx, providertest.SimpleRequest(), func(d providers.Delta) {
			if d.Text == "partial" {
				cancel()
			}
		})
		ae := providertest.AsAPIError(t, err)
		if !errors.Is(err, context.Canceled) || !ae.MidStream {
			t.Errorf("%v (midstream %v): want a mid-stream error matching context.Canceled", err, ae.MidStream)
		}
		if resp == nil || resp.Content != "partial" {
			t.Errorf("partial response %+v", resp)
		}
	})
}

// TestUnreachable checks the error for a server that is not listening.
func TestUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	tr, err := New(providers.Endpoint{Provider: "ollama", Model: "m", BaseURL: url + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = tr.Stream(context.Background(), providertest.SimpleRequest(), nil)
	ae := providertest.AsAPIError(t, err)
	if ae.Status != 0 || ae.Err == nil || !strings.Contains(ae.Message, "cannot reach "+url+"/v1") {
		t.Errorf("got %+v", ae)
	}
}

// TestConnectionDropped checks a TCP connection closed in the middle of a
// chunked response: partial response, MidStream, io.ErrUnexpectedEOF.
func TestConnectionDropped(t *testing.T) {
	first := providertest.ReadFixture(t, "openai_text.sse")
	first = first[:strings.Index(string(first), "\n\n")+2]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(first)
		_, _ = w.Write([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"cut he\"}}]}\n\ndata: {\"choices\":[{\"ind"))
		w.(http.Flusher).Flush()
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			_ = conn.Close()
		}
	}))
	defer srv.Close()
	resp, err := newTestTransport(t, srv, "openai").Stream(context.Background(), providertest.SimpleRequest(), nil)
	ae := providertest.AsAPIError(t, err)
	if !ae.MidStream || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("%v (midstream %v): want a mid-stream io.ErrUnexpectedEOF", err, ae.MidStream)
	}
	if resp == nil || resp.Content != "cut he" {
		t.Errorf("partial response %+v", resp)
	}
}
