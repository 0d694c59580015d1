// Package compress holds the token accounting and the context compression of
// the agent loop, as pure code the loop calls at its triggers: a calibrated
// token estimate corrected by provider-reported usage, context lengths of
// common models, the compression threshold, pruning of old tool outputs, the
// head/middle/tail plan, the summarizer request, applying a summary, a
// deterministic fallback summary and an anti-thrash governor. Only Compress
// performs I/O: the one summary call.
//
// The system prompt is never part of the messages handled here: the loop
// keeps it separately and it is never compressed.
package compress

import (
	"math"
	"sync"
	"unicode/utf8"

	"talaria/providers"
)

// Fixed per-item costs of the estimate, in tokens.
const (
	// MessageOverhead is what each message costs beyond its text (role,
	// separators).
	MessageOverhead = 4
	// ToolCallOverhead is what each tool call costs beyond its name,
	// arguments and id.
	ToolCallOverhead = 4
	// ToolSpecOverhead is what each offered tool costs beyond its name,
	// description and schema.
	ToolSpecOverhead = 8
	// ReplyPriming is the fixed cost of priming the reply, counted once
	// for a non-empty message list.
	ReplyPriming = 3
)

// The estimate counts quarter tokens per character class.
const (
	weightPlain  = 1 // ASCII letters, digits, spaces, line breaks: ~4 chars a token
	weightPunct  = 2 // ASCII punctuation, JSON syntax above all: ~2 chars a token
	weightOther  = 2 // other scripts (accented Latin, Cyrillic, Greek, ...)
	weightCJK    = 4 // Han, kana, Hangul, full-width forms: ~1 token a char
	weightSymbol = 8 // emoji and other astral symbols: ~2 tokens a char
)

// EstimateText returns a calibrated token estimate of s: about four ASCII
// letters or digits per token, two punctuation characters per token (JSON is
// mostly punctuation), one token per CJK character and two per emoji. It
// errs slightly high; a Tracker corrects it against real usage.
func EstimateText(s string) int {
	q := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			q += asciiWeight(b)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		q += runeWeight(r)
	}
	return (q + 3) / 4
}

func asciiWeight(b byte) int {
	switch {
	case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9',
		b == ' ', b == '\n', b == '\t', b == '\r', b == '_':
		return weightPlain
	default:
		return weightPunct
	}
}

func runeWeight(r rune) int {
	switch {
	case r >= 0x1100 && r <= 0x11FF, // Hangul Jamo
		r >= 0x2E80 && r <= 0x9FFF,   // CJK radicals, punctuation, kana, Han
		r >= 0xAC00 && r <= 0xD7AF,   // Hangul syllables
		r >= 0xF900 && r <= 0xFAFF,   // CJK compatibility ideographs
		r >= 0xFF00 && r <= 0xFFEF,   // full-width forms
		r >= 0x20000 && r <= 0x3FFFF: // Han extensions
		return weightCJK
	case r >= 0x1F000:
		return weightSymbol
	default:
		return weightOther
	}
}

// MessageTokens estimates one message: its content, its tool calls (name,
// arguments, id) and the tool_call_id it answers, plus MessageOverhead.
// Reasoning text counts only when the message carries replay data, the sign
// that the provider expects it back.
func MessageTokens(m *providers.Message) int {
	n := MessageOverhead + EstimateText(m.Content)
	if len(m.ReasoningReplay) > 0 {
		n += EstimateText(m.Reasoning)
	}
	for i := range m.ToolCalls {
		tc := &m.ToolCalls[i]
		n += ToolCallOverhead + EstimateText(tc.Name) + EstimateText(tc.Arguments) + EstimateText(tc.ID)
	}
	if m.ToolCallID != "" {
		n += EstimateText(m.ToolCallID)
	}
	return n
}

// Estimate returns the estimated prompt tokens of msgs and the tool schemas
// offered with them. It is monotonic: adding a message or a tool never
// lowers it. The loop adds EstimateText of the system prompt (plus
// MessageOverhead) to compare a whole request against the threshold.
func Estimate(msgs []providers.Message, tools []providers.ToolSpec) int {
	n := 0
	for i := range msgs {
		n += MessageTokens(&msgs[i])
	}
	if len(msgs) > 0 {
		n += ReplyPriming
	}
	for i := range tools {
		t := &tools[i]
		n += ToolSpecOverhead + EstimateText(t.Name) + EstimateText(t.Description) + EstimateText(string(t.Parameters))
	}
	return n
}

// PromptTokens is the whole prompt size a response reports: the uncached
// input plus the cache reads and writes (the transports report them apart).
func PromptTokens(u providers.Usage) int {
	return u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens
}

// Tracker calibration.
const (
	trackerAlpha    = 0.3  // weight of the newest observation in the EWMA
	trackerMinRatio = 0.25 // observations are clamped into [min, max]
	trackerMaxRatio = 4.0
)

// Tracker corrects estimates with provider-reported usage: it keeps an
// exponentially weighted moving average of actual/estimated prompt tokens.
// The zero value is ready to use (ratio 1) and it is safe for concurrent use.
type Tracker struct {
	mu      sync.Mutex
	ratio   float64
	samples int
}

// Observe records one request whose estimate was estimated and whose
// provider-reported prompt size (see PromptTokens) was actual. Observations
// with a non-positive side are ignored; each ratio is clamped to [0.25, 4].
func (t *Tracker) Observe(estimated, actual int) {
	if estimated <= 0 || actual <= 0 {
		return
	}
	r := min(max(float64(actual)/float64(estimated), trackerMinRatio), trackerMaxRatio)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.samples == 0 {
		t.ratio = r
	} else {
		t.ratio = trackerAlpha*r + (1-trackerAlpha)*t.ratio
	}
	t.samples++
}

// Ratio returns the current actual/estimated ratio (1 before any sample).
func (t *Tracker) Ratio() float64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.samples == 0 {
		return 1
	}
	return t.ratio
}

// Samples returns how many observations were recorded.
func (t *Tracker) Samples() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.samples
}

// Adjust scales an estimate by the observed ratio, rounding up.
func (t *Tracker) Adjust(estimate int) int {
	r := t.Ratio()
	if r == 1 || estimate <= 0 {
		return estimate
	}
	return int(math.Ceil(float64(estimate) * r))
}

// Percent returns used as a percentage of contextLength, for the UI: 0 when
// the length is unknown, and possibly over 100 when the context overflows.
func Percent(used, contextLength int) float64 {
	if contextLength <= 0 || used <= 0 {
		return 0
	}
	return 100 * float64(used) / float64(contextLength)
}
