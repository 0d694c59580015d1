package loop

import (
	"encoding/json"
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
}

// recover applies the one-shot recovery for class to req, reporting whether
// the call should be retried immediately.
func (s *attemptState) recover(class providers.Classified, req *providers.Request) bool {
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
