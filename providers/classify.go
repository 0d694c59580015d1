package providers

import (
	"context"
	"errors"
	"net/http"
	"strings"
)

// FailoverReason names why a provider call failed. It is the `reason` of
// the retry.scheduled, credential.rotated and fallback.activated events
// and of api.attempt. Its values are the Reason* constants and nothing
// else: the failover reasons of the contract (auth, auth_permanent,
// billing, rate_limit, overloaded, server_error, timeout,
// context_overflow, payload_too_large, model_not_found,
// content_policy_blocked, format_error, thinking_signature, unknown,
// reasoning_mandatory, connection_refused) and the ones it allows "as
// needed", each below with why it exists.
type FailoverReason string

// String returns the reason as events spell it.
func (r FailoverReason) String() string { return string(r) }

// The failover reasons (reference/hermes.md §3.1, plus local_error and
// interrupted).
const (
	// ReasonAuth is a 401/403: rotate the credential, then fall back.
	ReasonAuth FailoverReason = "auth"
	// ReasonAuthPermanent is a credential that no retry revives (revoked).
	ReasonAuthPermanent FailoverReason = "auth_permanent"
	// ReasonBilling is exhausted credits or quota: rotate, then fall back.
	ReasonBilling FailoverReason = "billing"
	// ReasonRateLimit is a 429 throttle: back off, rotate, then fall back.
	ReasonRateLimit FailoverReason = "rate_limit"
	// ReasonUpstreamRateLimit is OpenRouter's wrapped upstream 429: the key
	// is healthy, so fall back without rotating.
	ReasonUpstreamRateLimit FailoverReason = "upstream_rate_limit"
	// ReasonOverloaded is a 503/529: back off on the same key.
	ReasonOverloaded FailoverReason = "overloaded"
	// ReasonServerError is a 500/502: retry.
	ReasonServerError FailoverReason = "server_error"
	// ReasonTimeout is a timeout or a transport failure: retry.
	ReasonTimeout FailoverReason = "timeout"
	// ReasonConnectionRefused is a base URL where nothing listens: retried
	// at most ConnectionRefusedRetries times, quickly, then the fallback.
	ReasonConnectionRefused FailoverReason = "connection_refused"
	// ReasonSSLCertVerification is a TLS chain failure: fail fast.
	ReasonSSLCertVerification FailoverReason = "ssl_cert_verification"
	// ReasonContextOverflow is a prompt over the context window: compress.
	ReasonContextOverflow FailoverReason = "context_overflow"
	// ReasonPayloadTooLarge is a 413: compress.
	ReasonPayloadTooLarge FailoverReason = "payload_too_large"
	// ReasonImageTooLarge is a per-image size limit: shrink the image.
	ReasonImageTooLarge FailoverReason = "image_too_large"
	// ReasonImageCorrupt is an undecodable image: strip it.
	ReasonImageCorrupt FailoverReason = "image_corrupt"
	// ReasonMultimodalToolContent is list content in a tool result that
	// the provider rejects: downgrade to text.
	ReasonMultimodalToolContent FailoverReason = "multimodal_tool_content_unsupported"
	// ReasonInvalidEncryptedContent is a rejected reasoning replay blob:
	// strip the replay state.
	ReasonInvalidEncryptedContent FailoverReason = "invalid_encrypted_content"
	// ReasonModelNotFound is an unknown model id: fall back.
	ReasonModelNotFound FailoverReason = "model_not_found"
	// ReasonProviderPolicyBlocked is an account guardrail or data policy
	// that blocks every endpoint: no fallback.
	ReasonProviderPolicyBlocked FailoverReason = "provider_policy_blocked"
	// ReasonContentPolicyBlocked is a safety refusal of this prompt: the
	// turn ends with the content_policy_blocked exit.
	ReasonContentPolicyBlocked FailoverReason = "content_policy_blocked"
	// ReasonFormatError is a request the provider rejects as malformed.
	ReasonFormatError FailoverReason = "format_error"
	// ReasonThinkingSignature is an invalid or mutated thinking block:
	// strip reasoning replay and retry.
	ReasonThinkingSignature FailoverReason = "thinking_signature"
	// ReasonLongContextTier is Anthropic's 1M-context tier gate: cap the
	// context and compress.
	ReasonLongContextTier FailoverReason = "long_context_tier"
	// ReasonReasoningMandatory is a model that refuses to answer with
	// reasoning/thinking off: retry once with reasoning enabled.
	ReasonReasoningMandatory FailoverReason = "reasoning_mandatory"
	// ReasonLlamaCppGrammar is llama.cpp failing to compile a tool schema:
	// strip pattern/format from the tool schemas and retry.
	ReasonLlamaCppGrammar FailoverReason = "llama_cpp_grammar_pattern"
	// ReasonUnknown is anything else: retry with backoff.
	ReasonUnknown FailoverReason = "unknown"
	// ReasonLocalError is a deterministic failure in our own code or
	// request building: never retried, never a fallback.
	ReasonLocalError FailoverReason = "local_error"
	// ReasonInterrupted is a cancelled context: the loop handles it.
	ReasonInterrupted FailoverReason = "interrupted"
)

// CodeContextOverflow is the error code of a prompt longer than the
// model's context window (OpenAI's own, and what the codes table maps to
// ReasonContextOverflow). A wire whose provider has no code of its own for
// it (Bedrock, Gemini) sets it as the APIError's Code or Type when the
// message says so.
const CodeContextOverflow = "context_length_exceeded"

// maxClassifiedMessage bounds Classified.Message, in bytes.
const maxClassifiedMessage = 500

// Classified is an error sorted into a failover reason with recovery hints.
type Classified struct {
	// Reason is one of the Reason* constants.
	Reason FailoverReason
	// Status is the HTTP status, 0 when there was none.
	Status int
	// Retryable says the same request may succeed if sent again.
	Retryable bool
	// ShouldCompress says the request is too big: compress and resend.
	ShouldCompress bool
	// ShouldRotateCredential says the key is at fault: report it to the
	// CredentialPool.
	ShouldRotateCredential bool
	// ShouldFallback says another provider/model may succeed.
	ShouldFallback bool
	// Message is the error text, at most 500 bytes.
	Message string
	// Code is the provider's most specific error code, lowercase.
	Code string
	// Provider and Model identify the failing backend, when known.
	Provider string
	Model    string
	// UpstreamProvider is the provider behind an aggregator (OpenRouter's
	// metadata.provider_name).
	UpstreamProvider string
	// StructuredReset says the server stated when a usage limit lifts (a
	// resets_in_seconds / resets_at body field or an x-ratelimit-reset*
	// header): wait for that reset when it is within agent.retry_after_cap
	// rather than rotating the key or falling back.
	StructuredReset bool
	// AdaptiveBackoff marks a known overload whose windows outlast short
	// backoffs (Z.AI coding plan code 1305): after the first 3 retries the
	// waits grow to 30, 60, 90 and 120 s (see RetryDelay).
	AdaptiveBackoff bool
	// ContextLimit is the context window the provider's overflow message
	// states, in tokens; 0 when it states none.
	ContextLimit int
	// PromptTokens is the request size the overflow message states, in
	// tokens; 0 when it states none.
	PromptTokens int
}

// ClassifyInput is the session context that size-dependent rules need.
type ClassifyInput struct {
	Provider string
	Model    string
	// ApproxTokens is the estimated prompt size of the failed request.
	ApproxTokens int
	// ContextLength is the model's window; 0 means 200,000.
	ContextLength int
	// MessageCount is the number of messages in the request.
	MessageCount int
	// ReasoningModel marks models whose long silences cause disconnects
	// that say nothing about the prompt size.
	ReasoningModel bool
	// BaseURL is the endpoint of the failed request (provider-specific
	// rules such as Z.AI's coding-plan overload need it).
	BaseURL string
}

// contextLength returns the window, defaulting to 200k.
func (in ClassifyInput) contextLength() int {
	if in.ContextLength > 0 {
		return in.ContextLength
	}
	return 200_000
}

// largeForDisconnect: a disconnect with no status on a session this big is
// taken as an overflow (tokens > 60% of the window, or a ≤256k window with
// more than 120k tokens or 200 messages).
func (in ClassifyInput) largeForDisconnect() bool {
	ctx := in.contextLength()
	return float64(in.ApproxTokens) > 0.6*float64(ctx) ||
		(ctx <= 256_000 && (in.ApproxTokens > 120_000 || in.MessageCount > 200))
}

// largeForBareError: a short generic 400 on a session this big is taken as
// an overflow (tokens > 40% of the window, or a ≤256k window with more than
// 80k tokens or 80 messages).
func (in ClassifyInput) largeForBareError() bool {
	ctx := in.contextLength()
	return float64(in.ApproxTokens) > 0.4*float64(ctx) ||
		(ctx <= 256_000 && (in.ApproxTokens > 80_000 || in.MessageCount > 80))
}

// Classify sorts an error from a transport into a failover reason, without
// session context. See ClassifyWith.
func Classify(err error) Classified {
	return ClassifyWith(err, ClassifyInput{})
}

// ClassifyWith sorts an error from a transport into a failover reason with
// recovery hints. A cancelled context is ReasonInterrupted. An *APIError
// goes through provider special cases, HTTP status rules, the error-code
// table, message phrases and transport failures, in that order, ending in
// ReasonUnknown (retryable). Any other error is a transport failure when
// it is one (net.Error, io.ErrUnexpectedEOF, connection reset, TLS,
// context.DeadlineExceeded), else ReasonLocalError (never retried).
func ClassifyWith(err error, in ClassifyInput) Classified {
	if err == nil {
		return Classified{}
	}
	var c Classified
	var ae *APIError
	switch {
	case errors.Is(err, context.Canceled):
		c = newClassified(ReasonInterrupted)
	case errors.As(err, &ae):
		ev := gather(ae)
		c = classifyAPI(ae, ev, in)
		c.Status = ae.Status
		if c.Code == "" && len(ev.codes) > 0 {
			c.Code = ev.codes[0]
		}
		c.UpstreamProvider = ev.upstream
		if c.Provider == "" {
			c.Provider = ae.Provider
		}
		applyShouldRetry(&c, ae.Headers)
		if c.Reason == ReasonContextOverflow || c.Reason == ReasonPayloadTooLarge {
			c.ContextLimit, c.PromptTokens = StatedContextLimit(ev.text)
		}
		if ae.Status == 429 && isZAICodingOverload(ae.Body, in) {
			c.Reason, c.Retryable, c.ShouldRotateCredential = ReasonOverloaded, true, false
			c.AdaptiveBackoff = true
		}
	default:
		c = classifyPlain(err, in)
	}
	if in.Provider != "" {
		c.Provider = in.Provider
	}
	c.Model = in.Model
	c.Message = truncateMessage(err.Error())
	refused(&c, err, in)
	return c
}

// newClassified returns the default hints of a reason.
func newClassified(reason FailoverReason) Classified {
	c := Classified{Reason: reason}
	switch reason {
	case ReasonAuth, ReasonAuthPermanent, ReasonBilling:
		c.ShouldRotateCredential, c.ShouldFallback = true, true
	case ReasonRateLimit:
		c.Retryable, c.ShouldRotateCredential, c.ShouldFallback = true, true, true
	case ReasonUpstreamRateLimit, ReasonOverloaded, ReasonServerError, ReasonTimeout, ReasonUnknown, ReasonConnectionRefused:
		c.Retryable, c.ShouldFallback = true, true
	case ReasonContextOverflow, ReasonPayloadTooLarge, ReasonLongContextTier:
		c.ShouldCompress = true
	case ReasonModelNotFound, ReasonFormatError, ReasonImageCorrupt,
		ReasonMultimodalToolContent, ReasonInvalidEncryptedContent, ReasonReasoningMandatory:
		c.ShouldFallback = true
	}
	// ssl_cert_verification, image_too_large, provider_policy_blocked,
	// content_policy_blocked, thinking_signature, llama_cpp_grammar_pattern,
	// local_error and interrupted: no retry of the same request, no fallback.
	return c
}

// classifyAPI runs the pipeline of reference/hermes.md §3.3 over an APIError.
func classifyAPI(ae *APIError, ev *evidence, in ClassifyInput) Classified {
	if c, ok := specialCase(ae.Status, ev); ok {
		return c
	}
	if ae.Status >= 400 {
		return byStatus(ae.Status, ev, ae, in)
	}
	// No HTTP error status: a transport failure, or an error event inside
	// a stream that already answered 200.
	if ae.Err != nil && !ae.MidStream && ae.Body == "" && !isTransportErr(ae.Err) {
		// The request never left: our own request building failed.
		return newClassified(ReasonLocalError)
	}
	if r, ok := specificCode(ev); ok {
		return newClassified(r)
	}
	if c, ok := byMessage(ev, ae.MidStream, in); ok {
		return c
	}
	if ae.Err != nil {
		if c, ok := classifyTransport(ae.Err, ae.MidStream, in); ok {
			return c
		}
	}
	if r, ok := genericCode(ev); ok {
		return newClassified(r)
	}
	return newClassified(ReasonUnknown)
}

// specialCase covers the provider-specific rules that win over the status.
func specialCase(status int, ev *evidence) (Classified, bool) {
	t := ev.text
	switch {
	case contentPolicyText.in(ev) || ev.hasCode("content_filter", "content_policy_violation"):
		return newClassified(ReasonContentPolicyBlocked), true
	case status == 400 && isThinkingSignatureText(t):
		return newClassified(ReasonThinkingSignature), true
	case status == 429 && strings.Contains(t, "extra usage") && strings.Contains(t, "long context"):
		return newClassified(ReasonLongContextTier), true
	case (status == 400 || status == 500) && isGrammarText(t):
		return newClassified(ReasonLlamaCppGrammar), true
	case (status >= 400 && status <= 500) && imagesUnsupportedText.in(ev):
		// A text-only model: llama.cpp without its projector answers 500.
		return newClassified(ReasonMultimodalToolContent), true
	case isGrokBlockText(t):
		return newClassified(ReasonAuth), true
	case status >= 400 && serverLocalConfigText.in(ev):
		return newClassified(ReasonFormatError), true
	}
	return Classified{}, false
}

// specificCode maps the precise error codes (not the generic types).
func specificCode(ev *evidence) (FailoverReason, bool) {
	for _, code := range ev.codes {
		if r, ok := codeReason(code); ok {
			return r, true
		}
	}
	return "", false
}

// codeReason maps one precise error code.
func codeReason(code string) (FailoverReason, bool) {
	switch code {
	case CodeContextOverflow, "max_tokens_exceeded", "exceed_context_size_error":
		return ReasonContextOverflow, true
	case "request_too_large":
		return ReasonPayloadTooLarge, true
	case "insufficient_quota", "billing_not_active", "payment_required",
		"insufficient_credits", "no_usable_credits", "balance_depleted",
		"model_not_supported_on_free_tier", "member_spend_cap_exceeded",
		"personal-team-blocked:spending-limit", "billing_error",
		"enforced_spend_limit_reached", "usage_limit_reached":
		return ReasonBilling, true
	case "rate_limit_exceeded", "rate_limit_error", "resource_exhausted",
		"throttled", "too_many_requests", "ratelimitexceeded":
		return ReasonRateLimit, true
	case "overloaded_error", "unavailable_error", "unavailable", "server_busy":
		return ReasonOverloaded, true
	case "timeout_error", "deadline_exceeded":
		return ReasonTimeout, true
	case "authentication_error", "invalid_api_key", "unauthenticated",
		"gateway_auth_failed", "permission_error", "permission_denied", "api_key_invalid":
		return ReasonAuth, true
	case "model_not_found", "model_not_available", "invalid_model":
		return ReasonModelNotFound, true
	case "invalid_encrypted_content":
		return ReasonInvalidEncryptedContent, true
	case "unknown_parameter", "unsupported_parameter", "invalid_argument":
		return ReasonFormatError, true
	}
	return "", false
}

// genericCode maps the broad error types, consulted only when no phrase
// said more.
func genericCode(ev *evidence) (FailoverReason, bool) {
	for _, code := range ev.codes {
		switch code {
		case "server_error", "api_error", "internal_error", "internal":
			return ReasonServerError, true
		case "invalid_request_error", "not_supported_error":
			return ReasonFormatError, true
		}
	}
	return "", false
}

// messageRules is the phrase table of byMessage, in order.
var messageRules = [...]rule{
	{payloadText, ReasonPayloadTooLarge},
	{overloadText, ReasonOverloaded},
	{billingText, ReasonBilling},
	{rateLimitText, ReasonRateLimit},
	{transientUsageLimit, ReasonRateLimit},
	{overflowText, ReasonContextOverflow},
	{policyBlockText, ReasonProviderPolicyBlocked},
	{modelNotFoundText, ReasonModelNotFound},
	{emptyResponseText, ReasonServerError},
}

// byMessage applies the phrase tables to an error without an HTTP status:
// messageRules, then the network phrases, then the auth phrases.
func byMessage(ev *evidence, midStream bool, in ClassifyInput) (Classified, bool) {
	if r, ok := decide(ev, messageRules[:]); ok {
		return newClassified(r), true
	}
	if c, ok := byNetworkText(ev.text, true, midStream, in); ok {
		return c, true
	}
	if authText.in(ev) {
		return newClassified(ReasonAuth), true
	}
	return Classified{}, false
}

// disconnect classifies a server that hung up with no status: on a large
// session, before any byte streamed and not on a reasoning model, it is
// most likely the prompt size; otherwise a transient timeout.
func disconnect(midStream bool, in ClassifyInput) Classified {
	if !midStream && !in.ReasoningModel && in.largeForDisconnect() {
		return newClassified(ReasonContextOverflow)
	}
	return newClassified(ReasonTimeout)
}

// applyShouldRetry honours the x-should-retry header (Stainless SDKs):
// false forbids a retry; true allows one, except where only a smaller
// request or another credential can help.
func applyShouldRetry(c *Classified, h http.Header) {
	if h == nil {
		return
	}
	switch strings.ToLower(strings.TrimSpace(h.Get("x-should-retry"))) {
	case "false":
		c.Retryable = false
	case "true":
		switch c.Reason {
		case ReasonLocalError, ReasonInterrupted, ReasonContextOverflow,
			ReasonPayloadTooLarge, ReasonLongContextTier, ReasonContentPolicyBlocked,
			ReasonSSLCertVerification, ReasonBilling, ReasonAuth, ReasonAuthPermanent:
			// Fixed only by a smaller request or another key.
		default:
			c.Retryable = true
		}
	}
}

// truncateMessage cuts s to maxClassifiedMessage bytes on a rune boundary.
func truncateMessage(s string) string {
	if len(s) <= maxClassifiedMessage {
		return s
	}
	cut := maxClassifiedMessage
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// isRuneStart reports whether b begins a UTF-8 sequence.
func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
