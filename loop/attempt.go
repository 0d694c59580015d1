package loop

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"talaria/providers"
)

// attemptState holds the one-shot recoveries of one model call (Hermes's
// TurnRetryState): each strips something the provider rejected and retries
// at once, at most once per call.
type attemptState struct {
	replayStripped  bool // thinking signature / encrypted reasoning rejected
	grammarStripped bool // llama.cpp could not turn a schema into a grammar
	authRetried     bool // one plain retry on a generic 401
	reasoningForced bool // reasoning turned on after reasoning_mandatory
	imagesStripped  bool // the server refused image parts
}

// recover applies the one-shot recovery for class to req, reporting whether
// the call should be retried immediately.
func (s *attemptState) recover(class providers.Classified, req *providers.Request) bool {
	if !s.imagesStripped && imagesRefused(class) && hasImages(req.Messages) {
		// A text-only model (llama.cpp without a projector, a text model
		// behind vLLM): the images' placeholders stay in the text.
		s.imagesStripped = true
		req.Messages = stripImages(req.Messages)
		return true
	}
	switch class.Reason {
	case providers.ReasonThinkingSignature, providers.ReasonInvalidEncryptedContent:
		if s.replayStripped {
			return false
		}
		s.replayStripped = true
		req.Messages = stripReplay(req.Messages)
		return true
	case providers.ReasonLlamaCppGrammar:
		if s.grammarStripped {
			return false
		}
		s.grammarStripped = true
		req.Tools = stripGrammarKeywords(req.Tools)
		return true
	case providers.ReasonAuth:
		// Only a bare 401 may be a glitch; a rejected key is final.
		if s.authRetried || class.Status != 401 || class.Code != "" || strings.Contains(strings.ToLower(class.Message), "key") {
			return false
		}
		s.authRetried = true
		return true
	}
	return false
}

// imagesRefused reports an error the classifier says is about the image
// parts themselves (a model that takes none, a corrupt or too big image):
// sending the placeholders only may succeed.
func imagesRefused(c providers.Classified) bool {
	switch c.Reason {
	case providers.ReasonMultimodalToolContent, providers.ReasonImageCorrupt, providers.ReasonImageTooLarge:
		return true
	}
	return false
}

// hasImages reports whether any message carries an image part.
func hasImages(msgs []providers.Message) bool {
	for _, m := range msgs {
		if len(m.Images) > 0 {
			return true
		}
	}
	return false
}

// stripImages drops the image parts from a copy of the messages; their
// text placeholders stay, and a user message says its images were not
// sent.
func stripImages(msgs []providers.Message) []providers.Message {
	out := make([]providers.Message, len(msgs))
	for i, m := range msgs {
		out[i] = withoutImages(m)
	}
	return out
}

// stripReplay drops reasoning replay data (signed thinking blocks,
// encrypted reasoning items) from a copy of the messages.
func stripReplay(msgs []providers.Message) []providers.Message {
	out := make([]providers.Message, len(msgs))
	for i, m := range msgs {
		m.ReasoningReplay = nil
		out[i] = m
	}
	return out
}

// stripGrammarKeywords removes the string-valued "pattern" and "format"
// keywords from tool schemas (llama.cpp's json-schema-to-grammar rejects
// many of them). Property names are left alone.
func stripGrammarKeywords(specs []providers.ToolSpec) []providers.ToolSpec {
	out := make([]providers.ToolSpec, len(specs))
	for i, s := range specs {
		var schema any
		if json.Unmarshal(s.Parameters, &schema) == nil {
			if b, err := json.Marshal(stripSchema(schema)); err == nil {
				s.Parameters = b
			}
		}
		out[i] = s
	}
	return out
}

func stripSchema(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			switch {
			case k == "properties" || k == "$defs" || k == "definitions":
				if props, ok := val.(map[string]any); ok {
					for name, p := range props {
						props[name] = stripSchema(p)
					}
				}
			case k == "pattern" || k == "format":
				if _, isString := val.(string); isString {
					delete(x, k)
				}
			default:
				x[k] = stripSchema(val)
			}
		}
		return x
	case []any:
		for i := range x {
			x[i] = stripSchema(x[i])
		}
		return x
	}
	return v
}

// mandatoryEffort is the reasoning effort turned on for a model that
// refuses requests without reasoning (reasoning_mandatory): what providers
// default to when reasoning is on.
const mandatoryEffort = "medium"

// requireReasoning retries a reasoning_mandatory rejection once with
// reasoning on, and keeps it on for that backend for the session. A
// request that already asked for reasoning is not retried: the error is
// then final for this backend (a fallback may follow).
func (t *turn) requireReasoning(s *attemptState, class providers.Classified, req *providers.Request) bool {
	if class.Reason != providers.ReasonReasoningMandatory || s.reasoningForced || req.ReasoningEffort != "" {
		return false
	}
	s.reasoningForced = true
	req.ReasoningEffort = t.a.route.chain.RequireReasoning(mandatoryEffort)
	t.emit(&RetryScheduled{Attempt: 2, MaxAttempts: 2, Reason: class.Reason.String(), Status: class.Status,
		Message: "the model requires reasoning: retrying once with reasoning_effort " + req.ReasoningEffort})
	return true
}

// policyFallback moves a request the provider blocked under its content
// policy (a 400 or a streamed content_filter finish) to the next backend
// of the chain, once per turn: a different model may answer.
func (t *turn) policyFallback(req *providers.Request) bool {
	if t.continuation.policyFallback {
		return false
	}
	t.continuation.policyFallback = true
	return t.fallback(req, providers.ReasonContentPolicyBlocked)
}

// billingMessage is the final response of a turn that failed on billing:
// it names the cause and what can be done, without retrying.
func billingMessage(ce *callError) string {
	who := ce.class.Provider
	if who == "" {
		who = "the provider"
	}
	return fmt.Sprintf("Billing: %s refused the request because the account's quota or credits are exhausted (%s). "+
		"No other API key or fallback provider could take over: top up the account or wait for the quota to reset, "+
		"or configure more keys (model.api_keys_env) or fallback_providers.", who, firstLine(ce.err.Error()))
}

// contentFiltered ends a turn whose reply the provider stopped under its
// content policy after the one fallback of the turn: the text that came
// before the filter is kept as the answer.
func (t *turn) contentFiltered(msg providers.Message) bool {
	t.exit = ExitContentPolicyBlocked.Exit()
	t.final = "The provider stopped the reply under its content policy."
	if strings.TrimSpace(msg.Content) != "" {
		t.append(msg)
		t.final = msg.Content
	}
	return true
}

// isBilling reports a call that failed for good on billing.
func isBilling(err error) bool {
	var ce *callError
	return errors.As(err, &ce) && ce.class.Reason == providers.ReasonBilling
}
