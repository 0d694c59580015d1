package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"talaria/providers"
)

// finishReasons maps a Gemini finishReason onto the normalized set: STOP
// → stop, MAX_TOKENS → length; SAFETY, RECITATION, BLOCKLIST,
// PROHIBITED_CONTENT, SPII and the IMAGE_ safety values → content_filter;
// MALFORMED_FUNCTION_CALL, UNEXPECTED_TOOL_CALL, TOO_MANY_TOOL_CALLS,
// MISSING_THOUGHT_SIGNATURE, LANGUAGE, OTHER, FINISH_REASON_UNSPECIFIED and
// any value not listed → error (every newer value has been a failure). ""
// stays "". STOP with tool calls becomes tool_calls when the response is
// assembled.
var finishReasons = providers.FinishReasons{
	"STOP":                     providers.FinishStop,
	"MAX_TOKENS":               providers.FinishLength,
	"SAFETY":                   providers.FinishContentFilter,
	"RECITATION":               providers.FinishContentFilter,
	"BLOCKLIST":                providers.FinishContentFilter,
	"PROHIBITED_CONTENT":       providers.FinishContentFilter,
	"SPII":                     providers.FinishContentFilter,
	"IMAGE_SAFETY":             providers.FinishContentFilter,
	"IMAGE_PROHIBITED_CONTENT": providers.FinishContentFilter,
	"IMAGE_RECITATION":         providers.FinishContentFilter,
	providers.FinishOther:      providers.FinishError,
}

// assembler builds a Response from GenerateContentResponse chunks and
// reports deltas as they arrive.
type assembler struct {
	providers.Streamed // content and reasoning, reported as they arrive
	calls              []providers.ToolCall
	// sig is the thoughtSignature of the last text or thought part.
	sig      string
	finish   string
	blocked  string
	usage    *usageMetadata
	sawChunk bool
}

func newAssembler(onDelta func(providers.Delta)) *assembler {
	return &assembler{Streamed: providers.Streamed{OnDelta: onDelta}}
}

// add folds in one chunk. Only the candidate with index 0 is read.
func (a *assembler) add(r *generateResponse) {
	a.sawChunk = true
	a.SetModel(r.ModelVersion)
	if r.UsageMetadata != nil {
		a.usage = r.UsageMetadata
	}
	if r.PromptFeedback != nil && r.PromptFeedback.BlockReason != "" {
		a.blocked = r.PromptFeedback.BlockReason
	}
	for i := range r.Candidates {
		c := &r.Candidates[i]
		if c.Index != 0 {
			continue
		}
		if c.Content != nil {
			for j := range c.Content.Parts {
				a.addPart(&c.Content.Parts[j])
			}
		}
		if c.FinishReason != "" {
			a.finish = c.FinishReason
		}
		break
	}
}

// addPart folds in one part: thought text is reasoning, other text is
// content, a functionCall is a whole call.
func (a *assembler) addPart(p *part) {
	switch {
	case p.FunctionCall != nil:
		fc := p.FunctionCall
		id := fc.ID
		if id == "" {
			id = "call_" + strconv.Itoa(len(a.calls))
		}
		tc := providers.ToolCall{ID: id, Name: fc.Name, Arguments: string(providers.CompactArgs(fc.Args))}
		if p.ThoughtSignature != "" {
			var e callExtra
			e.Google.ThoughtSignature = p.ThoughtSignature
			tc.Extra, _ = json.Marshal(e)
		}
		a.calls = append(a.calls, tc)
		a.OnDelta.Emit(providers.Delta{Kind: providers.DeltaToolCall, ToolIndex: len(a.calls) - 1, ToolName: fc.Name})
		return
	case p.Text != nil && *p.Text != "":
		if p.Thought {
			a.AddReasoning(*p.Text)
		} else {
			a.AddText(*p.Text)
		}
	}
	if p.ThoughtSignature != "" {
		a.sig = p.ThoughtSignature
	}
}

// done reports whether the answer is complete: a finish reason, or a
// blocked prompt.
func (a *assembler) done() bool { return a.finish != "" || a.blocked != "" }

// response returns what has been assembled so far. A blocked prompt
// (promptFeedback.blockReason) without a finish reason is content_filter
// with the block reason as the raw reason; STOP with calls is tool_calls.
// Usage.InputTokens excludes the cached tokens (promptTokenCount counts
// them) and OutputTokens includes the thinking tokens (billed as output),
// also reported as ReasoningTokens.
func (a *assembler) response() *providers.Response {
	r := a.Response(a.finish, finishReasons.Map(a.finish))
	r.ToolCalls = a.calls
	if a.finish == "" && a.blocked != "" {
		r.RawFinishReason, r.FinishReason = a.blocked, providers.FinishContentFilter
	}
	if r.FinishReason == providers.FinishStop && len(r.ToolCalls) > 0 {
		r.FinishReason = providers.FinishToolCalls
	}
	if a.sig != "" {
		r.ReasoningReplay, _ = json.Marshal(map[string]replayData{replayKey: {ThoughtSignature: a.sig}})
	}
	if u := a.usage; u != nil {
		r.Usage = providers.Usage{
			InputTokens:     max(u.PromptTokenCount-u.CachedContentTokenCount, 0),
			OutputTokens:    u.CandidatesTokenCount + u.ThoughtsTokenCount,
			CacheReadTokens: u.CachedContentTokenCount,
			ReasoningTokens: u.ThoughtsTokenCount,
		}
	}
	return r
}

// decodeWhole decodes one GenerateContentResponse or an array of them.
func decodeWhole(body []byte) ([]generateResponse, error) {
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		var list []generateResponse
		if err := json.Unmarshal(body, &list); err != nil {
			return nil, fmt.Errorf("decode Gemini response: %w", err)
		}
		return list, nil
	}
	var one generateResponse
	if err := json.Unmarshal(body, &one); err != nil {
		return nil, fmt.Errorf("decode Gemini response: %w", err)
	}
	if !one.hasError() && one.Candidates == nil && one.PromptFeedback == nil && one.UsageMetadata == nil {
		return nil, errors.New("decode Gemini response: no candidates, promptFeedback or usageMetadata")
	}
	return []generateResponse{one}, nil
}
