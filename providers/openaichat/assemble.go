package openaichat

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"talaria/providers"
)

// finishReasons maps a wire finish_reason onto the normalized set:
// function_call becomes tool_calls, a few spellings used by compatible
// servers are folded in, and unknown values count as stop. "" stays "".
var finishReasons = providers.FinishReasons{
	"stop":                providers.FinishStop,
	"eos":                 providers.FinishStop,
	"end_turn":            providers.FinishStop,
	"stop_sequence":       providers.FinishStop,
	"length":              providers.FinishLength,
	"max_tokens":          providers.FinishLength,
	"model_length":        providers.FinishLength,
	"tool_calls":          providers.FinishToolCalls,
	"function_call":       providers.FinishToolCalls,
	"tool_use":            providers.FinishToolCalls,
	"content_filter":      providers.FinishContentFilter,
	"refusal":             providers.FinishContentFilter,
	"safety":              providers.FinishContentFilter,
	"error":               providers.FinishError,
	"abort":               providers.FinishError,
	providers.FinishOther: providers.FinishStop,
}

// assembler builds a Response from chunks (or from the single "chunk" of a
// complete response) and reports deltas as they arrive.
type assembler struct {
	providers.Streamed // content and reasoning, reported as they arrive
	refusal            bool
	calls              []*callAcc
	byIndex            map[int]int    // wire index -> position in calls
	byID               map[string]int // call id -> first position holding it
	finish             string         // raw finish_reason, last non-empty one
	usage              *wireUsage
	sawChunk           bool
}

// callAcc is one tool call being assembled.
type callAcc struct {
	id, name  string
	args      strings.Builder
	extra     json.RawMessage
	announced bool
}

func newAssembler(onDelta func(providers.Delta)) *assembler {
	return &assembler{Streamed: providers.Streamed{OnDelta: onDelta}, byIndex: map[int]int{}, byID: map[string]int{}}
}

// add folds one decoded chunk in. Only choice index 0 is read; chunks with
// no choices contribute usage and model only.
func (a *assembler) add(c *chunk) {
	a.sawChunk = true
	a.SetModel(c.Model)
	if c.Usage != nil {
		a.usage = c.Usage
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 {
			continue
		}
		d := &ch.Delta
		if ch.Message != nil {
			d = ch.Message
		}
		a.addDelta(d)
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			a.finish = *ch.FinishReason
		}
	}
}

func (a *assembler) addDelta(d *wireMessage) {
	a.AddReasoning(reasoningOf(d))
	a.AddReasoning(d.Content.thinking)
	a.AddText(d.Content.text)
	if d.Refusal != "" {
		a.refusal = true
		a.AddText(string(d.Refusal))
	}
	for i := range d.ToolCalls {
		a.addToolCall(&d.ToolCalls[i])
	}
}

// reasoningOf returns the reasoning text of a delta: reasoning (Ollama,
// vLLM, OpenRouter) and reasoning_content (DeepSeek, llama.cpp); a server
// that sends both with the same text is counted once.
func reasoningOf(d *wireMessage) string {
	r, rc := string(d.Reasoning), string(d.ReasoningContent)
	switch {
	case r == "":
		return rc
	case rc == "" || rc == r:
		return r
	default:
		return rc + r
	}
}

// addToolCall folds one tool-call fragment in. Fragments are keyed by
// index; a fragment without index (Ollama, Gemini send whole calls) is a
// new call unless its id is known, or unless it carries nothing but
// arguments, which continue the last call. A known index arriving with a
// different id is a new call (servers that number every call 0).
func (a *assembler) addToolCall(tc *wireToolCall) {
	pos := -1
	if tc.ID != "" {
		pos = a.findID(tc.ID)
	}
	if tc.Index != nil {
		if p, ok := a.byIndex[*tc.Index]; ok && (tc.ID == "" || a.calls[p].id == "" || a.calls[p].id == tc.ID) {
			pos = p
		}
	} else if pos < 0 && tc.ID == "" && tc.Function.Name == "" && len(a.calls) > 0 {
		pos = len(a.calls) - 1
	}
	if pos < 0 {
		a.calls = append(a.calls, &callAcc{})
		pos = len(a.calls) - 1
	}
	if tc.Index != nil {
		a.byIndex[*tc.Index] = pos
	}
	c := a.calls[pos]
	if c.id == "" && tc.ID != "" {
		c.id = tc.ID
		if p, ok := a.byID[tc.ID]; !ok || pos < p {
			a.byID[tc.ID] = pos
		}
	}
	if c.name == "" {
		c.name = tc.Function.Name
	}
	c.args.WriteString(string(tc.Function.Arguments))
	if len(tc.ExtraContent) > 0 && string(tc.ExtraContent) != "null" {
		c.extra = append(json.RawMessage(nil), tc.ExtraContent...)
	}
	if !c.announced && c.name != "" {
		c.announced = true
		a.OnDelta.Emit(providers.Delta{Kind: providers.DeltaToolCall, ToolIndex: pos, ToolName: c.name})
	}
}

// findID returns the first position whose call has id, or -1: a map
// lookup, so a reply with many calls assembles in linear time.
func (a *assembler) findID(id string) int {
	if p, ok := a.byID[id]; ok {
		return p
	}
	return -1
}

// response returns what has been assembled so far. Tool calls without an
// id get a stable synthesized one (call_<position>). A refusal with no
// finish reason counts as content_filter; a "stop" with tool calls (Gemini)
// counts as tool_calls. Usage.InputTokens excludes the cached prompt tokens
// (prompt_tokens - cached_tokens), as Anthropic's input_tokens does, so
// InputTokens + CacheReadTokens is the whole prompt.
func (a *assembler) response() *providers.Response {
	r := a.Response(a.finish, finishReasons.Map(strings.ToLower(a.finish)))
	for i, c := range a.calls {
		id := c.id
		if id == "" {
			id = "call_" + strconv.Itoa(i)
		}
		r.ToolCalls = append(r.ToolCalls, providers.ToolCall{ID: id, Name: c.name, Arguments: c.args.String(), Extra: c.extra})
	}
	if r.FinishReason == "" && a.refusal {
		r.FinishReason = providers.FinishContentFilter
	}
	if r.FinishReason == providers.FinishStop && len(r.ToolCalls) > 0 {
		r.FinishReason = providers.FinishToolCalls
	}
	if u := a.usage; u != nil {
		cached := u.cached()
		r.Usage = providers.Usage{
			InputTokens:     max(int(u.PromptTokens)-cached, 0),
			OutputTokens:    int(u.CompletionTokens),
			CacheReadTokens: cached,
		}
		if u.CompletionTokensDetails != nil {
			r.Usage.ReasoningTokens = int(u.CompletionTokensDetails.ReasoningTokens)
		}
	}
	return r
}

// decodeFullResponse normalizes the JSON of a complete chat.completion.
func decodeFullResponse(body []byte) (*providers.Response, error) {
	var c chunk
	if err := json.Unmarshal(body, &c); err != nil {
		return nil, fmt.Errorf("decode chat completion: %w", err)
	}
	if hasError(c.Error) || c.Object == "error" {
		return nil, errors.New("response is an error object, not a completion")
	}
	a := newAssembler(nil)
	a.add(&c)
	return a.response(), nil
}

// hasError reports whether an "error" field is present and not null.
func hasError(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null"
}
