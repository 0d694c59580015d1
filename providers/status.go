package providers

import "strings"

// byStatus applies the HTTP status rules of reference/hermes.md §3.4 to an
// error status (≥ 400). It always decides.
func byStatus(s int, ev *evidence, ae *APIError, in ClassifyInput) Classified {
	t := ev.text
	switch {
	case s == 401:
		return authReason(t)
	case s == 403:
		switch {
		case isBillingText(t) || hasBillingCode(ev):
			return newClassified(ReasonBilling)
		case isPolicyBlockText(t):
			return newClassified(ReasonProviderPolicyBlocked)
		}
		return authReason(t)
	case s == 402:
		if isUsageLimitText(t) && hasTransientSignal(t) {
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
		case isEmptyResponseText(t):
			return newClassified(ReasonServerError)
		case isOverflowText(t) || ev.hasCode("context_length_exceeded", "exceed_context_size_error"):
			return newClassified(ReasonContextOverflow)
		}
		return newClassified(ReasonServerError)
	case s == 503 || s == 529:
		switch {
		case isEmptyResponseText(t):
			return newClassified(ReasonServerError)
		case isOverflowText(t) || ev.hasCode("context_length_exceeded", "exceed_context_size_error"):
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
func authReason(t string) Classified {
	if isAuthPermanentText(t) {
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
	case isBillingText(t):
		return newClassified(ReasonBilling)
	case isPolicyBlockText(t):
		return newClassified(ReasonProviderPolicyBlocked)
	case isModelNotFoundText(t) || ev.hasCode("model_not_found", "model_not_available", "invalid_model"),
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
	throttle := isRateLimitText(msg) || hasTextReset(msg) || ev.hasCode("resource_exhausted")
	strongWall := isBillingText(msg) || isQuotaWallText(msg)
	weakWall := isUsageLimitText(msg) || ev.hasCode("usage_limit_reached")
	switch {
	case isOverloadText(t):
		return newClassified(ReasonOverloaded)
	case ev.wrapped || strings.Contains(t, "provider returned error"):
		return newClassified(ReasonUpstreamRateLimit)
	case isTPMTooLargeText(t):
		return newClassified(ReasonPayloadTooLarge)
	case hasHardBillingCode(ev):
		return newClassified(ReasonBilling)
	case bodyReset(ae.Body), (strongWall || weakWall) && headerReset(ae.Headers):
		c := newClassified(ReasonRateLimit)
		c.StructuredReset = true
		return c
	case strongWall && !throttle:
		return newClassified(ReasonBilling)
	case weakWall && !throttle && !isRateLimitText(t):
		return newClassified(ReasonBilling)
	}
	return newClassified(ReasonRateLimit)
}

// status400 applies the ordered 400 rules: image and tool-content
// problems, encrypted replay content, parameter rejections (before the
// overflow phrases: "Unsupported parameter: 'max_tokens'"), malformed
// messages, then the tail phrases, then a bare error on a large session.
func status400(ev *evidence, in ClassifyInput) Classified {
	t := ev.text
	var r FailoverReason
	switch {
	case isMultimodalToolText(t):
		r = ReasonMultimodalToolContent
	case isReasoningMandatoryText(t):
		r = ReasonReasoningMandatory
	case isImageCorruptText(t):
		r = ReasonImageCorrupt
	case isImageTooLargeText(t):
		r = ReasonImageTooLarge
	case ev.hasCode("invalid_encrypted_content") ||
		(strings.Contains(t, "encrypted content for item") && strings.Contains(t, "could not be verified")) ||
		strings.Contains(t, "could not decrypt the provided encrypted_content"):
		r = ReasonInvalidEncryptedContent
	case ev.hasCode("api_key_invalid") || strings.Contains(t, "api key not valid"):
		// Gemini reports a bad key as 400 INVALID_ARGUMENT.
		r = ReasonAuth
	case isParamRejectText(t) && isServerInjectedParam(t):
		r = ReasonServerError
	case isParamRejectText(t):
		r = ReasonFormatError
	case isMalformedText(t):
		r = ReasonFormatError
	case isEmptyResponseText(t):
		r = ReasonServerError
	case isOverflowText(t) || ev.hasCode("context_length_exceeded", "max_tokens_exceeded", "exceed_context_size_error"):
		r = ReasonContextOverflow
	case isPayloadText(t):
		r = ReasonPayloadTooLarge
	case isPolicyBlockText(t):
		r = ReasonProviderPolicyBlocked
	case isModelNotFoundText(t) || ev.hasCode("model_not_found", "model_not_available", "invalid_model"):
		r = ReasonModelNotFound
	case isRateLimitText(t):
		r = ReasonRateLimit
	case isBillingText(t) || hasBillingCode(ev):
		r = ReasonBilling
	case isBareMessage(ev.message) && in.largeForBareError():
		r = ReasonContextOverflow
	default:
		r = ReasonFormatError
	}
	return newClassified(r)
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
