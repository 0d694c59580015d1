package providers

import "strings"

// byStatus applies the HTTP status rules of reference/hermes.md §3.4 to an
// error status (≥ 400). It always decides.
func byStatus(s int, ev *evidence, ae *APIError, in ClassifyInput) Classified {
	t := ev.text
	switch {
	case s == 401:
		return authReason(ev)
	case s == 403:
		switch {
		case billingEvidence.in(ev):
			return newClassified(ReasonBilling)
		case policyBlockText.in(ev):
			return newClassified(ReasonProviderPolicyBlocked)
		}
		return authReason(ev)
	case s == 402:
		if transientUsageLimit.in(ev) {
			return newClassified(ReasonRateLimit)
		}
		return newClassified(ReasonBilling)
	case s == 404:
		return status404(ev)
	case s == 413:
		return newClassified(ReasonPayloadTooLarge)
	case s == 429:
		return status429(ev, ae)
	case s == 400:
		return status400(ev, in)
	case s == 500 || s == 502:
		switch {
		case isValidationText(t) && !isServerInjectedParam(t):
			return newClassified(ReasonFormatError)
		case emptyResponseText.in(ev):
			return newClassified(ReasonServerError)
		case overflowText.in(ev) || ev.hasCode(CodeContextOverflow, "exceed_context_size_error"):
			return newClassified(ReasonContextOverflow)
		}
		return newClassified(ReasonServerError)
	case s == 503 || s == 529:
		switch {
		case emptyResponseText.in(ev):
			return newClassified(ReasonServerError)
		case overflowText.in(ev) || ev.hasCode(CodeContextOverflow, "exceed_context_size_error"):
			return newClassified(ReasonContextOverflow)
		}
		return newClassified(ReasonOverloaded)
	case s == 408 || s == 504 || s == 499:
		// 499 is Ollama's "request canceled": our context was not, so the
		// connection was cut in between.
		return newClassified(ReasonTimeout)
	case s == 409 || s == 425:
		// Conflict / too early: transient server state; SDKs retry 409.
		return newClassified(ReasonServerError)
	case s < 500:
		return newClassified(ReasonFormatError)
	}
	return newClassified(ReasonServerError)
}

// authReason is auth, or auth_permanent for a revoked or disabled key.
func authReason(ev *evidence) Classified {
	if authPermanentText.in(ev) {
		return newClassified(ReasonAuthPermanent)
	}
	return newClassified(ReasonAuth)
}

// hasHardBillingCode reports a structured billing code other than the
// ambiguous usage_limit_reached (which a stated reset turns into a rate
// limit).
func hasHardBillingCode(ev *evidence) bool {
	for _, code := range ev.codes {
		if r, ok := codeReason(code); ok && r == ReasonBilling && code != "usage_limit_reached" {
			return true
		}
	}
	return false
}

// hasBillingCode reports a structured billing code.
func hasBillingCode(ev *evidence) bool {
	for _, code := range ev.codes {
		if r, ok := codeReason(code); ok && r == ReasonBilling {
			return true
		}
	}
	return false
}

// status404: billing (free tier depleted), policy block, an unknown model,
// or unknown — deliberately neither retried nor a fallback, so that a wrong
// base_url surfaces at once.
func status404(ev *evidence) Classified {
	t := ev.text
	switch {
	case billingText.in(ev):
		return newClassified(ReasonBilling)
	case policyBlockText.in(ev):
		return newClassified(ReasonProviderPolicyBlocked)
	case modelNotFoundEvidence.in(ev),
		// Ollama: model "llama3" not found; Anthropic: not_found_error "model: …"
		strings.Contains(t, "model") && (strings.Contains(t, "not found") || strings.Contains(t, "not_found")):
		return newClassified(ReasonModelNotFound)
	}
	c := newClassified(ReasonUnknown)
	c.Retryable, c.ShouldFallback = false, false
	return c
}

// status429 separates overload, OpenRouter's upstream throttle, a request
// that can never fit the per-minute budget, exhausted billing and a plain
// rate limit. A usage limit whose reset the server states (a body field,
// or an x-ratelimit-reset* / Retry-After header) is a rate limit with
// StructuredReset; a quota or credit wall with no reset is billing, even
// when its envelope carries a generic rate-limit type or code.
func status429(ev *evidence, ae *APIError) Classified {
	t := ev.text
	msg := strings.ToLower(ev.message)
	// The envelope's type or code (rate_limit_error, rate_limit_exceeded)
	// is the same for every 429, so only the message and Gemini's
	// RESOURCE_EXHAUSTED (a per-minute or per-day quota) say "throttle".
	throttle := rateLimitText.inText(msg) || resetText.inText(msg) || ev.hasCode("resource_exhausted")
	strongWall := billingText.inText(msg) || quotaWallText.inText(msg)
	weakWall := usageLimitText.inText(msg) || ev.hasCode("usage_limit_reached")
	switch {
	case overloadText.in(ev):
		return newClassified(ReasonOverloaded)
	case ev.wrapped || strings.Contains(t, "provider returned error"):
		return newClassified(ReasonUpstreamRateLimit)
	case isTPMTooLargeText(t):
		return newClassified(ReasonPayloadTooLarge)
	case hasResetField(ae.Body):
		// The body says when the limit lifts (resets_at, resets_in_seconds,
		// reset_at): a limit that comes back is a rate limit, whatever
		// its code or wording says of quotas or billing. A reset already
		// past is retried by the ordinary backoff.
		c := newClassified(ReasonRateLimit)
		c.StructuredReset = bodyReset(ae.Body)
		return c
	case hasHardBillingCode(ev):
		return newClassified(ReasonBilling)
	case (strongWall || weakWall) && headerReset(ae.Headers):
		c := newClassified(ReasonRateLimit)
		c.StructuredReset = true
		return c
	case strongWall && !throttle:
		return newClassified(ReasonBilling)
	case weakWall && !throttle && !rateLimitText.in(ev):
		return newClassified(ReasonBilling)
	}
	return newClassified(ReasonRateLimit)
}

// rules400 is the ordered table of status400: image and tool-content
// problems, encrypted replay content, parameter rejections (before the
// overflow phrases: "Unsupported parameter: 'max_tokens'"), malformed
// messages, then the tail phrases.
var rules400 = [...]rule{
	{multimodalToolText, ReasonMultimodalToolContent},
	{reasoningMandatoryText, ReasonReasoningMandatory},
	{imageCorruptText, ReasonImageCorrupt},
	{imageTooLargeText, ReasonImageTooLarge},
	{encryptedReplayRejected, ReasonInvalidEncryptedContent},
	{invalidKey, ReasonAuth},
	{injectedParamRejected, ReasonServerError},
	{paramRejectText, ReasonFormatError},
	{malformedText, ReasonFormatError},
	{emptyResponseText, ReasonServerError},
	{overflowEvidence, ReasonContextOverflow},
	{payloadText, ReasonPayloadTooLarge},
	{policyBlockText, ReasonProviderPolicyBlocked},
	{modelNotFoundEvidence, ReasonModelNotFound},
	{rateLimitText, ReasonRateLimit},
	{billingEvidence, ReasonBilling},
}

// status400 applies rules400, then takes a bare error on a large session
// as an overflow; anything else is a format error.
func status400(ev *evidence, in ClassifyInput) Classified {
	if r, ok := decide(ev, rules400[:]); ok {
		return newClassified(r)
	}
	if isBareMessage(ev.message) && in.largeForBareError() {
		return newClassified(ReasonContextOverflow)
	}
	return newClassified(ReasonFormatError)
}

// isServerInjectedParam matches a rejection of a parameter the gateway adds
// itself (Codex OAuth randomly rejecting prompt_cache_retention): transient.
func isServerInjectedParam(t string) bool {
	return strings.Contains(t, "prompt_cache_retention")
}

// isBareMessage is a message too generic to say anything: short, or just
// "error".
func isBareMessage(m string) bool {
	m = strings.TrimSpace(m)
	return len(m) < 30 || strings.EqualFold(m, "error")
}
