package anthropic

import (
	"bytes"
	"encoding/json"
)

// event is one streamed event (message_start, content_block_start,
// content_block_delta, content_block_stop, message_delta, message_stop,
// ping, error), decoded with only the fields this transport reads.
type event struct {
	Type         string       `json:"type"`
	Index        int          `json:"index"`
	Message      *wireMessage `json:"message"`
	ContentBlock *wireBlock   `json:"content_block"`
	Delta        wireDelta    `json:"delta"`
	Usage        *wireUsage   `json:"usage"`
	Error        *wireError   `json:"error"`
}

// wireMessage is the message of message_start, or a complete response.
type wireMessage struct {
	ID         string      `json:"id"`
	Model      string      `json:"model"`
	Content    []wireBlock `json:"content"`
	StopReason string      `json:"stop_reason"`
	Usage      *wireUsage  `json:"usage"`
}

// wireBlock is a content block: its opening state when streamed, the whole
// block in a complete response.
type wireBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
}

// wireDelta is the delta of content_block_delta (text_delta,
// input_json_delta, thinking_delta, signature_delta) or of message_delta
// (stop_reason).
type wireDelta struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	PartialJSON string `json:"partial_json"`
	Thinking    string `json:"thinking"`
	Signature   string `json:"signature"`
	StopReason  string `json:"stop_reason"`
}

// wireUsage is the usage object. Fields are pointers because message_delta
// repeats only some of them (output_tokens always, the others when known),
// each a cumulative value that replaces the earlier one.
type wireUsage struct {
	InputTokens              *int `json:"input_tokens"`
	OutputTokens             *int `json:"output_tokens"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
	OutputTokensDetails      *struct {
		ThinkingTokens *int `json:"thinking_tokens"`
	} `json:"output_tokens_details"`
}

// merge overlays the fields present in o.
func (u *wireUsage) merge(o *wireUsage) {
	if o == nil {
		return
	}
	set := func(dst **int, src *int) {
		if src != nil {
			*dst = src
		}
	}
	set(&u.InputTokens, o.InputTokens)
	set(&u.OutputTokens, o.OutputTokens)
	set(&u.CacheCreationInputTokens, o.CacheCreationInputTokens)
	set(&u.CacheReadInputTokens, o.CacheReadInputTokens)
	if o.OutputTokensDetails != nil {
		u.OutputTokensDetails = o.OutputTokensDetails
	}
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// wireError is the error object of an error body or an error event. Some
// errors carry details.error_code (enforced_spend_limit_reached, ...).
type wireError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Details *struct {
		ErrorCode string `json:"error_code"`
	} `json:"details"`
}

// parseErrorBody reads an Anthropic error body: {"type":"error","error":
// {"type","message"},"request_id"}, or the same without the top-level type
// (413 from the edge). ok is false when the body is not one of these.
func parseErrorBody(body []byte) (e wireError, ok bool) {
	var top struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(bytes.TrimSpace(body), &top) != nil {
		return e, false
	}
	raw := bytes.TrimSpace(top.Error)
	switch {
	case len(raw) > 0 && raw[0] == '{':
		if json.Unmarshal(raw, &e) != nil {
			return e, false
		}
		return e, e.Message != "" || e.Type != ""
	case len(raw) > 0 && raw[0] == '"':
		return e, json.Unmarshal(raw, &e.Message) == nil
	}
	return e, false
}

// code is the error's details.error_code, if any.
func (e *wireError) code() string {
	if e.Details == nil {
		return ""
	}
	return e.Details.ErrorCode
}

// replay is the ReasoningReplay this transport writes: the blocks of the
// assistant message in their original order, thinking and
// redacted_thinking blocks in full (they must go back unchanged, signature
// included), text and tool_use blocks as placeholders that mark where the
// message's content and tool calls stood.
type replay struct {
	Format string        `json:"format"`
	Blocks []replayBlock `json:"blocks"`
}

// replayBlock is one block of a replay. Thinking is a pointer so that a
// thinking block with empty text (the API can omit it) keeps "thinking":"".
type replayBlock struct {
	Type      string  `json:"type"`
	Thinking  *string `json:"thinking,omitempty"`
	Signature string  `json:"signature,omitempty"`
	Data      string  `json:"data,omitempty"`
	ID        string  `json:"id,omitempty"`
}

// parseReplay returns the blocks of a ReasoningReplay written by this
// transport; replay data of any other format (another transport's, after a
// fallback) gives nil and is ignored.
func parseReplay(raw json.RawMessage) []replayBlock {
	if len(raw) == 0 {
		return nil
	}
	var r replay
	if json.Unmarshal(raw, &r) != nil || r.Format != ReplayFormat {
		return nil
	}
	return r.Blocks
}
