package providers

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"
)

// phraseGroup is one list of reference/hermes.md §3.5, checked at a
// status where the phrase alone decides.
type phraseGroup struct {
	name    string
	status  int
	reason  FailoverReason
	phrases []string
}

func phraseGroups() []phraseGroup {
	overflow := []string{"context length", "context size", "maximum context", "token limit",
		"too many tokens", "reduce the length", "exceeds the limit", "context window",
		"prompt is too long", "prompt exceeds max length", "max_tokens", "maximum number of tokens",
		"exceeds the max_model_len", "max_model_len", "prompt length", "input is too long",
		"maximum model length", "context length exceeded", "truncating input", "slot context",
		"n_ctx_slot", "超过最大长度", "上下文长度", "tokens in request more than max tokens allowed",
		"max input token", "input token", "exceeds the maximum number of input tokens",
		"maximum allowed input length"}
	billing := []string{"insufficient credits", "insufficient_quota", "insufficient balance",
		"credit balance", "credits exhausted", "credits have been exhausted",
		"requires available credits", "account balance is too low", "no usable credits",
		"top up your credits", "payment required", "billing hard limit",
		"exceeded your current quota", "account is deactivated", "plan does not include",
		"out of extra usage", "out of funds", "run out of funds", "balance_depleted",
		"model_not_supported_on_free_tier", "not available on the free tier"}
	rate := []string{"rate limit", "rate_limit", "too many requests", "throttled",
		"requests per minute", "tokens per minute", "requests per day", "try again in",
		"please retry after", "resource_exhausted", "rate increased too quickly",
		"throttlingexception", "too many concurrent requests", "servicequotaexceededexception",
		"throttling"}
	overloaded := []string{"overloaded", "temporarily overloaded", "service is temporarily overloaded",
		"service may be temporarily overloaded", "server is overloaded", "server overloaded",
		"service overloaded", "service is overloaded", "upstream overloaded", "currently overloaded",
		"at capacity", "over capacity", "modelnotreadyexception", "modeltimeoutexception",
		"internalserverexception"}
	payload := []string{"request entity too large", "payload too large", "error code: 413",
		"request_too_large", "request exceeds the maximum size"}
	image := []string{"image exceeds", "image too large", "image_too_large", "image size exceeds",
		"image dimensions exceed", "dimensions exceed max allowed size", "max allowed size: 8000",
		"media exceeds", "media too large"}
	corrupt := []string{"invalid png image", "invalid jpeg image",
		"base64 string of provided image cannot be decoded",
		"downloaded response does not contain a valid jpg, png, webp, or ico image"}
	multimodal := []string{"text is not set", "tool message content must be a string",
		"tool content must be a string", "tool message must be a string",
		"expected string, got list", "expected string, got array", "tool_call.content must be string"}
	model := []string{"is not a valid model", "invalid model", "model not found", "model_not_found",
		"does not exist", "no such model", "unknown model", "unsupported model",
		"no endpoints found that support tool use"}
	policyBlock := []string{"no endpoints available matching your guardrail",
		"no endpoints available matching your data policy", "no endpoints found matching your data policy"}
	content := []string{"flagged for possible cybersecurity risk", "trusted access for cyber",
		"violates our usage policies", "violates openai's usage policies", "your request was flagged by",
		"prompt was flagged by our safety", "responses cannot be generated due to safety",
		"content_filter", "responsibleaipolicyviolation", "new_sensitive"}
	validation := []string{"unknown parameter", "unsupported parameter", "unrecognized request argument",
		"invalid_request_error", "unknown_parameter", "unsupported_parameter"}
	malformed := []string{"must have non-empty content", "messages must have non-empty",
		"invalid_request_body", "text content blocks must be non-empty", "content field is required",
		"messages: at least one message is required", "no user query found"}
	auth := []string{"invalid api key", "invalid_api_key", "gateway_auth_failed", "authentication",
		"unauthorized", "forbidden", "invalid token", "token expired", "token revoked", "access denied"}
	empty := []string{"returned an empty response", "empty response despite retries",
		"provider returned an empty response", "model returning empty responses", "empty response stream"}
	timeout := []string{"timed out", "turn timed out", "request timed out", "deadline exceeded",
		"operation timed out", "upstream timed out"}
	refusedPhrases := []string{"connection refused", "econnrefused"}
	connect := []string{"no route to host", "network is unreachable",
		"network unreachable", "name or service not known", "temporary failure in name resolution",
		"nodename nor servname provided", "getaddrinfo failed", "getaddrinfo enotfound", "eai_again",
		"fetch failed", "failed to fetch", "upstream connect error"}
	disconnect := []string{"server disconnected", "peer closed connection", "connection reset by peer",
		"connection was closed", "network connection lost", "unexpected eof", "incomplete chunked read"}
	cert := []string{"certificate verify failed", "certificate_verify_failed",
		"unable to get local issuer certificate", "self-signed certificate", "self signed certificate",
		"certificate has expired", "hostname mismatch, certificate is not valid",
		"unable to verify the first certificate"}
	tlsAlert := []string{"bad record mac", "ssl alert", "tls alert", "ssl handshake failure", "tlsv1 alert",
		"sslv3 alert", "bad_record_mac", "ssl_alert", "tls_alert", "tls_alert_internal_error", "[ssl:"}
	return []phraseGroup{
		{"overflow@400", 400, ReasonContextOverflow, overflow},
		{"overflow@status-less", 0, ReasonContextOverflow, overflow},
		{"billing@402", 402, ReasonBilling, billing},
		{"billing@400", 400, ReasonBilling, billing},
		{"billing@429", 429, ReasonBilling, billing},
		{"billing@403", 403, ReasonBilling, billing},
		{"billing@404", 404, ReasonBilling, billing},
		{"billing@status-less", 0, ReasonBilling, billing},
		{"rate@429", 429, ReasonRateLimit, rate},
		{"rate@status-less", 0, ReasonRateLimit, rate},
		{"overloaded@503", 503, ReasonOverloaded, overloaded},
		{"overloaded@429", 429, ReasonOverloaded, overloaded},
		{"overloaded@status-less", 0, ReasonOverloaded, overloaded},
		{"payload@400", 400, ReasonPayloadTooLarge, payload},
		{"payload@status-less", 0, ReasonPayloadTooLarge, payload},
		{"image@400", 400, ReasonImageTooLarge, image},
		{"corrupt@400", 400, ReasonImageCorrupt, corrupt},
		{"multimodal@400", 400, ReasonMultimodalToolContent, multimodal},
		{"model@404", 404, ReasonModelNotFound, model},
		{"model@400", 400, ReasonModelNotFound, model},
		{"policy-block@404", 404, ReasonProviderPolicyBlocked, policyBlock},
		{"policy-block@400", 400, ReasonProviderPolicyBlocked, policyBlock},
		{"policy-block@403", 403, ReasonProviderPolicyBlocked, policyBlock},
		{"content@400", 400, ReasonContentPolicyBlocked, content},
		{"content@403", 403, ReasonContentPolicyBlocked, content},
		{"content@status-less", 0, ReasonContentPolicyBlocked, content},
		{"validation@400", 400, ReasonFormatError, validation},
		{"validation@500", 500, ReasonFormatError, validation},
		{"validation@502", 502, ReasonFormatError, validation},
		{"malformed@400", 400, ReasonFormatError, malformed},
		{"auth@status-less", 0, ReasonAuth, auth},
		{"auth@401", 401, ReasonAuth, without(auth, "token revoked")},
		{"auth-permanent@401", 401, ReasonAuthPermanent, []string{"token revoked", "key has been revoked"}},
		{"empty@500", 500, ReasonServerError, empty},
		{"empty@503", 503, ReasonServerError, empty},
		{"empty@400", 400, ReasonServerError, empty},
		{"timeout@status-less", 0, ReasonTimeout, timeout},
		{"connect@status-less", 0, ReasonTimeout, connect},
		{"refused@status-less", 0, ReasonConnectionRefused, refusedPhrases},
		{"disconnect@status-less", 0, ReasonTimeout, disconnect},
		{"cert@status-less", 0, ReasonSSLCertVerification, cert},
		{"tls-alert@status-less", 0, ReasonTimeout, tlsAlert},
	}
}

// without returns list minus drop.
func without(list []string, drop string) []string {
	var out []string
	for _, s := range list {
		if s != drop {
			out = append(out, s)
		}
	}
	return out
}

func TestClassifyHermesPhrases(t *testing.T) {
	for _, g := range phraseGroups() {
		for _, p := range g.phrases {
			// Mixed case: matching is case-insensitive.
			msg := "Upstream says: " + strings.ToUpper(p) + " (details follow)"
			e := &APIError{Provider: "x", Status: g.status, Message: msg}
			if c := Classify(e); c.Reason != g.reason {
				t.Errorf("%s: %q → %s, want %s", g.name, p, c.Reason, g.reason)
			}
		}
	}
}

func TestClassifyStatusRules(t *testing.T) {
	large := ClassifyInput{ApproxTokens: 150_000, ContextLength: 200_000, MessageCount: 50}
	cases := []struct {
		name   string
		status int
		msg    string
		in     ClassifyInput
		mid    bool
		reason FailoverReason
	}{
		{"401 plain", 401, "nope", ClassifyInput{}, false, ReasonAuth},
		{"401 revoked", 401, "This API key has been revoked", ClassifyInput{}, false, ReasonAuthPermanent},
		{"403 plain", 403, "forbidden", ClassifyInput{}, false, ReasonAuth},
		{"403 key limit", 403, "Key limit exceeded for this key", ClassifyInput{}, false, ReasonBilling},
		{"403 xai spending", 403, `{"code":"personal-team-blocked:spending-limit"}`, ClassifyInput{}, false, ReasonBilling},
		{"402 usage transient", 402, "Usage limit reached, resets in 5 minutes", ClassifyInput{}, false, ReasonRateLimit},
		{"402 plain", 402, "pay up", ClassifyInput{}, false, ReasonBilling},
		{"404 bare", 404, "404 page not found", ClassifyInput{}, false, ReasonUnknown},
		{"413", 413, "", ClassifyInput{}, false, ReasonPayloadTooLarge},
		{"429 long context tier", 429, "Extra usage is required for long context requests", ClassifyInput{}, false, ReasonLongContextTier},
		{"429 bare", 429, "slow down", ClassifyInput{}, false, ReasonRateLimit},
		{"400 thinking signature", 400, "messages.1.content.0: Invalid `signature` in `thinking` block", ClassifyInput{}, false, ReasonThinkingSignature},
		{"400 thinking modified", 400, "thinking blocks in the latest assistant message cannot be modified", ClassifyInput{}, false, ReasonThinkingSignature},
		{"400 grammar json-schema", 400, "json-schema-to-grammar: unsupported pattern", ClassifyInput{}, false, ReasonLlamaCppGrammar},
		{"400 grammar template", 400, "Unable to generate parser for this template", ClassifyInput{}, false, ReasonLlamaCppGrammar},
		{"400 unsupported max_tokens", 400, "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", ClassifyInput{}, false, ReasonFormatError},
		{"400 injected param", 400, "Unsupported parameter: prompt_cache_retention", ClassifyInput{}, false, ReasonServerError},
		{"400 encrypted", 400, "The encrypted content for item rs_1 could not be verified.", ClassifyInput{}, false, ReasonInvalidEncryptedContent},
		{"400 bare small session", 400, "Error", ClassifyInput{ApproxTokens: 1000}, false, ReasonFormatError},
		{"400 bare large session", 400, "Error", large, false, ReasonContextOverflow},
		{"400 bare many messages", 400, "bad request", ClassifyInput{MessageCount: 120}, false, ReasonContextOverflow},
		{"400 long generic", 400, "The request could not be processed by the model", large, false, ReasonFormatError},
		{"500 overflow", 500, "context length exceeded", ClassifyInput{}, false, ReasonContextOverflow},
		{"502 plain", 502, "Bad Gateway", ClassifyInput{}, false, ReasonServerError},
		{"503 overflow", 503, "prompt is too long", ClassifyInput{}, false, ReasonContextOverflow},
		{"504", 504, "Gateway Timeout", ClassifyInput{}, false, ReasonTimeout},
		{"408", 408, "", ClassifyInput{}, false, ReasonTimeout},
		{"409", 409, "conflict", ClassifyInput{}, false, ReasonServerError},
		{"422", 422, "unprocessable", ClassifyInput{}, false, ReasonFormatError},
		{"507", 507, "", ClassifyInput{}, false, ReasonServerError},
		{"grok subscription", 403, "You do not have an active Grok subscription", ClassifyInput{}, false, ReasonAuth},
		{"disconnect small", 0, "server disconnected without sending a response", ClassifyInput{}, false, ReasonTimeout},
		{"disconnect large", 0, "server disconnected without sending a response", large, false, ReasonContextOverflow},
		{"disconnect large many msgs", 0, "peer closed connection", ClassifyInput{MessageCount: 250}, false, ReasonContextOverflow},
		{"disconnect large reasoning", 0, "server disconnected", ClassifyInput{ApproxTokens: 150_000, ReasoningModel: true}, false, ReasonTimeout},
		{"disconnect large mid-stream", 0, "connection reset by peer", large, true, ReasonTimeout},
		{"disconnect 1M window not large", 0, "server disconnected", ClassifyInput{ApproxTokens: 150_000, ContextLength: 1_000_000}, false, ReasonTimeout},
		{"status-less nothing", 0, "something odd", ClassifyInput{}, false, ReasonUnknown},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := &APIError{Provider: "x", Status: tc.status, Message: tc.msg, MidStream: tc.mid}
			if strings.HasPrefix(tc.msg, "{") {
				e.Message, e.Body = "", tc.msg
			}
			if c := ClassifyWith(e, tc.in); c.Reason != tc.reason {
				t.Errorf("→ %s, want %s", c.Reason, tc.reason)
			}
		})
	}
}

func TestClassify404UnknownNotRetried(t *testing.T) {
	c := Classify(&APIError{Status: 404, Body: "404 page not found"})
	if c.Retryable || c.ShouldFallback {
		t.Errorf("a bare 404 must surface: %+v", c)
	}
}

// closedPort returns an address on 127.0.0.1 where nothing listens.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func TestClassifyTransportErrors(t *testing.T) {
	addr := closedPort(t)
	_, dialErr := net.DialTimeout("tcp", addr, time.Second)
	var op *net.OpError
	if !errors.As(dialErr, &op) {
		t.Fatalf("dial error is %T, want *net.OpError", dialErr)
	}
	_, httpErr := http.Get("http://" + addr + "/v1/chat/completions")
	var ue *url.Error
	if !errors.As(httpErr, &ue) {
		t.Fatalf("http error is %T", httpErr)
	}
	large := ClassifyInput{ApproxTokens: 190_000, ContextLength: 200_000}
	cases := []struct {
		name      string
		err       error
		in        ClassifyInput
		reason    FailoverReason
		retryable bool
	}{
		{"dial closed port", dialErr, ClassifyInput{}, ReasonConnectionRefused, true},
		{"http.Get closed port", httpErr, ClassifyInput{}, ReasonConnectionRefused, true},
		{"APIError wrapping dial", &APIError{Provider: "ollama", Message: "cannot reach", Err: httpErr}, ClassifyInput{}, ReasonConnectionRefused, true},
		{"unexpected EOF", io.ErrUnexpectedEOF, ClassifyInput{}, ReasonTimeout, true},
		{"unexpected EOF large session", io.ErrUnexpectedEOF, large, ReasonContextOverflow, false},
		{"APIError cut mid-stream large", &APIError{MidStream: true, Message: "the stream ended", Err: io.ErrUnexpectedEOF}, large, ReasonTimeout, true},
		{"deadline", context.DeadlineExceeded, ClassifyInput{}, ReasonTimeout, true},
		{"wrapped deadline", fmt.Errorf("post: %w", context.DeadlineExceeded), ClassifyInput{}, ReasonTimeout, true},
		{"canceled", context.Canceled, ClassifyInput{}, ReasonInterrupted, false},
		{"APIError canceled", &APIError{Status: 499, Err: fmt.Errorf("%w: read", context.Canceled)}, ClassifyInput{}, ReasonInterrupted, false},
		{"conn reset errno", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, ClassifyInput{}, ReasonTimeout, true},
		{"flattened reset text", errors.New("read tcp 1.2.3.4:5: connection reset by peer"), ClassifyInput{}, ReasonTimeout, true},
		{"x509 unknown authority", &url.Error{Op: "Post", URL: "https://x", Err: x509.UnknownAuthorityError{}}, ClassifyInput{}, ReasonSSLCertVerification, false},
		{"local bug", errors.New("nil map in tool assembly"), ClassifyInput{}, ReasonLocalError, false},
		{"APIError local build failure", &APIError{Provider: "openai", Message: "marshal request", Err: errors.New("json: unsupported value: NaN")}, ClassifyInput{}, ReasonLocalError, false},
		{"APIError mid-stream decode", &APIError{MidStream: true, Body: "{oops", Message: "cannot decode a stream chunk", Err: errors.New("invalid character")}, ClassifyInput{}, ReasonUnknown, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := ClassifyWith(tc.err, tc.in)
			if c.Reason != tc.reason || c.Retryable != tc.retryable {
				t.Errorf("→ %s retryable=%v, want %s retryable=%v", c.Reason, c.Retryable, tc.reason, tc.retryable)
			}
		})
	}
	if c := Classify(nil); c.Reason != "" {
		t.Errorf("nil error → %+v", c)
	}
}

func TestClassifyRealTLSFailure(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	defer srv.Close()
	_, err := http.Get(srv.URL) // the default client does not trust the test CA
	if err == nil {
		t.Fatal("expected a certificate error")
	}
	c := Classify(&APIError{Provider: "custom", Err: err})
	if c.Reason != ReasonSSLCertVerification || c.Retryable || c.ShouldFallback {
		t.Errorf("TLS failure → %+v", c)
	}
}

func TestClassifyShouldRetryHeader(t *testing.T) {
	h := http.Header{}
	h.Set("x-should-retry", "true")
	if c := Classify(&APIError{Status: 400, Headers: h, Message: "weird"}); !c.Retryable {
		t.Errorf("x-should-retry: true should allow a retry: %+v", c)
	}
	if c := Classify(&APIError{Status: 400, Headers: h, Message: "prompt is too long"}); c.Retryable {
		t.Errorf("an overflow is never retried as is: %+v", c)
	}
	h.Set("x-should-retry", "false")
	if c := Classify(&APIError{Status: 503, Headers: h, Message: "Overloaded"}); c.Retryable {
		t.Errorf("x-should-retry: false must win: %+v", c)
	}
}

func TestClassifyOpenRouterRawJSON(t *testing.T) {
	// metadata.raw that is itself a JSON error document.
	body := `{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"{\"error\":{\"message\":\"prompt is too long: 250000 tokens > 200000 maximum\",\"type\":\"invalid_request_error\"}}","provider_name":"Anthropic"}}}`
	c := Classify(&APIError{Status: 400, Body: body})
	if c.Reason != ReasonContextOverflow || c.UpstreamProvider != "Anthropic" {
		t.Errorf("→ %+v", c)
	}
}

func TestClassifyCodeTable(t *testing.T) {
	cases := map[string]FailoverReason{
		"context_length_exceeded": ReasonContextOverflow, "max_tokens_exceeded": ReasonContextOverflow,
		"exceed_context_size_error": ReasonContextOverflow, "request_too_large": ReasonPayloadTooLarge,
		"insufficient_quota": ReasonBilling, "billing_not_active": ReasonBilling, "payment_required": ReasonBilling,
		"insufficient_credits": ReasonBilling, "no_usable_credits": ReasonBilling, "balance_depleted": ReasonBilling,
		"model_not_supported_on_free_tier": ReasonBilling, "member_spend_cap_exceeded": ReasonBilling,
		"personal-team-blocked:spending-limit": ReasonBilling, "usage_limit_reached": ReasonBilling,
		"rate_limit_exceeded": ReasonRateLimit, "RESOURCE_EXHAUSTED": ReasonRateLimit, "throttled": ReasonRateLimit,
		"overloaded_error": ReasonOverloaded, "UNAVAILABLE": ReasonOverloaded, "unavailable_error": ReasonOverloaded,
		"timeout_error": ReasonTimeout, "DEADLINE_EXCEEDED": ReasonTimeout,
		"authentication_error": ReasonAuth, "invalid_api_key": ReasonAuth, "permission_error": ReasonAuth,
		"UNAUTHENTICATED": ReasonAuth, "PERMISSION_DENIED": ReasonAuth,
		"model_not_found": ReasonModelNotFound, "model_not_available": ReasonModelNotFound, "invalid_model": ReasonModelNotFound,
		"invalid_encrypted_content": ReasonInvalidEncryptedContent,
		"unknown_parameter":         ReasonFormatError, "unsupported_parameter": ReasonFormatError, "INVALID_ARGUMENT": ReasonFormatError,
		"content_filter": ReasonContentPolicyBlocked,
		"server_error":   ReasonServerError, "api_error": ReasonServerError, "INTERNAL": ReasonServerError,
		"invalid_request_error": ReasonFormatError, "not_supported_error": ReasonFormatError,
	}
	for code, want := range cases {
		// In-stream error events carry no status: the code decides.
		e := &APIError{MidStream: true, Body: `{"error":{"code":"` + code + `","message":"see code"}}`}
		if c := Classify(e); c.Reason != want {
			t.Errorf("code %s → %s, want %s", code, c.Reason, want)
		}
		// Parsed by the transport instead of left in the body.
		if c := Classify(&APIError{MidStream: true, Code: code, Message: "see code"}); c.Reason != want {
			t.Errorf("APIError.Code %s → %s, want %s", code, c.Reason, want)
		}
	}
	// Numeric codes (HTTP statuses echoed by OpenRouter, llama.cpp) are
	// not codes; a message given as an array of strings is joined.
	c := Classify(&APIError{MidStream: true, Body: `{"error":{"code":400,"message":["context length", "exceeded"]}}`})
	if c.Reason != ReasonContextOverflow || c.Code != "" {
		t.Errorf("array message: %+v", c)
	}
	// top-level error_code / errorCode.
	if c := Classify(&APIError{Status: 429, Body: `{"errorCode":"usage_limit_reached","message":"x"}`}); c.Reason != ReasonBilling {
		t.Errorf("errorCode: %s", c.Reason)
	}
}

// timeoutErr is a net.Error that timed out.
type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

func TestClassifyMoreTransport(t *testing.T) {
	cases := []struct {
		name   string
		err    error
		reason FailoverReason
	}{
		{"net timeout", &net.OpError{Op: "read", Net: "tcp", Err: timeoutErr{}}, ReasonTimeout},
		{"dns", &net.DNSError{Err: "no such host", Name: "api.example.invalid", IsNotFound: true}, ReasonTimeout},
		{"refused errno", syscall.ECONNREFUSED, ReasonConnectionRefused},
		{"broken pipe", syscall.EPIPE, ReasonTimeout},
		{"tls alert", tls.AlertError(40), ReasonTimeout},
		{"tls record header", tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}, ReasonTimeout},
		{"cert invalid", x509.CertificateInvalidError{Reason: x509.Expired}, ReasonSSLCertVerification},
		{"hostname", x509.HostnameError{Certificate: &x509.Certificate{}, Host: "x"}, ReasonSSLCertVerification},
		{"url error text: closed idle", &url.Error{Op: "Post", URL: "http://x", Err: errors.New("http: server closed idle connection")}, ReasonTimeout},
		{"url error text: tls handshake timeout", &url.Error{Op: "Post", URL: "https://x", Err: errors.New("net/http: TLS handshake timeout")}, ReasonTimeout},
		{"url error text: cert", &url.Error{Op: "Post", URL: "https://x", Err: errors.New("x509: certificate signed by unknown authority")}, ReasonSSLCertVerification},
		{"url error unsupported scheme", &url.Error{Op: "Post", URL: "ftp://x", Err: errors.New(`unsupported protocol scheme "ftp"`)}, ReasonLocalError},
		{"flattened cert text", errors.New("Post: x509: certificate signed by unknown authority"), ReasonSSLCertVerification},
		{"flattened connect text", errors.New("dial: connection refused"), ReasonConnectionRefused},
		{"flattened tls alert", errors.New("remote error: tls: handshake failure"), ReasonTimeout},
	}
	for _, tc := range cases {
		if c := Classify(tc.err); c.Reason != tc.reason {
			t.Errorf("%s: → %s, want %s", tc.name, c.Reason, tc.reason)
		}
	}
	// The same url.Error inside an APIError (the HTTP stack failed, the
	// request may have left): unknown, retried.
	ue := &url.Error{Op: "Post", URL: "ftp://x", Err: errors.New("something new")}
	if c := Classify(&APIError{Err: ue, Message: "cannot reach"}); c.Reason != ReasonUnknown || !c.Retryable {
		t.Errorf("APIError url.Error: %+v", c)
	}
}
