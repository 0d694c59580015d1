package providers

import "strings"

// A signal is something error evidence may show. The phrase signals match
// lowercase error text against the provider phrases collected in
// reference/hermes.md §3.5 and wire.md §4 (phraseLists); the evidence
// signals after them combine phrases with error codes (see signal.in).
// The decision tables of classify.go and status.go are lists of signals.
type signal int

// The phrase signals, in the order of phraseLists.
const (
	overflowText signal = iota
	billingText
	rateLimitText
	usageLimitText
	transientText
	quotaWallText
	resetText
	reasoningMandatoryText
	overloadText
	payloadText
	imageTooLargeText
	imageCorruptText
	multimodalToolText
	imagesUnsupportedText
	modelNotFoundText
	policyBlockText
	contentPolicyText
	paramRejectText
	malformedText
	authText
	authPermanentText
	emptyResponseText
	timeoutText
	connectText
	disconnectText
	certText
	tlsTransientText
	serverLocalConfigText
	numPhraseSignals
)

// phraseLists holds the phrases of each phrase signal. It is read-only.
var phraseLists = [numPhraseSignals][]string{
	// overflowText: context-window overflow messages.
	overflowText: {
		// generic
		"context length", "context size", "maximum context", "token limit",
		"too many tokens", "reduce the length", "exceeds the limit",
		"context window", "prompt is too long", "prompt exceeds max length",
		"max_tokens", "maximum number of tokens", "exceed context limit",
		// vLLM
		"exceeds the max_model_len", "max_model_len", "prompt length",
		"input is too long", "maximum model length",
		// Ollama, llama.cpp
		"context length exceeded", "truncating input", "slot context",
		"n_ctx_slot", "exceeds the available context",
		// Chinese
		"超过最大长度", "上下文长度",
		// Z.AI, Bedrock, Together/Fireworks
		"tokens in request more than max tokens allowed", "max input token",
		"input token", "exceeds the maximum number of input tokens",
		"too many input tokens", "maximum allowed input length",
	},
	// billingText: exhausted credits, quota and payment messages.
	billingText: {
		"insufficient credits", "insufficient_quota", "insufficient balance",
		"credit balance", "credits exhausted", "credits have been exhausted",
		"requires available credits", "account balance is too low",
		"no usable credits", "top up your credits", "payment required",
		"billing hard limit", "exceeded your current quota",
		"account is deactivated", "plan does not include", "out of extra usage",
		"out of funds", "run out of funds", "balance_depleted",
		"model_not_supported_on_free_tier", "not available on the free tier",
		"spending limit", "spend limit", "key limit exceeded",
	},
	// rateLimitText: throttling messages.
	rateLimitText: {
		"rate limit", "rate_limit", "rate-limit", "too many requests", "throttled",
		"requests per minute", "tokens per minute", "requests per day",
		"try again in", "please retry after", "resource_exhausted",
		"rate increased too quickly", "throttlingexception",
		"too many concurrent requests", "servicequotaexceededexception",
		"throttling",
	},
	// usageLimitText: the ambiguous usage-limit phrases.
	usageLimitText: {
		"usage limit", "quota", "limit exceeded", "key limit exceeded",
	},
	// transientText: wording that says a limit will lift soon.
	transientText: {
		"try again", "retry", "resets at", "reset in", "resets in",
		"reset after", "available in", "wait", "requests remaining",
		"periodic", "window", "per minute", "per second",
	},
	// quotaWallText: a quota or credit wall: a limit that a short
	// wait does not lift ("Monthly quota reached.", "API key limit exceeded.",
	// "Insufficient credits remaining.").
	quotaWallText: {
		"quota reached", "quota exceeded", "quota exhausted", "quota has been reached",
		"quota has been exceeded", "quota has been exhausted", "monthly quota",
		"monthly limit", "daily quota", "weekly quota", "credits remaining",
		"insufficient credit", "out of credits", "no credits", "credit limit",
		"key limit exceeded", "key limit reached", "usage quota",
	},
	// resetText: a reset time written in a message ("try again at
	// 12:16 PM", "resets in 2 hours"): a limit that lifts, though not when
	// in a form worth waiting for.
	resetText: {
		"try again at", "try again after", "resets at", "reset at", "resets in",
		"reset in", "available in", "available again at", "reset after",
	},
	// reasoningMandatoryText: a model that refuses requests with
	// reasoning/thinking off (OpenRouter "Reasoning is mandatory for this
	// endpoint and cannot be disabled.", Gemini "This model only works in
	// thinking mode.", DashScope's enable_thinking restricted to true).
	reasoningMandatoryText: {
		"reasoning is mandatory", "reasoning is required", "requires reasoning",
		"reasoning cannot be disabled", "reasoning must be enabled",
		"only works in thinking mode", "thinking mode is required",
		"thinking is required", "requires thinking", "thinking must be enabled",
		"thinking cannot be disabled", "enable_thinking parameter is restricted to true",
		"must enable thinking", "must enable reasoning",
	},
	// overloadText: server-capacity messages.
	overloadText: {
		"overloaded", "at capacity", "over capacity", "server busy",
		"modelnotreadyexception", "modeltimeoutexception", "internalserverexception",
	},
	// payloadText: request-size rejections.
	payloadText: {
		"request entity too large", "payload too large", "error code: 413",
		"request_too_large", "request exceeds the maximum size",
	},
	// imageTooLargeText: per-image size limits.
	imageTooLargeText: {
		"image exceeds", "image too large", "image_too_large", "image size exceeds",
		"image dimensions exceed", "dimensions exceed max allowed size",
		"max allowed size: 8000", "media exceeds", "media too large",
	},
	// imageCorruptText: undecodable images.
	imageCorruptText: {
		"invalid png image", "invalid jpeg image",
		"base64 string of provided image cannot be decoded",
		"downloaded response does not contain a valid jpg, png, webp, or ico image",
	},
	// multimodalToolText: rejections of list content in tool results.
	multimodalToolText: {
		"text is not set", "tool message content must be a string",
		"tool content must be a string", "tool message must be a string",
		"expected string, got list", "expected string, got array",
		"tool_call.content must be string",
	},
	// imagesUnsupportedText: a model that takes no image input at
	// all (llama.cpp without --mmproj, a text model behind vLLM or Ollama).
	imagesUnsupportedText: {
		"image input is not supported", "images are not supported",
		"does not support image", "does not support images", "doesn't support image",
		"image inputs are not supported", "vision is not supported",
		"does not support vision", "multimodal is not supported", "provide the mmproj",
	},
	// modelNotFoundText: unknown-model messages.
	modelNotFoundText: {
		"is not a valid model", "invalid model", "model not found",
		"model_not_found", "does not exist", "no such model", "unknown model",
		"unsupported model", "no endpoints found that support tool use",
		"try pulling it first",
	},
	// policyBlockText: OpenRouter account guardrail and data-policy blocks.
	policyBlockText: {
		"no endpoints available matching your guardrail",
		"no endpoints available matching your data policy",
		"no endpoints found matching your data policy",
	},
	// contentPolicyText: per-prompt safety refusals.
	contentPolicyText: {
		"flagged for possible cybersecurity risk", "trusted access for cyber",
		"violates our usage policies", "violates openai's usage policies",
		"your request was flagged by", "prompt was flagged by our safety",
		"responses cannot be generated due to safety", "content_filter",
		"responsibleaipolicyviolation", "new_sensitive", "requires moderation",
		"your input was flagged", "flagged as potentially violating",
	},
	// paramRejectText: unknown or unsupported request parameters.
	paramRejectText: {
		"unknown parameter", "unsupported parameter", "unrecognized request argument",
		"unknown_parameter", "unsupported_parameter",
	},
	// malformedText: malformed message arrays.
	malformedText: {
		"must have non-empty content", "messages must have non-empty",
		"invalid_request_body", "text content blocks must be non-empty",
		"content field is required", "messages: at least one message is required",
		"no user query found",
	},
	// authText: authentication failures.
	authText: {
		"invalid api key", "invalid_api_key", "incorrect api key",
		"invalid x-api-key", "gateway_auth_failed", "authentication",
		"unauthorized", "forbidden", "invalid token", "token expired",
		"token revoked", "access denied",
	},
	// authPermanentText: credentials that no retry can revive.
	authPermanentText: {
		"has been revoked", "token revoked", "key revoked", "has been disabled",
		"has been deleted", "has been suspended", "account suspended",
	},
	// emptyResponseText: a provider that answered with nothing.
	emptyResponseText: {
		"returned an empty response", "empty response despite retries",
		"provider returned an empty response", "model returning empty responses",
		"empty response stream",
	},
	// timeoutText: timeouts reported as text.
	timeoutText: {
		"timed out", "deadline exceeded", "i/o timeout", "timeout awaiting",
		"tls handshake timeout",
	},
	// connectText: failures to reach the server at all.
	connectText: {
		"connection refused", "econnrefused", "no route to host",
		"network is unreachable", "network unreachable",
		"name or service not known", "temporary failure in name resolution",
		"nodename nor servname provided", "getaddrinfo failed",
		"getaddrinfo enotfound", "eai_again", "fetch failed", "failed to fetch",
		"upstream connect error", "no such host",
	},
	// disconnectText: a server that hung up mid-exchange.
	disconnectText: {
		"server disconnected", "peer closed connection", "connection reset by peer",
		"connection was closed", "network connection lost", "unexpected eof",
		"incomplete chunked read", "broken pipe", "server closed idle connection",
	},
	// certText: deterministic TLS certificate failures.
	certText: {
		"certificate verify failed", "certificate_verify_failed",
		"unable to get local issuer certificate", "self-signed certificate",
		"self signed certificate", "certificate has expired",
		"hostname mismatch, certificate is not valid",
		"unable to verify the first certificate",
		"certificate signed by unknown authority", "certificate is not valid for",
		"certificate is valid for",
	},
	// tlsTransientText: TLS alerts that a retry may clear.
	tlsTransientText: {
		"bad record mac", "ssl alert", "tls alert", "ssl handshake failure",
		"tlsv1 alert", "sslv3 alert", "bad_record_mac", "ssl_alert", "tls_alert",
		"[ssl:", "tls: handshake failure", "remote error: tls",
	},
	// serverLocalConfigText: a local server whose launch flags cannot
	// serve the request (llama.cpp without --jinja): retrying cannot help.
	serverLocalConfigText: {
		"requires --jinja", "cannot use tools with stream",
	},
}

// The evidence signals: phrases and error codes together.
const (
	// transientUsageLimit is a usage limit said to lift soon.
	transientUsageLimit signal = numPhraseSignals + iota
	// encryptedReplayRejected is a reasoning replay blob the server could
	// not verify or decrypt.
	encryptedReplayRejected
	// invalidKey is Gemini's bad key, reported as 400 INVALID_ARGUMENT.
	invalidKey
	// injectedParamRejected is a rejection of a parameter the gateway adds
	// itself (transient; see isServerInjectedParam).
	injectedParamRejected
	// overflowEvidence is an overflow phrase or code.
	overflowEvidence
	// modelNotFoundEvidence is an unknown-model phrase or code.
	modelNotFoundEvidence
	// billingEvidence is a billing phrase or a structured billing code.
	billingEvidence
)

// in reports whether ev shows s.
func (s signal) in(ev *evidence) bool {
	t := ev.text
	if s < numPhraseSignals {
		return containsAny(t, phraseLists[s]...)
	}
	switch s {
	case transientUsageLimit:
		return usageLimitText.in(ev) && transientText.in(ev)
	case encryptedReplayRejected:
		return ev.hasCode("invalid_encrypted_content") ||
			(strings.Contains(t, "encrypted content for item") && strings.Contains(t, "could not be verified")) ||
			strings.Contains(t, "could not decrypt the provided encrypted_content")
	case invalidKey:
		return ev.hasCode("api_key_invalid") || strings.Contains(t, "api key not valid")
	case injectedParamRejected:
		return paramRejectText.in(ev) && isServerInjectedParam(t)
	case overflowEvidence:
		return overflowText.in(ev) || ev.hasCode(CodeContextOverflow, "max_tokens_exceeded", "exceed_context_size_error")
	case modelNotFoundEvidence:
		return modelNotFoundText.in(ev) || ev.hasCode("model_not_found", "model_not_available", "invalid_model")
	case billingEvidence:
		return billingText.in(ev) || hasBillingCode(ev)
	}
	return false
}

// inText reports whether the text t shows s: for a phrase signal, whether
// t contains one of its phrases; an evidence signal sees no codes.
func (s signal) inText(t string) bool {
	return s.in(&evidence{text: t})
}

// rule is one row of an ordered decision table: the first rule whose
// signal the evidence shows decides the reason.
type rule struct {
	when   signal
	reason FailoverReason
}

// decide returns the reason of the first of rules that ev shows.
func decide(ev *evidence, rules []rule) (FailoverReason, bool) {
	for _, r := range rules {
		if r.when.in(ev) {
			return r.reason, true
		}
	}
	return "", false
}

// containsAny reports whether t contains any of the phrases.
func containsAny(t string, phrases ...string) bool {
	for _, p := range phrases {
		if strings.Contains(t, p) {
			return true
		}
	}
	return false
}

// isValidationText matches request-validation failures reported as 5xx by
// gateways.
func isValidationText(t string) bool {
	return paramRejectText.inText(t) || strings.Contains(t, "invalid_request_error")
}

// isThinkingSignatureText matches a rejected or mutated thinking block.
func isThinkingSignatureText(t string) bool {
	return strings.Contains(t, "thinking") &&
		containsAny(t, "signature", "cannot be modified", "must remain as they were")
}

// isGrammarText matches llama.cpp failing to compile a tool schema to GBNF.
func isGrammarText(t string) bool {
	if strings.Contains(t, "no user query found") {
		return false
	}
	return containsAny(t, "error parsing grammar", "json-schema-to-grammar",
		"failed to parse grammar") ||
		(strings.Contains(t, "unable to generate parser") && strings.Contains(t, "template"))
}

// isGrokBlockText matches xAI subscription or capacity blocks on the account.
func isGrokBlockText(t string) bool {
	return strings.Contains(t, "do not have an active grok subscription") ||
		(strings.Contains(t, "out of available resources") && strings.Contains(t, "grok"))
}

// isTPMTooLargeText matches OpenAI's 429 for a single request larger than
// the organisation's tokens-per-minute limit: it never fits, so waiting is
// pointless and only a smaller request helps.
func isTPMTooLargeText(t string) bool {
	return strings.Contains(t, "request too large") &&
		containsAny(t, "tokens per min", "must be reduced")
}
